/**
 * npm run conformance -- merge <dir...> [--report-dir DIR]
 * Merges the reports of shards (--shard i/n) or of runs split by family into reports/<run-id>/ and points
 * reports/latest at it; exits with the merged verdict's code (0, 1, 2, 3), or 2 for reports that cannot be merged.
 */
import { resolve } from 'node:path'
import { DEFAULTS } from '../setup/config.ts'
import { describeInputs, mergeRuns } from '../report/merge.ts'
import { endOfRun } from '../report/console.ts'
import { pointLatest, shownPath } from '../report/files.ts'
import { newRunId } from '../setup/target.ts'
import { MERGE_USAGE, parseMergeFlags } from './merge-flags.ts'

export function runMerge(argv: string[]): number {
  const { values, positionals } = parseMergeFlags(argv)
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
