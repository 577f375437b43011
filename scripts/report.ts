/**
 * npm run report [-- --results DIR] [--output DIR] [--history FILE] [--history-limit N] [--name NAME]
 * Renders the HTML report of a conformance run with Allure 3 from its allure-results (by default those of
 * reports/latest), keeping a history file so that trends show across runs. Exit codes: 0 report written;
 * 2 no results, bad flags, or Allure failed.
 */
import { isAbsolute, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderAllureReport, resolveReportOptions } from '../harness/report/allure-report.ts'
import { loadEnv } from '../harness/setup/config.ts'
import { isHarnessError } from '../harness/errors.ts'
import { parseFlags, USAGE } from './report-flags.ts'

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

/** The report command: the exit code; errors are one line on stderr. */
export async function reportCommand(argv: string[]): Promise<number> {
  try {
    return await run(argv)
  } catch (error) {
    const message = isHarnessError(error) ? error.message : `internal error: ${(error as Error).stack ?? String(error)}`
    process.stderr.write(`report: ${message}\n`)
    return 2
  }
}

// Run as a script (npm run report), not when the command line (scripts/cli.ts) imports it.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await reportCommand(process.argv.slice(2))
}
