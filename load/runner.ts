/**
 * Runs one profile against a target: plans its phases, starts each from rest (a minute without calls) when it asks
 * for one, drives it with its engine (and the isolation probe beside it), shows progress, and judges the
 * aggregates. A stop (Ctrl-C, a cap) ends the phase under way at once; what was measured by then is reported
 * as partial.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent } from 'undici'
import { parseResetMs } from '../harness/duration.ts'
import { ConfigError } from '../harness/errors.ts'
import { countBy, deriveSeed, plannedOffsets } from './engine/arrivals.ts'
import { runAutocannon } from './engine/autocannon.ts'
import { callOnce } from './engine/call.ts'
import { runClients } from './engine/clients.ts'
import { BUCKET_MS } from './engine/series.ts'
import { nowMs, PhaseRecorder } from './engine/recorder.ts'
import { runScheduled } from './engine/scheduler.ts'
import { StreamStats } from './engine/stream-stats.ts'
import { WorkerPool, workersFor } from './engine/workers.ts'
import { mergePhase } from './merge.ts'
import { breachedBeyondRecovery } from './abort.ts'
import type { PlanContext, Profile } from './profiles/profile.ts'
import { combineLimits, withStatedLimit } from './stated-limits.ts'
import type { CapacityResult, KeySlotName, LoadResult, Objective, PhasePlan, PhaseResult, Verdict } from './types.ts'
import { judge, observeAlgorithm, outcomeOf, sectionOfRoute } from './verdicts.ts'

export interface RunnerOptions {
  profile: Profile
  context: PlanContext
  runId: string
  shard: { index: number; count: number } | null
  /** Only these phases of the plan (null: all); an unknown name is a configuration error. */
  phases?: readonly string[] | null
  signal: AbortSignal
  toolVersion: string
  /** Called once the plan is made (and checked), before the first call. */
  planned?: (plans: readonly PhasePlan[]) => void
  /** Called about once a second with one line of progress. */
  progress?: (line: string) => void
  /** Called with a note worth a line of its own (waiting for the bucket to be full again, cleaning up). */
  note?: (line: string) => void
  /** --slo, parsed: judged on every phase, and what makes a call good. */
  objectives?: readonly Objective[]
  /** --abort-on-fail: an objective breached beyond recovery stops the run. */
  abortOnFail?: boolean
}

/**
 * While a phase runs: an objective breached beyond recovery stops the whole run, or only the phase (a search's step),
 * or nothing.
 */
type BreachStop = 'run' | 'phase' | null

export const RUNNER = {
  progressEveryMs: 1000,
  restMarginMs: 200, // past the minute, for the last call's way to the target and a clock that runs a little slow
  cleanupMaxMs: 120_000, // deleting what the run created never takes longer than this; what is left is listed
}

/** One slice of a plan for shard `index` of `count`: rates, connections and workers divided. */
export function shardPlan(plan: PhasePlan, shard: { index: number; count: number } | null): PhasePlan {
  if (shard === null || shard.count === 1) return plan
  const n = shard.count
  return {
    ...plan,
    // Shards drawing the same instants would pile their calls up: each draws its own, and together they are the
    // process.
    ...(plan.arrival ? { arrival: { ...plan.arrival, seed: deriveSeed(plan.arrival.seed, shard.index) } } : {}),
    rate: plan.rate === null ? null : plan.rate / n,
    connections: Math.max(1, Math.ceil(plan.connections / n)),
    ...(plan.client
      ? {
          client: {
            ...plan.client,
            workers: Math.max(1, Math.ceil(plan.client.workers / n)),
            pacePerSecond: plan.client.pacePerSecond === null ? null : plan.client.pacePerSecond / n,
          },
        }
      : {}),
    ...(plan.probe ? { probe: { ...plan.probe, rate: plan.probe.rate / n } } : {}),
  }
}

/**
 * The arrival of an open-loop phase once --arrival and --ramp are applied: they replace the phase's own process
 * or ramp; a phase that had none and is given none stays constant and carries no arrival (as it always ran).
 */
export function arrivalFor(plan: PhasePlan, index: number, ctx: PlanContext): PhasePlan {
  if (plan.engine === 'clients' || plan.rate === null) return plan
  const { arrival, ramp } = ctx
  if (!arrival && !ramp) return plan
  const own = plan.arrival
  const seed = ctx.seedGiven || own === undefined ? deriveSeed(ctx.seed ?? 0, index) : own.seed
  const process = arrival ?? {
    process: own?.process ?? 'constant',
    ...(own?.burstiness !== undefined ? { burstiness: own.burstiness } : {}),
  }
  const withRamp = ramp ?? own?.ramp
  // autocannon spaces calls evenly per connection: a phase at a fixed rate moves to the scheduler to take an arrival.
  return { ...plan, engine: 'scheduler', arrival: { ...process, ...(withRamp ? { ramp: withRamp } : {}), seed } }
}

function keyOf(ctx: PlanContext, slot: KeySlotName): string {
  const key = ctx.keys[slot]
  if (key === undefined) throw new ConfigError(`no key for ${slot}`)
  return key
}

/**
 * Brings the phase's bucket to rest: a whole minute without calls leaves any allowed limiter full (a fixed window
 * has ended, a sliding window emptied, a token bucket refilled), whatever its headers say; a reset that promised
 * rest too early is then caught by the verdicts, not taken on trust.
 */
async function waitForRest(
  plan: PhasePlan,
  ctx: PlanContext,
  signal: AbortSignal,
  note?: (line: string) => void,
): Promise<void> {
  if (!plan.fromRest || plan.bucket === null) return
  const wait = (plan.periodMs ?? ctx.minuteMs) + RUNNER.restMarginMs
  note?.(
    `${plan.name}: waiting ${(wait / 1000).toFixed(1)} s without calls, so that the ` +
      `${plan.bucket} bucket is full again`,
  )
  await sleep(wait, undefined, { signal }).catch(() => undefined)
}

function progressLine(plan: PhasePlan, recorder: PhaseRecorder, startedAt: number): string {
  const elapsed = (nowMs() - startedAt) / 1000
  const s = recorder.counts()
  const count = (prefix: string): number =>
    Object.entries(s.byStatus)
      .filter(([k]) => k.startsWith(prefix))
      .reduce((n, [, v]) => n + v, 0)
  const pace = plan.client?.pacePerSecond ?? null
  const offered =
    plan.rate !== null ? `${plan.rate.toFixed(2)}/s` : pace !== null ? `at most ${pace.toFixed(2)}/s` : 'closed loop'
  return (
    `${plan.name} ${elapsed.toFixed(1)}s  offered ${offered}  achieved ` +
    `${(recorder.sent / Math.max(0.001, elapsed)).toFixed(2)}/s  2xx ${count('2')}  429 ${s.byStatus['429'] ?? 0}  ` +
    `4xx ${count('4') - (s.byStatus['429'] ?? 0)}  5xx ${count('5')}  errors ${s.errors}`
  )
}

async function runPhase(
  plan: PhasePlan,
  o: RunnerOptions,
  maxRequests: number,
  created: string[],
  onBreach: BreachStop,
  stopRun: (reason: string) => void,
  pool: WorkerPool,
): Promise<PhaseResult> {
  const ctx = o.context
  const objectives = o.objectives ?? []
  const phaseStop = new AbortController()
  o = { ...o, signal: AbortSignal.any([o.signal, phaseStop.signal]) }
  // HTTP/1.1 only (undici 8 would take HTTP/2 from a TLS target): a connection is one client's, as the plan counts.
  const dispatcher = new Agent({ connections: plan.connections, pipelining: 1, allowH2: false })
  const probeDispatcher = plan.probe ? new Agent({ connections: 4, allowH2: false }) : null
  try {
    await waitForRest(plan, ctx, o.signal, o.note)
    const workers = workersFor(plan, ctx.workers ?? 1)
    if (workers > 1) return await runPhaseInWorkers(plan, o, maxRequests, workers, pool)
    // Planned before the clock starts, so the generator does no work per call but send.
    const offsets =
      plan.arrival && plan.rate !== null && plan.engine === 'scheduler'
        ? plannedOffsets(plan.rate, plan.durationMs, plan.arrival, maxRequests)
        : undefined
    const startedAt = nowMs()
    const recorder = new PhaseRecorder(plan, {
      minuteMs: plan.periodMs ?? ctx.minuteMs,
      bucketMs: BUCKET_MS,
      startedAt,
      objectives,
      ...(offsets ? { plannedBy: (ms: number) => countBy(offsets, ms) } : {}),
    })
    const stream = plan.requests.some((r) => r.stream) ? new StreamStats() : undefined
    const base: DriveBase = {
      baseUrl: ctx.baseUrl,
      key: keyOf(ctx, plan.slot),
      timeoutMs: ctx.timeoutMs,
      signal: o.signal,
      recorder,
      requests: plan.requests,
      durationMs: plan.durationMs,
      maxRequests,
    }
    const ticker = setInterval(() => {
      o.progress?.(progressLine(plan, recorder, startedAt))
      if (onBreach === null || phaseStop.signal.aborted) return
      const breach = breachedBeyondRecovery(objectives, plan, recorder, stream, nowMs())
      if (breach === null) return
      // A search's step that broke ends at once: what it measured already says so.
      if (onBreach === 'run') stopRun(breach)
      phaseStop.abort(breach)
    }, RUNNER.progressEveryMs)
    const probe = startProbe(plan, o, probeDispatcher, startedAt, maxRequests)
    let clients: Awaited<ReturnType<typeof runClients>> | undefined
    try {
      clients = await drive(plan, base, dispatcher, stream, created, offsets)
      await probe.done
    } finally {
      clearInterval(ticker)
    }
    return phaseResult(plan, recorder, stream, probe.recorder, clients, nowMs())
  } finally {
    await dispatcher.close()
    await probeDispatcher?.close()
  }
}

/** What every engine of a phase on this thread is given. */
interface DriveBase {
  baseUrl: string
  key: string
  timeoutMs: number
  signal: AbortSignal
  recorder: PhaseRecorder
  requests: PhasePlan['requests']
  durationMs: number
  maxRequests: number
}

/** The phase's calls, by the engine its plan names; the clients engine's figures, if it ran. */
async function drive(
  plan: PhasePlan,
  base: DriveBase,
  dispatcher: Agent,
  stream: StreamStats | undefined,
  created: string[],
  offsets: Float64Array | undefined,
): Promise<Awaited<ReturnType<typeof runClients>> | undefined> {
  if (plan.engine === 'autocannon') {
    await runAutocannon({ ...base, rate: plan.rate, connections: plan.connections })
    return undefined
  }
  if (plan.engine === 'clients') {
    const c = plan.client
    if (!c) throw new Error(`phase ${plan.name}: the clients engine needs a client policy`)
    return runClients({
      ...base,
      dispatcher,
      policy: c.policy,
      workers: c.workers,
      maxAttempts: c.maxAttempts,
      pacePerSecond: c.pacePerSecond,
    })
  }
  if (plan.rate === null) throw new Error(`phase ${plan.name}: the scheduler engine needs a rate`)
  await runScheduled({
    ...base,
    dispatcher,
    rate: plan.rate,
    connections: plan.connections,
    stream,
    created,
    ...(offsets ? { offsets } : {}),
  })
  return undefined
}

/** The probe beside the phase: another key's calls at a slow rate, to see whether buckets are shared. */
function startProbe(
  plan: PhasePlan,
  o: RunnerOptions,
  dispatcher: Agent | null,
  startedAt: number,
  maxRequests: number,
): { done: Promise<void>; recorder: PhaseRecorder | null } {
  const ctx = o.context
  if (!plan.probe || !dispatcher) return { done: Promise.resolve(), recorder: null }
  const recorder = new PhaseRecorder(
    { ...plan, rate: plan.probe.rate, probe: undefined },
    { minuteMs: ctx.minuteMs, bucketMs: BUCKET_MS, startedAt },
  )
  const done = runScheduled({
    baseUrl: ctx.baseUrl,
    key: keyOf(ctx, plan.probe.slot),
    dispatcher,
    timeoutMs: ctx.timeoutMs,
    signal: o.signal,
    recorder,
    requests: plan.probe.requests,
    rate: plan.probe.rate,
    connections: 2,
    durationMs: plan.durationMs,
    maxRequests,
  })
  return { done, recorder }
}

function phaseResult(
  plan: PhasePlan,
  recorder: PhaseRecorder,
  stream: StreamStats | undefined,
  probeRecorder: PhaseRecorder | null,
  clients: Awaited<ReturnType<typeof runClients>> | undefined,
  endedAt: number,
): PhaseResult {
  const result: PhaseResult = {
    plan: resultPlan(plan),
    ...recorder.result(endedAt),
    ...(stream ? { stream: stream.figures() } : {}),
  }
  if (probeRecorder) {
    const p = probeRecorder.result(endedAt)
    result.probe = { sent: p.sent, answered: p.answered, refused: p.byStatus['429'] ?? 0 }
  }
  if (clients) result.clients = clients
  result.algorithm = observeAlgorithm(result)
  return result
}

/** What result.json says of a plan: its routes, not its prepared bodies. */
function resultPlan(plan: PhasePlan): PhaseResult['plan'] {
  const { requests, probe, ...rest } = plan
  return {
    ...rest,
    routes: [...new Set(requests.map((r) => `${r.method} ${r.path}`))],
    ...(probe
      ? { probe: { slot: probe.slot, rate: probe.rate, routes: probe.requests.map((r) => `${r.method} ${r.path}`) } }
      : {}),
  }
}

/**
 * An open-loop phase past what one core sends on time, driven by worker threads (engine/workers.ts) whose
 * results merge exactly. The objectives are judged on the merge at the end: a breach is not watched while the
 * phase runs, so a search's step that broke runs to its end.
 */
async function runPhaseInWorkers(
  plan: PhasePlan,
  o: RunnerOptions,
  maxRequests: number,
  workers: number,
  pool: WorkerPool,
): Promise<PhaseResult> {
  const ctx = o.context
  let startedAt = nowMs()
  const parts = await pool.run(
    {
      baseUrl: ctx.baseUrl,
      key: keyOf(ctx, plan.slot),
      timeoutMs: ctx.timeoutMs,
      minuteMs: plan.periodMs ?? ctx.minuteMs,
      bucketMs: BUCKET_MS,
      maxRequests,
      objectives: o.objectives ?? [],
    },
    plan,
    workers,
    o.signal,
    (c) => {
      const elapsed = (nowMs() - startedAt) / 1000
      const of = (prefix: string): number =>
        Object.entries(c.byStatus)
          .filter(([k]) => k.startsWith(prefix))
          .reduce((n, [, v]) => n + v, 0)
      o.progress?.(
        `${plan.name} ${elapsed.toFixed(1)}s  ${workers} workers  offered ${(plan.rate as number).toFixed(2)}/s  ` +
          `achieved ${(c.sent / Math.max(0.001, elapsed)).toFixed(2)}/s  2xx ${of('2')}  ` +
          `429 ${c.byStatus['429'] ?? 0}  5xx ${of('5')}  errors ${c.errors}`,
      )
    },
    () => {
      startedAt = nowMs()
      return startedAt
    },
  )
  const merged = mergePhase(parts.map(({ slice, part }) => ({ plan: resultPlan(slice), ...part })))
  merged.plan = { ...resultPlan(plan), workers }
  merged.algorithm = observeAlgorithm(merged)
  return merged
}

/** The run has ended: nothing stops a cleanup call but its own deadline (callOnce's timeoutMs). */
const UNSTOPPED = new AbortController().signal

/** Deletes what the run uploaded, sequentially, waiting out 429s; bounded in time. */
async function cleanUp(
  ctx: PlanContext,
  slot: KeySlotName,
  created: string[],
  note?: (line: string) => void,
): Promise<string[]> {
  if (created.length === 0) return []
  note?.(`deleting the ${created.length} files this run uploaded`)
  const deadline = nowMs() + RUNNER.cleanupMaxMs
  const dispatcher = new Agent({ connections: 1, allowH2: false })
  const left = [...created]
  try {
    while (left.length > 0 && nowMs() < deadline) {
      const id = left[0] as string
      const recorder = new PhaseRecorder(
        {
          name: 'cleanup',
          description: '',
          engine: 'scheduler',
          slot,
          requests: [],
          rate: null,
          connections: 1,
          durationMs: 0,
          bucket: 'requests',
          expectedLimit: null,
          fromRest: false,
          verdicts: [],
        },
        { minuteMs: ctx.minuteMs, bucketMs: BUCKET_MS, startedAt: nowMs() },
      )
      const outcome = await callOnce(
        {
          baseUrl: ctx.baseUrl,
          key: keyOf(ctx, slot),
          dispatcher,
          timeoutMs: ctx.timeoutMs,
          signal: UNSTOPPED,
          recorder,
        },
        { method: 'DELETE', path: `/v1/files/${encodeURIComponent(id)}` },
      )
      if (outcome.status === 429) {
        const wait = Math.max(
          parseResetMs(outcome.headers['x-ratelimit-reset-requests']) ?? 0,
          Number(outcome.headers['retry-after'] ?? 1) * 1000,
        )
        await sleep(Math.min(wait + 50, Math.max(0, deadline - nowMs())))
        continue
      }
      left.shift()
    }
  } finally {
    await dispatcher.close()
  }
  return left
}

/** The profile's plan, narrowed to --phase and sliced for --shard, within its cap of time. */
async function planPhases(o: RunnerOptions, ctx: PlanContext): Promise<PhasePlan[]> {
  const all = await o.profile.plan(ctx)
  const unknown = (o.phases ?? []).filter((name) => !all.some((p) => p.name === name))
  if (unknown.length > 0)
    throw new ConfigError(
      `the profile ${o.profile.name} has no phase ${unknown.join(', ')}; its phases: ` +
        `${all.map((p) => p.name).join(', ')}`,
    )
  const plans = all
    .map((p) => withStatedLimit(p, ctx.limits ?? []))
    .map((p, i) => arrivalFor(p, i, ctx))
    .filter((p) => !o.phases || o.phases.includes(p.name))
    .map((p) => shardPlan(p, o.shard))
  const planned = plans
    .filter((p) => p.skip === undefined)
    .reduce((ms, p) => ms + p.durationMs + (p.fromRest ? (p.periodMs ?? ctx.minuteMs) : 0), 0)
  if (planned > o.profile.caps.maxDurationMs) {
    throw new ConfigError(
      `the profile ${o.profile.name} would run ${(planned / 1000).toFixed(0)} s, past its cap of ` +
        `${(o.profile.caps.maxDurationMs / 1000).toFixed(0)} s; give a shorter --duration`,
    )
  }
  return plans
}

/**
 * The phases one after another, each planned once the one before has ended (a search's next step reads it),
 * until none is left, the run is stopped or its cap of calls is reached. Threads started by the first phase that
 * needs them serve every phase after it, warm.
 */
async function runPhases(
  first: PhasePlan | null,
  next: (done: PhaseResult[]) => PhasePlan | null,
  run: { o: RunnerOptions; created: string[]; onBreach: BreachStop; stopRun: (reason: string) => void },
): Promise<{ phases: PhaseResult[]; capReached: boolean }> {
  const phases: PhaseResult[] = []
  let sent = 0
  const pool = new WorkerPool()
  try {
    for (let plan = first; plan !== null && !run.o.signal.aborted; plan = next(phases)) {
      const left = run.o.profile.caps.maxRequests - sent
      if (left <= 0) return { phases, capReached: true }
      const result = await runPhase(plan, run.o, left, run.created, run.onBreach, run.stopRun, pool)
      sent += result.sent
      phases.push(result)
    }
    return { phases, capReached: false }
  } finally {
    await pool.close()
  }
}

/** A search adapts each step to what it measured: it is not sharded, stopped on a breach, or chosen by phase. */
function refuseForSearch(o: RunnerOptions): void {
  const name = o.profile.name
  if (o.shard !== null && o.shard.count > 1)
    throw new ConfigError(
      `the profile ${name} is a search that adapts each step to what it measured: it cannot be sharded`,
    )
  if (o.abortOnFail)
    throw new ConfigError(
      `the profile ${name} is a search: it ends each step that broke by itself, and a broken step is how it finds ` +
        `the rate; drop --abort-on-fail`,
    )
  if (o.phases) throw new ConfigError(`the profile ${name} is a search: its steps are not chosen with --phase`)
}

/** Why a run ended before its plan did, or null when it ran whole. */
function whyStopped(
  o: RunnerOptions,
  capReached: boolean,
  objective: AbortSignal,
  deadline: AbortSignal,
): string | null {
  if (o.signal.aborted) return `stopped: ${String(o.signal.reason ?? 'interrupted')}`
  if (objective.aborted) return `stopped early by --abort-on-fail: ${String(objective.reason)}`
  if (deadline.aborted) return `the profile's cap of ${(o.profile.caps.maxDurationMs / 1000).toFixed(0)} s was reached`
  return capReached ? `the profile's cap of ${o.profile.caps.maxRequests} calls was reached` : null
}

/** A phase the plan skipped: each of its verdicts a skip, saying why. */
function skipVerdicts(p: PhasePlan): Verdict[] {
  return p.verdicts.map((id) => ({
    id,
    phase: p.name,
    status: 'skip',
    figure: '-',
    detail: p.skip as string,
    section: sectionOfRoute(p.requests[0]?.path ?? ''),
  }))
}

function profileOf(o: RunnerOptions, ctx: PlanContext, plans: readonly PhasePlan[]): LoadResult['profile'] {
  return {
    name: o.profile.name,
    description: o.profile.description,
    tier: o.profile.tier ?? ctx.tier,
    durationMs: ctx.durationMs ?? plans.reduce((ms, p) => ms + p.durationMs, 0),
    rate: ctx.rate,
    connections: ctx.connections,
    ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}),
  }
}

export async function runProfile(o: RunnerOptions): Promise<LoadResult> {
  const started = new Date()
  const objectives = o.objectives ?? []
  const ctx: PlanContext = {
    ...o.context,
    phases: o.phases ?? null,
    objectives,
    limits: combineLimits(o.context.limits ?? [], o.profile.limits),
  }
  if (o.profile.search) refuseForSearch(o)
  const search = o.profile.search ? await o.profile.search(ctx) : null
  const plans = search ? [search.first] : await planPhases(o, ctx)
  const judgedBy = search ? search.objectives : objectives
  o.planned?.(plans)
  const deadline = AbortSignal.timeout(o.profile.caps.maxDurationMs + RUNNER.cleanupMaxMs)
  const objectiveStop = new AbortController()
  const signal = AbortSignal.any([o.signal, deadline, objectiveStop.signal])
  const stopRun = (reason: string): void => objectiveStop.abort(reason)
  // A search judges each step by the objectives, and a step that broke beyond recovery ends at once.
  const onBreach: BreachStop = search ? 'phase' : o.abortOnFail ? 'run' : null
  const created: string[] = []
  const skipped = plans.filter((p) => p.skip !== undefined)
  const queue = plans.filter((p) => p.skip === undefined)
  const next = (done: PhaseResult[]): PhasePlan | null => (search ? search.next(done) : (queue.shift() ?? null))
  const run = { o: { ...o, signal, objectives: judgedBy }, created, onBreach, stopRun }
  const { phases, capReached } = await runPhases(queue.shift() ?? null, next, run)
  const stopReason = whyStopped(o, capReached, objectiveStop.signal, deadline)
  const slot = plans[0]?.slot ?? 'main'
  const leftBehind = await cleanUp(ctx, slot, created, o.note)
  if (leftBehind.length > 0)
    o.note?.(
      `${leftBehind.length} uploaded files could not be deleted in time: ` +
        `${leftBehind.slice(0, 5).join(', ')}${leftBehind.length > 5 ? ', ...' : ''}`,
    )
  const concluded: { capacity: CapacityResult; verdicts: Verdict[] } | null = search
    ? search.conclude(phases, stopReason)
    : null
  const verdicts = [
    ...judge(phases, ctx.minuteMs, o.shard?.count ?? 1, search ? [] : objectives),
    ...(concluded?.verdicts ?? []),
    ...skipped.flatMap(skipVerdicts),
  ]
  const partial = stopReason !== null || (search === null && phases.length < plans.length - skipped.length)
  const { outcome, exitCode } =
    partial && !verdicts.some((v) => v.status === 'fail')
      ? { outcome: 'inconclusive' as const, exitCode: 3 as const }
      : outcomeOf(verdicts)
  return {
    schemaVersion: 1,
    runId: o.runId,
    tool: { name: 'gateway-conformance', version: o.toolVersion },
    startedAt: started.toISOString(),
    endedAt: new Date().toISOString(),
    partial,
    stopReason,
    target: {
      baseUrl: ctx.baseUrl,
      embedded: ctx.embedded,
      minuteMs: ctx.minuteMs,
      ...(ctx.limiter ? { limiter: ctx.limiter } : {}),
    },
    profile: profileOf(o, ctx, plans),
    shard: o.shard,
    mergedFrom: [],
    bucketMs: BUCKET_MS,
    phases,
    ...(judgedBy.length > 0 ? { objectives: [...judgedBy] } : {}),
    ...(o.abortOnFail ? { abortOnFail: true } : {}),
    ...(concluded ? { capacity: concluded.capacity } : {}),
    verdicts,
    outcome,
    exitCode,
  }
}
