/**
 * npm run report [-- --results DIR] [--output DIR] [--history FILE] [--history-limit N] [--name NAME]
 * Renders the HTML report of a conformance run with Allure 3 from its allure-results (by default those of
 * reports/latest), keeping a history file so that trends show across runs. Exit codes: 0 report written;
 * 2 no results, bad flags, or Allure failed.
 */
import { isAbsolute, relative } from 'node:path'
import { parseArgs } from 'node:util'
import {
  renderAllureReport,
  resolveReportOptions,
  ALLURE_HISTORY_ENV,
  REPORT_DEFAULTS,
  type ReportFlags,
} from '../harness/allure-report.ts'
import { loadEnv } from '../harness/config.ts'
import { ConfigError, isHarnessError } from '../harness/errors.ts'

const USAGE = `Usage: npm run report -- [options]

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

function parseFlags(argv: string[]): { flags: ReportFlags; help: boolean } {
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

async function run(argv: string[]): Promise<number> {
  const { flags, help } = parseFlags(argv)
  if (help) {
    process.stdout.write(USAGE)
    return 0
  }
  const options = resolveReportOptions(flags, loadEnv(process.env), process.cwd())
  const outcome = await renderAllureReport(options)
  // Paths under the working folder are shown relative to it, others in full.
  const shown = (path: string): string => {
    const rel = relative(process.cwd(), path)
    return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel
  }
  const reports = `${outcome.historyEntries} report${outcome.historyEntries === 1 ? '' : 's'}`
  process.stdout.write(
    `Allure report: ${shown(outcome.index)} (${outcome.tests} tests; history ${shown(options.history)}, ${reports})\n`,
  )
  return 0
}

try {
  process.exitCode = await run(process.argv.slice(2))
} catch (error) {
  const message = isHarnessError(error) ? error.message : `internal error: ${(error as Error).stack ?? String(error)}`
  process.stderr.write(`report: ${message}\n`)
  process.exitCode = 2
}
