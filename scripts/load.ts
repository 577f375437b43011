/**
 * npm run load -- --profile <name> [options]     runs a load profile
 * npm run load -- --list                          lists the profiles
 * npm run load -- merge <dir> <dir> ...           merges the results of shards
 * npm run load -- compare <baseline> <new>        compares two runs (scripts/load-compare.ts)
 *
 * Exit codes: 0 every verdict passed; 1 a verdict failed; 2 harness error or bad configuration; 3 inconclusive
 * (the generator could not hold its schedule, no promise of a 429 could be tested, or the run was stopped early).
 */
import { randomInt } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { LIMITER_ALGORITHMS, type LimiterAlgorithm } from '../gateway/limiter.ts'
import { parseRouteLimit } from '../gateway/route-limits.ts'
import {
  DEFAULT_NATIVE_KEY_HEADER,
  DEFAULTS,
  loadEnv,
  parseShard,
  resolveOptions,
  type RunOptions,
} from '../harness/setup/config.ts'
import { parseDurationMs } from '../harness/duration.ts'
import { ConfigError, isHarnessError } from '../harness/errors.ts'
import { Redactor } from '../harness/redact.ts'
import { pointLatest } from '../harness/report/files.ts'
import { isLoopback, newRunId, prepareTarget, type PreparedTarget } from '../harness/setup/target.ts'
import { mergeResults, readResult } from '../load/merge.ts'
import { parseObjectives } from '../load/objectives.ts'
import { REPEAT, mergeRepeats } from '../load/repeat.ts'
import { columns } from '../load/report/compare.ts'
import { SPREAD_HEAD, spreadRows } from '../load/report/spread.ts'
import { jsonGetter, type PlanContext } from '../load/profiles/profile.ts'
import { checkDistinct, parseLimitFlag } from '../load/stated-limits.ts'
import { defaultWorkers, WORKERS } from '../load/engine/workers.ts'
import { allProfiles, profileNamed } from '../load/profiles/index.ts'
import { runProfile } from '../load/runner.ts'
import type { KeySlotName, LoadResult } from '../load/types.ts'
import { compareCommand } from './load-compare.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string }
const REAL_MINUTE_MS = 60_000

const USAGE = `Usage: npm run load -- --profile NAME [options]
       npm run load -- --list
       npm run load -- merge DIR DIR ... [--report-dir DIR]
       npm run load -- compare BASELINE_DIR NEW_DIR [--threshold PCT] (see compare --help)

Loads GATEWAY_BASE_URL (or the embedded reference gateway) with a profile and judges what the rate limits did.

Options:
  --profile NAME|FILE     the profile to run (--list shows them), or a workload file (.json, .yaml or .yml;
                          schemas/load/profile.schema.json)
  --tier N                the tier whose key a profile without a tier in its name uses (0 to 5)
  --duration D            the length of each load phase, e.g. 90s, 2m (default: per profile, two or three minutes)
  --rate R                calls per second that every load phase offers instead of its multiple of the limit
  --connections C         connections (closed-loop profiles) or the most calls in flight; workers for backoff
  --workers N             threads that share an open-loop phase offering more than ${WORKERS.minRatePerWorker} calls/s per thread, each
                          with its own connections, their figures merged exactly (default: the cores, less one
                          for the embedded gateway)
  --arrival P             how open-loop calls arrive: constant, poisson or gamma:<burstiness> (1 is poisson,
                          below 1 burstier); default: each phase's own, else constant
  --ramp R                ramp each open-loop phase up to its rate: linear:30s or exponential:30s, then steady
  --seed N                the seed of arrivals and of a workload file's bodies (default: drawn at random and
                          written in the report, so that a run can be repeated call for call)
  --report-dir DIR        parent of load/<run-id>/ (default reports)
  --confirm-target HOST   required for a target that is not on this machine: its host name, typed again
  --shard i/n             run slice i of n of the profile's offered load (rates and connections divided)
  --phase a,b             run only these phases of the profile (names as in its report)
  --slo LIST              objectives, each a verdict, e.g. ttft_p99=2s,itl_p99=150ms,e2e_p99=30s,errors=1%
                          (METRIC_pNN, METRIC_mean or METRIC_max of e2e, ttft, itl, tpot, lag; errors=N%,
                          where a 429 is a refusal, not an error); goodput counts the calls within them
  --abort-on-fail         stop the run once an objective is breached beyond recovery (after 50 calls of a phase)
  --repeat K              run the profile K times (1 to ${REPEAT.max}) against one target: each repeat's report in
                          repeat-N/, their merge and each figure's spread across them in the run's own directory
  --limiter NAME          the embedded gateway's rate-limit algorithm: ${LIMITER_ALGORITHMS.join(', ')}
                          (default fixed-window); a target's own algorithm is observed in the report, never judged
  --limit SPEC            a limit the target enforces, as its operator configured it, judged as if announced;
                          repeatable: ROUTE=N/PERIOD[,key=SLOT][,headers=requests], ROUTE a method and path or
                          a route kind, e.g. 'POST /v1/chat/completions=600/1m' (run it: --profile stated-limits)
  --route-limit SPEC      a limit the embedded gateway enforces on one route without announcing it in its
                          catalogue: 'METHOD /path=N/PERIOD' (gateway/README.md, --route-limit); repeatable
  --minute-ms MS          the rate-limit minute of the embedded gateway (default ${DEFAULTS.embeddedMinuteMs}), or of a gateway on
                          this machine started with --minute-ms; a remote target's minute is 60 s
  --base-url URL          host root of the target (GATEWAY_BASE_URL)
  -h, --help              this text

Keys come from GATEWAY_API_KEY and GATEWAY_API_KEY_TIER0..5 (environment or .env).
Exit codes: 0 every verdict passed, 1 a verdict failed, 2 harness error or bad configuration,
            3 inconclusive (the generator could not hold its schedule, or the run was stopped early).
`

interface Flags {
  profile?: string
  tier?: string
  duration?: string
  rate?: string
  connections?: string
  workers?: string
  arrival?: string
  ramp?: string
  seed?: string
  'report-dir'?: string
  'confirm-target'?: string
  shard?: string
  'minute-ms'?: string
  limiter?: string
  limit?: string[]
  'route-limit'?: string[]
  phase?: string
  slo?: string
  'abort-on-fail'?: boolean
  repeat?: string
  'base-url'?: string
  list?: boolean
  help?: boolean
}

export function parseFlags(argv: string[]): { flags: Flags; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        profile: { type: 'string' },
        tier: { type: 'string' },
        duration: { type: 'string' },
        rate: { type: 'string' },
        connections: { type: 'string' },
        workers: { type: 'string' },
        arrival: { type: 'string' },
        ramp: { type: 'string' },
        seed: { type: 'string' },
        'report-dir': { type: 'string' },
        'confirm-target': { type: 'string' },
        shard: { type: 'string' },
        'minute-ms': { type: 'string' },
        limiter: { type: 'string' },
        limit: { type: 'string', multiple: true },
        'route-limit': { type: 'string', multiple: true },
        phase: { type: 'string' },
        slo: { type: 'string' },
        'abort-on-fail': { type: 'boolean' },
        repeat: { type: 'string' },
        'base-url': { type: 'string' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    return { flags: values, positionals }
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run load -- --help)`)
  }
}

function number(raw: string | undefined, flag: string, check: (n: number) => boolean, what: string): number | null {
  if (raw === undefined) return null
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new ConfigError(`${flag} must be ${what} (got "${raw}")`)
  return n
}

function parseDuration(raw: string | undefined): number | null {
  if (raw === undefined) return null
  const ms = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) * 1000 : parseDurationMs(raw)
  if (ms === undefined || ms < 1000 || ms > 3_600_000)
    throw new ConfigError(`--duration must be between 1s and 1h, e.g. 90s or 2m (got "${raw}")`)
  return ms
}

function parseArrival(raw: string | undefined): PlanContext['arrival'] {
  if (raw === undefined) return null
  const v = raw.trim()
  if (v === 'constant' || v === 'poisson') return { process: v }
  const gamma = /^gamma:(\d+(?:\.\d+)?)$/.exec(v)
  const burstiness = Number(gamma?.[1])
  if (gamma && burstiness >= 0.01 && burstiness <= 100) return { process: 'gamma', burstiness }
  throw new ConfigError(
    `--arrival must be constant, poisson or gamma:<burstiness> with a burstiness from 0.01 to 100, e.g. gamma:0.5 (got "${raw}")`,
  )
}

function parseRamp(raw: string | undefined): PlanContext['ramp'] {
  if (raw === undefined) return null
  const match = /^(linear|exponential):(.+)$/.exec(raw.trim())
  const spanMs = match ? parseDurationMs(match[2] as string) : undefined
  if (!match || spanMs === undefined || spanMs < 1000 || spanMs > 3_600_000)
    throw new ConfigError(
      `--ramp must be linear:<span> or exponential:<span> with a span from 1s to 1h, e.g. linear:30s (got "${raw}")`,
    )
  return { shape: match[1] as 'linear' | 'exponential', spanMs }
}

/** A limit the embedded gateway enforces without announcing it, stated to the harness: what --list ends with. */
export const STATED_EXAMPLE =
  "npm run load -- --profile stated-limits --route-limit 'POST /v1/chat/completions=30/10s' --limit 'chat=30/10s,headers=requests'"

function listProfiles(): string {
  const profiles = allProfiles()
  const width = Math.max(...profiles.map((p) => p.name.length))
  return `${profiles.map((p) => `${p.name.padEnd(width)}  ${p.description}`).join('\n')}

Limits the target does not announce are judged as you state them (--limit), e.g. against the embedded gateway
given one its catalogue does not show (--route-limit):
  ${STATED_EXAMPLE}
`
}

async function writeReport(result: LoadResult, reportRoot: string): Promise<string> {
  const { writeLoadReport } = await import('../load/report/write.ts')
  const root = resolve(reportRoot, 'load')
  const dir = resolve(root, result.runId)
  await writeLoadReport(result, dir)
  pointLatest(root, dir)
  return dir
}

/** The repeats in <run-id>/repeat-N/, their merge in <run-id>/ itself, which `latest` points at. */
async function writeRepeats(
  repeats: LoadResult[],
  runId: string,
  reportRoot: string,
): Promise<{ merged: LoadResult; dir: string }> {
  const { writeLoadReport } = await import('../load/report/write.ts')
  const root = resolve(reportRoot, 'load')
  const dir = resolve(root, runId)
  const dirs = repeats.map((_, i) => `repeat-${i + 1}`)
  for (const [i, r] of repeats.entries()) await writeLoadReport(r, resolve(dir, dirs[i] as string))
  const merged = mergeRepeats(repeats, runId, dirs)
  await writeLoadReport(merged, dir)
  pointLatest(root, dir)
  return { merged, dir }
}

function verdictTable(result: LoadResult): string {
  const count = (by: Record<string, number>, test: (status: number) => boolean): number =>
    Object.entries(by)
      .filter(([s]) => test(Number(s)))
      .reduce((n, [, v]) => n + v, 0)
  const figures = [
    [
      'phase',
      'sent',
      'achieved/offered per s',
      '2xx/good per s',
      '2xx',
      '429',
      'other 4xx',
      '5xx',
      'no answer',
      'latency p50/p99 ms',
    ],
    ...result.phases.map((p) => [
      p.plan.name,
      String(p.sent),
      `${p.achievedRate.toFixed(1)}/${p.plan.rate !== null ? p.plan.rate.toFixed(1) : p.plan.client?.pacePerSecond != null ? `at most ${p.plan.client.pacePerSecond.toFixed(1)}` : 'closed loop'}`,
      p.goodput ? `${p.goodput.throughputPerSecond.toFixed(1)}/${p.goodput.goodputPerSecond.toFixed(1)}` : '-',
      String(count(p.byStatus, (s) => s >= 200 && s < 300)),
      String(p.byStatus['429'] ?? 0),
      String(count(p.byStatus, (s) => s >= 400 && s < 500 && s !== 429)),
      String(count(p.byStatus, (s) => s >= 500)),
      String(Object.values(p.errors).reduce((a, b) => a + b, 0)),
      `${p.latency.p50}/${p.latency.p99}`,
    ]),
  ]
  const verdicts = [
    ['phase', 'verdict', 'status', 'figure'],
    ...result.verdicts.map((v) => [v.phase, v.id, v.status.toUpperCase(), v.figure]),
  ]
  return `${columns(figures)}\n\n${columns(verdicts)}`
}

async function merge(positionals: string[], flags: Flags, io: CliIo): Promise<number> {
  const dirs = positionals.slice(1)
  if (dirs.length < 1)
    throw new ConfigError('merge needs the report directories of the shards: npm run load -- merge DIR DIR ...')
  const results = await Promise.all(dirs.map(readResult))
  const merged = mergeResults(results, dirs, newRunId())
  const dir = await writeReport(merged, flags['report-dir'] ?? DEFAULTS.reportDir)
  io.stdout(
    `${verdictTable(merged)}\n\n${merged.outcome.toUpperCase()} (exit ${merged.exitCode}): ${dirs.length} shards merged into ${dir}\n`,
  )
  return merged.exitCode
}

interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  env: NodeJS.ProcessEnv
}

const PROCESS_IO: CliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
}

/** The whole command: exit code out, nothing thrown (a harness error is one line on stderr and exit 2). */
export async function runLoadCli(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  try {
    return await run(argv, io)
  } catch (error) {
    // A bad setting is its one line; any other harness error leads with its code, which says what kind it is.
    if (isHarnessError(error))
      io.stderr(`load: ${error instanceof ConfigError ? error.message : `[${error.code}] ${error.message}`}\n`)
    else io.stderr(`load: harness error: ${(error as Error).stack ?? String(error)}\n`)
    return 2
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'compare') return compareCommand(argv.slice(1), io)
  const { flags, positionals } = parseFlags(argv)
  if (flags.help) {
    io.stdout(USAGE)
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
  const settings = readSettings(flags.profile, flags)
  const embedded = readEmbedded(flags)
  const options = resolveOptions(
    loadEnv(io.env),
    { ...(flags['base-url'] ? { 'base-url': flags['base-url'] } : {}) },
    [],
    [],
  )
  if (options.baseUrl !== null) checkRemote(options.baseUrl, embedded, flags['confirm-target'])
  const runId = newRunId()
  const minuteMs = embedded.minuteMs ?? (options.baseUrl === null ? DEFAULTS.embeddedMinuteMs : REAL_MINUTE_MS)
  const target = await startTarget(options, embedded, minuteMs, runId)
  const keys = target.config.keys as Partial<Record<KeySlotName, string>>
  const redactor = new Redactor(keys)
  const out = outputOf(io, redactor)
  const stop = new AbortController()
  const onSignal = interruptHandler(stop, out.say)
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    const ctx: PlanContext = {
      baseUrl: target.config.baseUrl,
      embedded: target.config.embedded,
      minuteMs,
      ...(embedded.limiter ? { limiter: embedded.limiter } : {}),
      keys,
      models: options.models,
      limits: settings.limits,
      tier: settings.tier,
      durationMs: settings.durationMs,
      rate: settings.rate,
      connections: settings.connections,
      workers: settings.workers ?? defaultWorkers(target.config.embedded),
      arrival: settings.arrival,
      ramp: settings.ramp,
      seed: settings.seed,
      seedGiven: settings.seedGiven,
      timeoutMs: options.timeoutMs,
      runId,
      getJson: jsonGetter(target.config.baseUrl, keys, options.timeoutMs),
    }
    const repeats = await runRepeats(settings, embedded, ctx, runId, stop.signal, out)
    out.clear()
    const reportRoot = flags['report-dir'] ?? DEFAULTS.reportDir
    const { merged: result, dir } =
      settings.repeat === 1
        ? { merged: repeats[0] as LoadResult, dir: await writeReport(repeats[0] as LoadResult, reportRoot) }
        : await writeRepeats(repeats, runId, reportRoot)
    const spread = result.repeats
      ? `\n\nSpread over ${result.repeats.count} repeats (each in ${dir}/repeat-N):\n${columns([SPREAD_HEAD, ...spreadRows(result)])}`
      : ''
    io.stdout(
      `${redactor.text(verdictTable(result))}${spread}\n\n${result.outcome.toUpperCase()} (exit ${result.exitCode})${result.partial ? `, partial: ${result.stopReason ?? 'not every phase ran'}` : ''}. Report: ${dir}\n`,
    )
    return result.exitCode
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await target.close()
  }
}

/** What the flags ask of the profile's run, each checked with a message that says what to fix. */
function readSettings(name: string, flags: Flags) {
  const profile = profileNamed(name)
  if (!profile) throw new ConfigError(`unknown profile "${name}": npm run load -- --list shows the profiles`)
  const tier = number(flags.tier, '--tier', (n) => Number.isInteger(n) && n >= 0 && n <= 5, 'a tier from 0 to 5')
  if (tier !== null && profile.tier !== null && tier !== profile.tier)
    throw new ConfigError(
      `the profile ${profile.name} is for tier ${profile.tier}; drop --tier or run tier-${tier}-${profile.name.split('-').slice(2).join('-')}`,
    )
  const durationMs = parseDuration(flags.duration)
  const rate = number(flags.rate, '--rate', (n) => n > 0 && n <= 100_000, 'calls per second above 0 (at most 100000)')
  const connections = number(
    flags.connections,
    '--connections',
    (n) => Number.isInteger(n) && n >= 1 && n <= 1024,
    'a whole number from 1 to 1024',
  )
  const workersFlag = number(
    flags.workers,
    '--workers',
    (n) => Number.isInteger(n) && n >= 1 && n <= WORKERS.max,
    `a whole number from 1 to ${WORKERS.max}`,
  )
  const shard = flags.shard === undefined ? null : parseShard(flags.shard)
  const objectives = flags.slo === undefined ? [] : parseObjectives(flags.slo)
  if (flags['abort-on-fail'] && objectives.length === 0)
    throw new ConfigError('--abort-on-fail stops a run on a breached objective: give the objectives with --slo')
  const arrival = parseArrival(flags.arrival)
  const ramp = parseRamp(flags.ramp)
  const seedFlag = number(
    flags.seed,
    '--seed',
    (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff,
    'a whole number from 0 to 4294967295',
  )
  const seed = seedFlag ?? randomInt(0, 0xffffffff)
  const repeat =
    number(
      flags.repeat,
      '--repeat',
      (n) => Number.isInteger(n) && n >= 1 && n <= REPEAT.max,
      `a whole number from 1 to ${REPEAT.max}`,
    ) ?? 1
  // A search picks each step from what the last measured, so two searches have different phases to merge.
  if (repeat > 1 && profile.search)
    throw new ConfigError(
      `the profile ${profile.name} is a search: its repeats would not share their steps; run it again and compare the two`,
    )
  const limits = (flags.limit ?? []).map(parseLimitFlag)
  checkDistinct(limits)
  return {
    profile,
    tier,
    durationMs,
    rate,
    connections,
    workers: workersFlag,
    shard,
    objectives,
    abortOnFail: flags['abort-on-fail'] === true,
    arrival,
    ramp,
    seed,
    seedGiven: seedFlag !== null,
    repeat,
    limits,
    phases:
      flags.phase === undefined
        ? null
        : flags.phase
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean),
  }
}

type Settings = ReturnType<typeof readSettings>

/** What configures the embedded gateway: its minute, its limiter and the limits it enforces unannounced. */
function readEmbedded(flags: Flags) {
  const minuteMs = number(
    flags['minute-ms'],
    '--minute-ms',
    (n) => Number.isInteger(n) && n >= 200 && n <= REAL_MINUTE_MS,
    `whole milliseconds from 200 to ${REAL_MINUTE_MS}`,
  )
  const limiter = flags.limiter
  if (limiter !== undefined && !(LIMITER_ALGORITHMS as readonly string[]).includes(limiter))
    throw new ConfigError(`--limiter must be one of ${LIMITER_ALGORITHMS.join(', ')}, got '${limiter}'`)
  const routeLimits = flags['route-limit'] ?? []
  for (const text of routeLimits) {
    try {
      parseRouteLimit(text)
    } catch (error) {
      throw new ConfigError((error as Error).message)
    }
  }
  return { minuteMs, limiter: limiter as LimiterAlgorithm | undefined, routeLimits }
}

type Embedded = ReturnType<typeof readEmbedded>

/** A target of its own: the embedded gateway's settings do not apply, and a remote host is typed again. */
function checkRemote(baseUrl: string, embedded: Embedded, confirmed: string | undefined): void {
  if (embedded.limiter !== undefined)
    throw new ConfigError(
      "--limiter chooses the embedded gateway's algorithm; a target's own is observed in the report, never chosen",
    )
  if (embedded.routeLimits.length > 0)
    throw new ConfigError(
      "--route-limit configures the embedded gateway; a target's own limits are stated with --limit",
    )
  if (embedded.minuteMs !== null && !isLoopback(baseUrl))
    throw new ConfigError(
      "--minute-ms is for the embedded gateway or one on this machine started with --minute-ms; a remote target's minute is 60 s",
    )
  const host = new URL(baseUrl).hostname
  if (!isLoopback(baseUrl) && confirmed !== host)
    throw new ConfigError(`${baseUrl} is not on this machine: a load run against it needs --confirm-target ${host}`)
}

/** The target: the one the options name, or the embedded gateway with the settings given. */
async function startTarget(
  options: RunOptions,
  embedded: Embedded,
  minuteMs: number,
  runId: string,
): Promise<PreparedTarget> {
  if (options.baseUrl !== null) return prepareTarget(options, runId)
  const { startEmbeddedGateway } = await import('../gateway/embedded.ts')
  const gateway = await startEmbeddedGateway({
    minuteMs,
    ...(embedded.limiter ? { limiter: embedded.limiter } : {}),
    ...(embedded.routeLimits.length > 0 ? { routeLimits: embedded.routeLimits } : {}),
  })
  return {
    config: {
      baseUrl: gateway.url,
      embedded: true,
      keys: { ...gateway.keys },
      asOf: options.asOf,
      budgetUsd: null,
      timeoutMs: options.timeoutMs,
      largeUploads: false,
      models: {},
      nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
      runId,
    },
    close: () => gateway.close(),
  }
}

interface Output {
  /** Wipes the progress line on a terminal, so that the next line starts clean. */
  clear: () => void
  /** A line of its own, redacted. */
  say: (line: string) => void
  /** The progress line: rewritten in place on a terminal, else every 5 s. */
  progress: (line: string) => void
}

function outputOf(io: CliIo, redactor: Redactor): Output {
  const say = (line: string): void => {
    io.stderr(`${redactor.text(line)}\n`)
  }
  const interactive = io === PROCESS_IO && process.stderr.isTTY === true
  let lastProgress = 0
  const progress = (line: string): void => {
    if (interactive) io.stderr(`\r\x1b[K${redactor.text(line)}`)
    else if (Date.now() - lastProgress >= 5000) {
      lastProgress = Date.now()
      say(line)
    }
  }
  const clear = (): void => {
    if (interactive) io.stderr('\r\x1b[K')
  }
  return { clear, say, progress }
}

/** Ctrl-C once stops the run with what was measured; twice quits at once. */
function interruptHandler(stop: AbortController, say: (line: string) => void): (signal: NodeJS.Signals) => void {
  let interrupted = 0
  return (signal) => {
    interrupted += 1
    if (interrupted > 1) process.exit(130)
    say(`\n${signal}: stopping; the report will hold what was measured so far (press again to quit at once)`)
    stop.abort(signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : `interrupted (${signal})`)
  }
}

/** The profile run --repeat times; a stopped repeat ends the run, and the repeats so far are reported as partial. */
async function runRepeats(
  settings: Settings,
  embedded: Embedded,
  ctx: PlanContext,
  runId: string,
  signal: AbortSignal,
  out: Output,
): Promise<LoadResult[]> {
  const { profile, repeat, shard, seed } = settings
  const repeats: LoadResult[] = []
  while (repeats.length < repeat && !repeats.some((r) => r.partial) && !signal.aborted) {
    const n = repeats.length + 1
    repeats.push(
      await runProfile({
        profile,
        context: ctx,
        runId: repeat === 1 ? runId : `${runId}-repeat-${n}`,
        shard,
        phases: settings.phases,
        signal,
        toolVersion: PACKAGE.version,
        objectives: settings.objectives,
        abortOnFail: settings.abortOnFail,
        progress: out.progress,
        planned: (plans) =>
          out.say(
            `${profile.name} against ${ctx.baseUrl}${ctx.embedded ? ` (embedded reference gateway, ${ctx.minuteMs} ms minute${embedded.limiter ? `, ${embedded.limiter}` : ''}${embedded.routeLimits.length > 0 ? `, --route-limit ${embedded.routeLimits.join(' ')}` : ''})` : ''}${shard ? `, shard ${shard.index}/${shard.count}` : ''}, seed ${seed}: ${plans.map((p) => p.name).join(', ')}; run ${runId}${repeat > 1 ? `, repeat ${n} of ${repeat}` : ''}`,
          ),
        note: (line) => {
          out.clear()
          out.say(line)
        },
      }),
    )
  }
  return repeats
}

// Run as a script (npm run load), not when a test imports runLoadCli.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  process.exitCode = await runLoadCli(process.argv.slice(2))
}
