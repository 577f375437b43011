/**
 * The faults command's flags and help text, apart from faults.ts so that `faults --help` loads no fault run.
 */
import { parseArgs } from 'node:util'
import { FAULT_RUN_DEFAULTS } from '../proof/run-defaults.ts'

export const FAULTS_USAGE = `Usage: gateway-conformance faults [options]     (npm run faults -- [options])

The fault score: runs the conformance suites against the reference gateway under every named fault and prints,
per fault, the requirements it breaks, whether the run detected it, and anything else that failed (collateral).

Options:
  --fault a,b         only these faults (gateway-conformance gateway --fault list names them)
  --workers N         runs side by side (default ${FAULT_RUN_DEFAULTS.workers})
  --scope S           families (default): each fault runs its requirements' families; files: only the suite files
                      that check them (quicker)
  --limiters          also prove the rate-limit checks against every limiter algorithm the reference allows
  --json FILE         write the results as JSON (and each as it is judged, a line of FILE.partial)
  -h, --help          this text

Exit codes: 0 every fault detected with no collateral, 1 some fault undetected or with collateral,
            2 bad options.
`

export interface FaultsFlags {
  fault?: string
  workers?: string
  json?: string
  scope?: string
  limiters?: boolean
  help?: boolean
}

/** node:util's parse; its errors are the caller's to word. */
export function parseFaultsFlags(argv: string[]): FaultsFlags {
  return parseArgs({
    args: argv,
    options: {
      fault: { type: 'string' },
      workers: { type: 'string' },
      json: { type: 'string' },
      scope: { type: 'string' },
      limiters: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values
}
