/**
 * The load command: a profile's run, --list, merge and compare, from the words of its command line to an exit code.
 * scripts/load.ts and scripts/cli.ts run it from a shell; the self-tests call it in process.
 *
 * Exit codes: 0 every verdict passed; 1 a verdict failed; 2 harness error or bad configuration; 3 inconclusive
 * (the generator could not hold its schedule, no promise of a 429 could be tested, or the run was stopped early).
 */
import { DEFAULTS } from '../../harness/setup/config.ts'
import { ConfigError, isHarnessError } from '../../harness/errors.ts'
import { newRunId } from '../../harness/setup/target.ts'
import { mergeResults, readResult } from '../merge.ts'
import { oneLine } from '../engine/one-line.ts'
import { compareCommand } from './compare.ts'
import { type Flags, helpText, parseFlags } from './flags.ts'
import { listProfiles } from './list.ts'
import { type CliIo, PROCESS_IO } from './output.ts'
import { verdictTable, writeReport } from './reports.ts'
import { runFromFlags } from './run.ts'

/** The whole command: exit code out, nothing thrown (a harness error is one line on stderr and exit 2). */
export async function runLoadCli(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  try {
    return await run(argv, io)
  } catch (error) {
    // A bad setting is its one line; any other harness error leads with its code, which says what kind it is.
    if (isHarnessError(error))
      io.stderr(`load: ${error instanceof ConfigError ? error.message : `[${error.code}] ${error.message}`}\n`)
    else io.stderr(`load: harness error: ${oneLine(error)}\n`)
    return 2
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'compare') return compareCommand(argv.slice(1), io)
  const { flags, positionals } = parseFlags(argv)
  if (flags.help) {
    io.stdout(await helpText())
    return 0
  }
  if (flags.list) {
    io.stdout(listProfiles())
    return 0
  }
  if (positionals[0] === 'merge') return merge(positionals, flags, io)
  if (positionals.length > 0)
    throw new ConfigError(
      `unexpected "${positionals[0]}": did you mean --profile ${positionals[0]}? (see npm run load -- --help)`,
    )
  if (flags.profile === undefined)
    throw new ConfigError('--profile is required: npm run load -- --list shows the profiles')
  return runFromFlags(flags.profile, flags, io)
}

async function merge(positionals: string[], flags: Flags, io: CliIo): Promise<number> {
  const dirs = positionals.slice(1)
  if (dirs.length < 1)
    throw new ConfigError('merge needs the report directories of the shards: npm run load -- merge DIR DIR ...')
  const results = await Promise.all(dirs.map(readResult))
  const merged = mergeResults(results, dirs, newRunId())
  const dir = await writeReport(merged, flags['report-dir'] ?? DEFAULTS.reportDir)
  const end = `${merged.outcome.toUpperCase()} (exit ${merged.exitCode}): ${dirs.length} shards merged into ${dir}`
  io.stdout(`${verdictTable(merged)}\n\n${end}\n`)
  return merged.exitCode
}
