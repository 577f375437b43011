/**
 * npm run conformance [-- flags] [vitest file filters]
 * Runs the conformance suites against GATEWAY_BASE_URL, or against the embedded reference gateway when none is
 * set. Exit codes: 0 conformant and complete; 1 a MUST failed; 2 harness error or bad configuration; 3 no MUST
 * failed but some MUST was skipped.
 */
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Agent } from 'undici'
import { createVitest } from 'vitest/node'
import { allureReporter } from '../harness/report/allure-reporter.ts'
import { CONFORMANCE_PROJECTS } from '../harness/setup/projects.ts'
import { requirements, families } from '../harness/requirements.ts'
import {
  CAPABILITIES,
  DEFAULTS,
  loadEnv,
  resolveOptions,
  type FlagValues,
  type RunOptions,
} from '../harness/setup/config.ts'
import { readRemainingUsd } from '../harness/setup/credit.ts'
import { ConfigError, isHarnessError } from '../harness/errors.ts'
import { TargetClient } from '../harness/worker/http-client.ts'
import { ConformanceReporter } from '../harness/report/reporter.ts'
import { EXIT } from '../harness/report/results.ts'
import { describeStop, failuresFile, readStop, RUN_STOP_DEFAULTS } from '../harness/setup/run-stop.ts'
import { newRunId, prepareTarget, type PreparedTarget } from '../harness/setup/target.ts'
import { checkBaselineTarget, readBaseline, writeBaseline, type Baseline } from '../harness/report/baseline.ts'
import { levelIds, testNamePattern } from '../harness/setup/selection.ts'
import { attribution, attributionLine, attributionProperties } from '../harness/report/attribution.ts'
import { rerunSelection } from '../harness/setup/rerun-failed.ts'
import { ProgressReporter } from '../harness/report/progress.ts'
import { shownPath } from '../harness/report/files.ts'
import { listRequirements } from '../harness/setup/list-requirements.ts'
import { runMerge } from './merge.ts'
import { runSweep } from './sweep.ts'

function formatDuration(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

const USAGE = `Usage: gateway-conformance conformance [options] [file filters]   (npm run conformance -- ...)

Runs the Model Gateway API conformance suites. Without GATEWAY_BASE_URL (or --base-url) the embedded
reference gateway is started on a loopback port and tested.

Options (each overrides the environment variable named):
  --base-url URL          host root of the target, no path            (GATEWAY_BASE_URL)
  --family a,b            run only these families: ${families().join(', ')}
  --models cap=id,...     the target's model per capability, e.g. chat=my-chat,responses=my-chat (GATEWAY_MODELS;
                          default: found by the catalogue's fields): ${CAPABILITIES.join(', ')}
  --names ref=name,...    the target's names for ids the reference neutralised, e.g. vidA-2=my-video,p1-search=web
                          (GATEWAY_NAMES; unnamed ones the target lacks are skipped, naming this variable)
  --grep PATTERN, -t      run only tests whose name matches, e.g. a requirement id prefix such as P1-4.1
  --as-of YYYY-MM-DD      date that date-dependent rules are judged at (GATEWAY_AS_OF; default today, UTC)
  --level must            run only the tests of MUST requirements (SHOULD requirements are disabled)
  --shard i/n             run the i-th of n slices of the suite files; merge the shards' reports with merge
  --baseline FILE         requirements known to fail on this target (JSON); they are reported, not failing the
                          run; a listed requirement that passes is stale and fails the run (exit 1)
  --update-baseline       write FILE from this run: its failing MUSTs, keeping the reasons of listed ones
  --no-rerun              do not run a failed MUST test again at once (by default, a pass then is "flaky")
  --max-duration D        the run's deadline, e.g. 30m or 1h; past it, or after a run of transport failures, the
                          run stops calling: a partial report, exit 2   (GATEWAY_MAX_DURATION; default 30m)
  --report-dir DIR        where reports/<run-id>/ and latest go (default reports)
  --rerun-failed DIR      run again only the requirements that failed or erred in that run's report (a run's
                          folder, or a report folder whose latest is one)
  --config FILE           the config file (default gateway-conformance.yaml here, if any; schemas/config/)
  --list-requirements     print the requirement catalogue and the tests that check each, then exit
  -h, --help              this text

Subcommands:
  merge <dir...>          merge the reports of shards or split runs (npm run conformance -- merge --help)
  sweep                   list, and with --yes delete, what earlier runs left on the target (sweep --help)

Keys come from GATEWAY_API_KEY, GATEWAY_API_KEY_TIER0..5 and GATEWAY_SUSPENDED_API_KEY (environment or .env).
Exit codes: 0 conformant, 1 a MUST requirement failed (beyond the baseline) or a baseline entry is stale,
            2 harness error, bad configuration, or a run stopped by its deadline or an unhealthy target,
            3 no MUST failed but some MUST requirement was skipped (the run is incomplete).
`

interface Parsed {
  flags: FlagValues
  filters: string[]
  help: boolean
  list: boolean
  rerunFailed: string | undefined
}

function parseFlags(argv: string[]): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'base-url': { type: 'string' },
        family: { type: 'string' },
        models: { type: 'string' },
        names: { type: 'string' },
        grep: { type: 'string', short: 't' },
        'as-of': { type: 'string' },
        'report-dir': { type: 'string' },
        level: { type: 'string' },
        shard: { type: 'string' },
        baseline: { type: 'string' },
        'update-baseline': { type: 'boolean' },
        'no-rerun': { type: 'boolean' },
        'max-duration': { type: 'string' },
        'list-requirements': { type: 'boolean' },
        'rerun-failed': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    const { help, 'list-requirements': list, 'rerun-failed': rerunFailed, ...flags } = values
    return { flags, filters: positionals, help: help === true, list: list === true, rerunFailed }
  } catch (error) {
    // node:util words these well ("Unknown option '--x'"); add where to look.
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run conformance -- --help)`)
  }
}

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
  // `sweep` is a subcommand of its own (scripts/sweep.ts): what earlier runs left on the target.
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

// Run as a script (the self-tests start it so), not when the command line (scripts/cli.ts) imports it.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await conformanceCommand(process.argv.slice(2))
}
