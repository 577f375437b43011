/**
 * The conformance command (and its merge and sweep subcommands): the suites run by vitest against GATEWAY_BASE_URL,
 * or against the embedded reference gateway when none is set, from the words of its command line to an exit code.
 * scripts/conformance.ts and scripts/cli.ts run it from a shell.
 *
 * Exit codes: 0 conformant and complete; 1 a MUST failed; 2 harness error or bad configuration; 3 no MUST failed
 * but some MUST was skipped.
 */
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent } from 'undici'
import { createVitest } from 'vitest/node'
import { allureReporter } from '../report/allure-reporter.ts'
import { CONFORMANCE_PROJECTS } from '../setup/projects.ts'
import { requirements, families } from '../requirements.ts'
import { DEFAULTS, loadEnv, resolveOptions, type FlagValues, type RunOptions } from '../setup/config.ts'
import { readRemainingUsd } from '../setup/credit.ts'
import { ConfigError, isHarnessError } from '../errors.ts'
import { TargetClient } from '../worker/http-client.ts'
import { ConformanceReporter } from '../report/reporter.ts'
import { EXIT } from '../report/results.ts'
import { describeStop, failuresFile, readStop, RUN_STOP_DEFAULTS } from '../setup/run-stop.ts'
import { newRunId, prepareTarget, type PreparedTarget } from '../setup/target.ts'
import { checkBaselineTarget, readBaseline, writeBaseline, type Baseline } from '../report/baseline.ts'
import { levelIds, testNamePattern } from '../setup/selection.ts'
import { attribution, attributionLine, attributionProperties } from '../report/attribution.ts'
import { rerunSelection } from '../setup/rerun-failed.ts'
import { ProgressReporter } from '../report/progress.ts'
import { shownPath } from '../report/files.ts'
import { listRequirements } from '../setup/list-requirements.ts'
import { parseFlags, USAGE } from './conformance-flags.ts'
import { runMerge } from './merge.ts'
import { runSweep } from './sweep.ts'

function formatDuration(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

function loadBaseline(options: RunOptions): { file: string; baseline: Baseline | null; update: boolean } | null {
  if (!options.baseline) return null
  const file = options.baseline
  const baseline = readBaseline(file, (id) => requirements().has(id), options.updateBaseline === true)
  checkBaselineTarget(baseline, file, options.baseUrl ?? 'embedded')
  return { file, baseline, update: options.updateBaseline === true }
}

/** What the run selected, for the Allure environment: "whole" or the flags that narrowed it. */
function describeSelection(options: RunOptions): string {
  const parts = [
    options.families ? `families ${options.families.join(',')}` : '',
    options.grep ? `grep ${options.grep}` : '',
    options.level ? 'MUST only' : '',
    options.shard ? `shard ${options.shard.index}/${options.shard.count}` : '',
    options.filters.length > 0 ? `files ${options.filters.join(',')}` : '',
  ].filter(Boolean)
  return parts.length === 0 ? 'whole run' : `partial: ${parts.join('; ')}`
}

function fileFilters(options: RunOptions): string[] {
  const familyDirs = options.families?.map((family) => `suites/${family}/`) ?? []
  return [...familyDirs, ...options.filters]
}

async function run(argv: string[]): Promise<number> {
  // `sweep` is a subcommand of its own (sweep.ts): what earlier runs left on the target.
  if (argv[0] === 'sweep') return runSweep(argv.slice(1))
  if (argv[0] === 'merge') return runMerge(argv.slice(1))
  const { flags, filters, help, list, rerunFailed } = parseFlags(argv)
  if (help) {
    process.stdout.write(USAGE)
    return 0
  }
  if (rerunFailed !== undefined && !selectFailed(rerunFailed, flags, filters)) return 0
  const options = resolveOptions(loadEnv(process.env), flags, filters, families())
  if (list) {
    process.stdout.write(await listRequirements(ROOT))
    return 0
  }
  // A bad baseline is a bad setting: said before any gateway starts.
  const baseline = loadBaseline(options)
  const runId = newRunId()
  // Written by the first worker that finds the target unhealthy (harness/setup/run-stop.ts); read by all of them.
  const stopFile = join(tmpdir(), `gc-stop-${runId}-${process.pid}.json`)
  const target: PreparedTarget = await prepareTarget(options, runId)
  // The credit reads before and after the run (measured spend), on a connection of their own.
  const creditAgent = new Agent({ connections: 1, allowH2: false })
  try {
    return await judge(options, baseline, target, runId, stopFile, new TargetClient(target.config, creditAgent))
  } finally {
    rmSync(stopFile, { force: true })
    rmSync(failuresFile(stopFile), { force: true })
    await creditAgent.close()
    await target.close()
  }
}

/** --rerun-failed DIR: sets the flags to what failed or erred there; false when nothing did. */
function selectFailed(dir: string, flags: FlagValues, filters: readonly string[]): boolean {
  if (flags.grep !== undefined || flags.family !== undefined || filters.length > 0)
    throw new ConfigError('--rerun-failed chooses the tests itself: drop --grep, --family and file filters')
  const again = rerunSelection(dir, (id) => requirements().get(id))
  if (again.ids.length === 0) {
    process.stdout.write(`Nothing failed or erred in ${shownPath(again.summaryFile)}: nothing to run again\n`)
    return false
  }
  process.stdout.write(
    `Running again what failed or erred in ${shownPath(again.summaryFile)}: ${again.failed.length} requirement${again.failed.length === 1 ? '' : 's'} (${again.failed.join(', ')})\n`,
  )
  flags.grep = testNamePattern(null, again.ids) as string
  flags.family = again.families.join(',')
  return true
}

/** The run against a ready target: its reporters, the suites, the baseline kept; the exit code. */
async function judge(
  options: RunOptions,
  baseline: ReturnType<typeof loadBaseline>,
  target: PreparedTarget,
  runId: string,
  stopFile: string,
  creditClient: TargetClient,
): Promise<number> {
  const maxDurationMs = options.maxDurationMs ?? RUN_STOP_DEFAULTS.maxDurationMs
  const deadlineAt = Date.now() + maxDurationMs
  const reportRoot = resolve(process.cwd(), options.reportDir)
  const runDir = resolve(reportRoot, runId)
  const where = target.config.embedded ? `${target.config.baseUrl} (embedded reference gateway)` : target.config.baseUrl
  process.stdout.write(
    `Gateway conformance ${attributionLine(attribution(ROOT, PACKAGE))}: ${where}, as-of ${options.asOf}, families ${options.families?.join(', ') ?? 'all'}${options.level ? ', MUST only' : ''}${options.shard ? `, shard ${options.shard.index}/${options.shard.count}` : ''}${baseline ? `, baseline ${baseline.file}` : ''}, ${requirements().size} requirements\n`,
  )
  // A run that stopped calling is partial whatever it judged before: the reporter says why, and it exits 2.
  const stopReason = (): string | undefined => {
    const stop = readStop(stopFile)
    if (stop !== undefined) return `the run stopped calling the target: ${describeStop(stop)}`
    return Date.now() >= deadlineAt
      ? `the run's deadline passed (${formatDuration(maxDurationMs)}, GATEWAY_MAX_DURATION or --max-duration): calls after it were not sent`
      : undefined
  }
  const progress = new ProgressReporter({
    root: ROOT,
    requirementsSelected: [...requirements().values()].filter(
      (r) => (options.families?.includes(r.family) ?? true) && (!options.level || r.level === options.level),
    ).length,
    write: (text) => process.stdout.write(text),
  })
  const reporter = new ConformanceReporter({
    progress,
    target: target.config,
    options,
    runDir,
    reportRoot,
    root: ROOT,
    tool: PACKAGE,
    readCredit: () => readRemainingUsd(creditClient),
    stopReason,
    ...(baseline ? { baseline } : {}),
  })
  const allure = allureReporter(resolve(runDir, 'allure-results'), target.config.keys, {
    ...attributionProperties(attribution(ROOT, PACKAGE), options.asOf),
    target: target.config.baseUrl,
    selection: describeSelection(options),
  })
  await runSuites(options, target, [progress, reporter, allure], { deadlineAt, stopFile }, stopReason)
  if (reporter.summary === undefined) {
    process.stderr.write('conformance: no test ran (check the file filters and --family)\n')
    return EXIT.error
  }
  if (baseline?.update && reporter.writtenBaseline) keepBaseline(baseline.file, reporter)
  return reporter.exitCode
}

type Reporters = NonNullable<Parameters<typeof createVitest>[1]['reporters']>

/** vitest over the selected suite files, cancelled once the run stops calling the target. */
async function runSuites(
  options: RunOptions,
  target: PreparedTarget,
  reporters: Reporters,
  stop: { deadlineAt: number; stopFile: string },
  stopReason: () => string | undefined,
): Promise<void> {
  const pattern = testNamePattern(options.grep, levelIds(requirements().values(), options.level))
  const vitest = await createVitest('test', {
    root: ROOT,
    project: CONFORMANCE_PROJECTS,
    watch: false,
    maxWorkers: DEFAULTS.suiteWorkers,
    reporters,
    ...(pattern === null ? {} : { testNamePattern: pattern }),
    // vitest's shard: the files sorted by a hash of their path, the i-th of n equal slices; within a shard the
    // tiers project still runs after the others (a later group).
    ...(options.shard ? { shard: `${options.shard.index}/${options.shard.count}` } : {}),
  })
  vitest.provide('runConfig', { ...target.config, rerunFailures: options.rerun !== false, ...stop })
  try {
    const filters = fileFilters(options)
    const files = (await vitest.globTestSpecifications(filters)).length
    if (files === 0) {
      throw new ConfigError(
        `no suite file matches ${filters.map((f) => `"${f}"`).join(', ')}; suites live in suites/<family>/`,
      )
    }
    if (options.shard && options.shard.count > files) {
      throw new ConfigError(
        `--shard ${options.shard.index}/${options.shard.count}: the selection has only ${files} suite files, so at most ${files} shards`,
      )
    }
    // Once the run stops calling, tests not yet begun are not run at all: some wait a rate-limit window first.
    const watch = setInterval(() => {
      if (stopReason() === undefined) return
      clearInterval(watch)
      // vitest names its own reasons; any string names ours.
      void vitest.cancelCurrentRun('target-stopped' as Parameters<typeof vitest.cancelCurrentRun>[0])
    }, RUN_STOP_DEFAULTS.watchEveryMs)
    try {
      await vitest.start(filters)
    } finally {
      clearInterval(watch)
    }
  } finally {
    await vitest.close()
  }
}

/** --update-baseline: this run's failing MUSTs written, unless harness errors left it judging too little. */
function keepBaseline(file: string, reporter: ConformanceReporter): void {
  if (reporter.summary?.verdict === 'error') {
    process.stdout.write(`Baseline not written: the run had harness errors\n`)
    return
  }
  const written = reporter.writtenBaseline!
  writeBaseline(file, written)
  process.stdout.write(`Baseline written: ${file} (${written.entries.length} entries)\n`)
}

/** The conformance command (and its merge and sweep subcommands): the exit code; errors are one line on stderr. */
export async function conformanceCommand(argv: string[]): Promise<number> {
  try {
    return await run(argv)
  } catch (error) {
    if (isHarnessError(error)) process.stderr.write(`conformance: ${error.message}\n`)
    else process.stderr.write(`conformance: internal error: ${(error as Error).stack ?? String(error)}\n`)
    return EXIT.error
  }
}
