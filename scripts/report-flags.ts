/** The report command's flags and help text, apart from report.ts so that `report --help` reads only its defaults. */
import { parseArgs } from 'node:util'
import { ALLURE_HISTORY_ENV, REPORT_DEFAULTS, type ReportFlags } from '../harness/report/allure-report.ts'
import { ConfigError } from '../harness/errors.ts'

export const USAGE = `Usage: gateway-conformance report [options]   (npm run report -- ...)

Renders the Allure report (one HTML file) of a conformance run from its allure-results, with Allure 3.

Options:
  --results DIR         the run's Allure results (default ${REPORT_DEFAULTS.results})
  --output DIR          where index.html goes (default: allure-report beside the results)
  --history FILE        Allure's history, one line per report, for trends (${ALLURE_HISTORY_ENV};
                        default ${REPORT_DEFAULTS.history}); cache it in CI to keep trends
  --history-limit N     reports the history keeps (default ${REPORT_DEFAULTS.historyLimit})
  --name NAME           the report's title (default "${REPORT_DEFAULTS.name}")
  -h, --help            this text

Exit codes: 0 report written, 2 no results, bad options, or Allure failed.
`

export function parseFlags(argv: string[]): { flags: ReportFlags; help: boolean } {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        results: { type: 'string' },
        output: { type: 'string' },
        history: { type: 'string' },
        'history-limit': { type: 'string' },
        name: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    const { help, ...flags } = values
    return { flags, help: help === true }
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run report -- --help)`)
  }
}
