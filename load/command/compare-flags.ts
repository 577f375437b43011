/** The compare subcommand's flags and help text, apart from compare.ts so that `compare --help` loads no figures. */
import { parseArgs } from 'node:util'
import { ConfigError } from '../../harness/errors.ts'
import { COMPARE } from '../compare/thresholds.ts'

const SYNOPSIS =
  'npm run load -- compare BASELINE_DIR NEW_DIR [--threshold PCT] [--threshold FIGURE=N ...] [--report-dir DIR]'
const { thresholdPercent: percent, thresholdPoints: points } = COMPARE

export const COMPARE_USAGE = `Usage: ${SYNOPSIS}

Compares each figure of each phase of two load runs (their reports/load/<run-id> directories). A change is
significant only outside the run-to-run spread (measured when a run used --repeat); a regression is a significant
change in the worse direction past the threshold. Writes compare.md and compare.html to --report-dir, else to NEW_DIR.

  --threshold PCT         regression threshold of rates and latencies, percent of the baseline (default ${percent})
  --threshold FIGURE=N    for one figure or family (latency, ttft, itl, throughput, goodput, schedule-lag-p99, ...);
                          error-share is in percentage points (default ${points})
  -h, --help              this text
Exit codes: 0 no regression, 1 regression, 2 bad input.
`

export function parseCompareArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        threshold: { type: 'string', multiple: true },
        'report-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run load -- compare --help)`)
  }
}
