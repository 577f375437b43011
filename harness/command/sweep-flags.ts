/**
 * The sweep subcommand's flags and its help text, apart from sweep.ts so that `sweep --help` loads no HTTP client.
 */
import { parseArgs } from 'node:util'
import { ConfigError } from '../errors.ts'
import { SWEEP_DEFAULTS } from './leftovers.ts'

export const SWEEP_USAGE = `Usage: gateway-conformance sweep [--yes] [--keep RUN_ID]... [--older-than DURATION] [--base-url URL]

Lists what earlier conformance and load runs left on the target: files whose filename starts with gc-<run id>-
and video jobs whose safety_identifier starts with gc-<run id>-, with every key given (GATEWAY_API_KEY
and GATEWAY_API_KEY_TIER0..5). Nothing else is ever listed or deleted.

Options:
  --yes                   delete what is listed (default: a dry run that deletes nothing)
  --keep RUN_ID           leave this run's resources alone (repeatable)
  --older-than DURATION   only runs started, and resources created, at least this long ago (default ${SWEEP_DEFAULTS.olderThan}; e.g. 30m, 0s)
  --base-url URL          the target (GATEWAY_BASE_URL); required: the embedded gateway starts empty
  -h, --help              this text

Exit codes: 0 listed (and with --yes deleted) everything, 2 bad configuration, unreachable target, or a list or
delete that failed.
`

export interface SweepFlags {
  'base-url'?: string
  yes?: boolean
  keep?: string[]
  'older-than'?: string
  help?: boolean
}

export function parseSweepFlags(argv: string[]): SweepFlags {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        yes: { type: 'boolean' },
        keep: { type: 'string', multiple: true },
        'older-than': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run conformance -- sweep --help)`)
  }
}
