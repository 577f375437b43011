/**
 * npm run conformance -- merge <dir...> [--report-dir DIR]
 * Merges the reports of shards (--shard i/n) or of runs split by family into reports/<run-id>/ and points
 * reports/latest at it; exits with the merged verdict's code (0, 1, 2, 3), or 2 for reports that cannot be merged.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULTS } from '../setup/config.ts'
import { ConfigError } from '../errors.ts'
import { describeInputs, mergeRuns } from '../report/merge.ts'
import { endOfRun } from '../report/console.ts'
import { pointLatest, shownPath } from '../report/files.ts'
import { newRunId } from '../setup/target.ts'

const MERGE_USAGE = `Usage: gateway-conformance merge <dir> [<dir>...] [--report-dir DIR]   (npm run conformance -- merge ...)

Merges the reports of the shards of one run (--shard i/n), or of runs split by family, into one:
summary.json, summary.md, coverage.md, junit.xml, allure-results/ (and exchanges.har) in DIR/<run-id>/,
and points DIR/latest at it (DIR: reports). Each <dir> is a run's report folder, e.g. reports/<run-id>.

  --report-dir DIR   where the merge goes (default reports)
  -h, --help         this text

Refused (exit 2): runs against different targets or as-of dates, a missing or repeated shard.
Exit codes: those of the merged verdict (0 conformant, 1 a MUST failed or the baseline is stale,
            2 harness error, 3 incomplete).
`

export function runMerge(argv: string[]): number {
  let values: { 'report-dir'?: string; help?: boolean }
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { 'report-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }))
  } catch (error) {
    throw new ConfigError(`merge: ${(error as Error).message.split('\n')[0]} (see npm run conformance -- merge --help)`)
  }
  if (values.help === true) {
    process.stdout.write(MERGE_USAGE)
    return 0
  }
  const reportRoot = resolve(process.cwd(), values['report-dir'] ?? DEFAULTS.reportDir)
  const runId = newRunId()
  const runDir = resolve(reportRoot, runId)
  const { summary, allureFiles } = mergeRuns(positionals, runDir, runId)
  pointLatest(reportRoot, runDir)
  const out = [
    `Merged ${summary.mergedFrom?.length ?? 0} runs (target ${summary.target.baseUrl}, as-of ${summary.asOf}):`,
    describeInputs(summary),
    '',
    endOfRun(summary),
  ]
  out.push(
    `Reports: ${shownPath(runDir)}/ (summary.md, summary.json, coverage.md, junit.xml, allure-results/ with ${allureFiles} files)`,
  )
  process.stdout.write(`${out.join('\n')}\n`)
  return summary.exitCode
}
