/** The merge subcommand's flags and its help text, apart from merge.ts so that `merge --help` loads no report code. */
import { parseArgs } from 'node:util'
import { ConfigError } from '../errors.ts'

export const MERGE_USAGE = `Usage: gateway-conformance merge <dir> [<dir>...] [--report-dir DIR]   (npm run conformance -- merge ...)

Merges the reports of the shards of one run (--shard i/n), or of runs split by family, into one:
summary.json, summary.md, coverage.md, junit.xml, allure-results/ (and exchanges.har) in DIR/<run-id>/,
and points DIR/latest at it (DIR: reports). Each <dir> is a run's report folder, e.g. reports/<run-id>.

  --report-dir DIR   where the merge goes (default reports)
  -h, --help         this text

Refused (exit 2): runs against different targets or as-of dates, a missing or repeated shard.
Exit codes: those of the merged verdict (0 conformant, 1 a MUST failed or the baseline is stale,
            2 harness error, 3 incomplete).
`

export function parseMergeFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { 'report-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    })
  } catch (error) {
    throw new ConfigError(`merge: ${(error as Error).message.split('\n')[0]} (see npm run conformance -- merge --help)`)
  }
}
