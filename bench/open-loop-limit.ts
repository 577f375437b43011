/**
 * The open-loop generator's limit: the highest rate at which the scheduler engine (load/engine/scheduler.ts, with
 * its recorder, as a load phase runs it) keeps its schedule, beside the most that bare autocannon and `wrk` (C, one
 * thread: the practical limit of one core) achieve on the same route, in alternating rounds.
 *
 * Schedule error: the share of the planned calls that left more than LATE_MS after their planned instant, or
 * never left (a generator behind its plan at the phase's end drops them). The highest rate with at most 1 % is
 * found by doubling from START_RATE (or halving, if it misses), then halving the gap between the last rate that
 * held and the first that did not; a rate holds when one of two tries does. autocannon and wrk run closed loop,
 * as fast as their connections allow: an open-loop generator can hold no rate past its own closed-loop
 * throughput, so our rate over theirs is the share of their throughput that we reach on time (wrk2's -R would be
 * the open-loop yardstick; Debian ships wrk).
 *
 * The target is bench/raw-target.ts in a child process, not the gateway: it must outpace the generators.
 * Its CPU is in the note: near one core, the closed-loop figures are its limit, and the ratios are upper bounds.
 */
import { spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { Agent } from 'undici'
import { decode } from '../load/engine/histogram.ts'
import { nowMs, PhaseRecorder } from '../load/engine/recorder.ts'
import { runScheduled } from '../load/engine/scheduler.ts'
import { BUCKET_MS } from '../load/engine/series.ts'
import { WorkerPool } from '../load/engine/workers.ts'
import type { HistogramSummary, PhasePlan } from '../load/types.ts'
import { procCpuMs, spawnNodeScript, stopChild, waitForExit } from './children.ts'
import { median, type Row } from './table.ts'
import { findWrk, HOW_TO_INSTALL_WRK } from './wrk.ts'

/** Spawned by its path beside this file, so that moving the bench moves its target with it. */
const RAW_TARGET = new URL('./raw-target.ts', import.meta.url)

export interface OpenLoopLimitOptions {
  rounds: number
  /** Each probe of a rate, and each closed-loop round, lasts this long. */
  probeMs: number
  /** Halvings of the gap between the last rate held and the first missed. */
  refinements: number
}

export const OPEN_LOOP_LIMIT = {
  goal: 0.8, // one worker's on-time rate against bare autocannon's closed-loop throughput on the same target
  lateMs: 10, // a tenth of a 100 ms series slice, ten times setTimeout's granularity
  maxErrorShare: 0.01,
  startRate: 500,
  minRate: 16,
  maxRate: 256_000,
  connections: 32, // as the saturation profile; enough in flight for any of these rates at loopback latency
  path: '/v1/models',
  timeoutMs: 10_000,
}

interface Probe {
  rate: number
  planned: number
  late: number
  unsent: number
  errorShare: number
  failedCalls: number
}

/** The share of a lag histogram's sends later than LATE_MS: the first percentile whose value passes it, searched. */
function lateCount(lag: HistogramSummary | undefined): number {
  if (lag === undefined || lag.count === 0) return 0
  const h = decode(lag)
  const limitUs = OPEN_LOOP_LIMIT.lateMs * 1000
  if (h.maxValue <= limitUs) return 0
  let lo = 0
  let hi = 100
  for (let i = 0; i < 30; i += 1) {
    const mid = (lo + hi) / 2
    if (h.getValueAtPercentile(mid) <= limitUs) lo = mid
    else hi = mid
  }
  return Math.round(lag.count * (1 - lo / 100))
}

/**
 * The same probe driven by `workers` threads of a pool kept across probes, as a run keeps its pool across phases
 * (load/engine/workers.ts), lateness read off each thread's lag.
 */
async function probeWorkers(
  url: string,
  plan: PhasePlan,
  ms: number,
  workers: number,
  pool: WorkerPool,
): Promise<Probe> {
  const parts = await pool.run(
    {
      baseUrl: url,
      key: 'bench',
      timeoutMs: OPEN_LOOP_LIMIT.timeoutMs,
      minuteMs: 60_000,
      bucketMs: BUCKET_MS,
      maxRequests: Number.MAX_SAFE_INTEGER,
      objectives: [],
    },
    plan,
    workers,
    AbortSignal.timeout(ms + 30_000),
    () => undefined,
    nowMs,
  )
  const rate = plan.rate as number
  const planned = Math.ceil((ms / 1000) * rate)
  const sent = parts.reduce((n, p) => n + p.part.sent, 0)
  const late = parts.reduce((n, p) => n + lateCount(p.part.schedule?.lag), 0)
  const unsent = Math.max(0, planned - sent)
  const failedCalls = parts.reduce(
    (n, p) =>
      n +
      Object.values(p.part.errors).reduce((a, b) => a + b, 0) +
      Object.entries(p.part.byStatus)
        .filter(([st]) => st !== '200')
        .reduce((a, [, v]) => a + v, 0),
    0,
  )
  return { rate, planned, late, unsent, errorShare: (late + unsent) / planned, failedCalls }
}

async function probe(url: string, rate: number, ms: number, pool: WorkerPool, workers = 1): Promise<Probe> {
  const plan: PhasePlan = {
    name: 'probe',
    description: '',
    engine: 'scheduler',
    slot: 'main',
    requests: [{ method: 'GET', path: OPEN_LOOP_LIMIT.path }],
    rate,
    connections: OPEN_LOOP_LIMIT.connections,
    durationMs: ms,
    bucket: null,
    expectedLimit: null,
    fromRest: false,
    verdicts: [],
  }
  if (workers > 1) return probeWorkers(url, { ...plan, connections: plan.connections * workers }, ms, workers, pool)
  const dispatcher = new Agent({ connections: OPEN_LOOP_LIMIT.connections, pipelining: 1 })
  try {
    const recorder = new PhaseRecorder(plan, { minuteMs: 60_000, bucketMs: BUCKET_MS, startedAt: nowMs() })
    await runScheduled({
      baseUrl: url,
      key: 'bench',
      dispatcher,
      timeoutMs: OPEN_LOOP_LIMIT.timeoutMs,
      signal: AbortSignal.timeout(ms + OPEN_LOOP_LIMIT.timeoutMs),
      recorder,
      requests: plan.requests,
      rate,
      connections: plan.connections,
      durationMs: ms,
      maxRequests: Number.MAX_SAFE_INTEGER,
    })
    // The scheduler plans calls at start + i / rate for every instant before the end.
    const planned = Math.ceil((ms / 1000) * rate)
    const unsent = Math.max(0, planned - recorder.sent)
    const late = lateCount(recorder.schedule(nowMs())?.lag)
    const counts = recorder.counts()
    const failedCalls =
      counts.errors +
      Object.entries(counts.byStatus)
        .filter(([s]) => s !== '200')
        .reduce((n, [, v]) => n + v, 0)
    return { rate, planned, late, unsent, errorShare: (late + unsent) / planned, failedCalls }
  } finally {
    await dispatcher.close()
  }
}

/**
 * The machine's own floor: the same plan of instants slept to as the scheduler does, with no call made. When
 * these wake late too, the host (other processes on shared cores), not the generator, misses the schedule.
 */
async function timersLate(rate: number, ms: number): Promise<number> {
  const start = nowMs()
  const planned = Math.ceil((ms / 1000) * rate)
  let late = 0
  for (let i = 0; i < planned; i += 1) {
    const at = start + (i * 1000) / rate
    const wait = at - nowMs()
    if (wait > 1) await sleep(wait)
    if (nowMs() - at > OPEN_LOOP_LIMIT.lateMs) late += 1
  }
  return late / planned
}

const holds = (p: Probe): boolean => p.errorShare <= OPEN_LOOP_LIMIT.maxErrorShare && p.failedCalls === 0

/** The highest rate that held its schedule (0: not even MIN_RATE did), and the probes that found it. */
async function highestRate(
  url: string,
  o: OpenLoopLimitOptions,
  pool: WorkerPool,
  workers = 1,
): Promise<{ rate: number; probes: Probe[] }> {
  const probes: Probe[] = []
  // A generator at its limit misses every try; a stall from elsewhere on a shared machine misses one: two tries.
  const tryRate = async (rate: number): Promise<boolean> => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const p = await probe(url, rate, o.probeMs, pool, workers)
      probes.push(p)
      if (holds(p)) return true
    }
    return false
  }
  let held = 0
  let missed = 0
  // Up by doubling while the schedule holds, or down by halving until it does; then between the two.
  if (await tryRate(OPEN_LOOP_LIMIT.startRate)) {
    held = OPEN_LOOP_LIMIT.startRate
    for (let rate = held * 2; rate <= OPEN_LOOP_LIMIT.maxRate; rate *= 2) {
      if (!(await tryRate(rate))) {
        missed = rate
        break
      }
      held = rate
    }
  } else {
    missed = OPEN_LOOP_LIMIT.startRate
    for (let rate = missed / 2; rate >= OPEN_LOOP_LIMIT.minRate; rate /= 2) {
      if (await tryRate(rate)) {
        held = rate
        break
      }
      missed = rate
    }
  }
  for (let i = 0; i < o.refinements && held > 0 && missed > 0; i += 1) {
    const rate = Math.round((held + missed) / 2)
    if (await tryRate(rate)) held = rate
    else missed = rate
  }
  return { rate: held, probes }
}

async function autocannonMax(url: string, ms: number): Promise<number> {
  const result = await autocannon({
    url: `${url}${OPEN_LOOP_LIMIT.path}`,
    connections: OPEN_LOOP_LIMIT.connections,
    duration: Math.max(1, Math.round(ms / 1000)),
    timeout: OPEN_LOOP_LIMIT.timeoutMs / 1000,
  })
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`bare autocannon saw ${result.non2xx} non-2xx answers and ${result.errors} errors`)
  return result.requests.total / (result.duration || ms / 1000)
}

/** wrk's Requests/sec, or null when wrk is not installed. */
async function wrkMax(url: string, ms: number): Promise<number | null> {
  const wrk = findWrk()
  if (wrk === null) return null
  const seconds = Math.max(1, Math.round(ms / 1000))
  const child = spawn(
    wrk,
    ['-t1', `-c${OPEN_LOOP_LIMIT.connections}`, `-d${seconds}s`, `${url}${OPEN_LOOP_LIMIT.path}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
  child.stderr.resume()
  const exit = await waitForExit(child, seconds * 1000 + 15_000)
  if (exit === null) {
    await stopChild(child)
    throw new Error('wrk did not end in time')
  }
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]
  if (exit.code !== 0 || rate === undefined)
    throw new Error(`wrk ended with ${exit.code ?? exit.signal}: ${out.trim().split('\n').slice(-2).join(' / ')}`)
  if (/Non-2xx|Socket errors/.test(out))
    throw new Error(
      `wrk saw failed calls: ${out
        .trim()
        .split('\n')
        .filter((l) => /Non-2xx|Socket errors/.test(l))
        .join(' / ')}`,
    )
  return Number(rate)
}

async function startRawTarget(): Promise<{ url: string; pid: number; close: () => Promise<void> }> {
  const child = spawnNodeScript(fileURLToPath(RAW_TARGET), [])
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error('the raw target printed no URL within 30 s')), 30_000)
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      if (url !== undefined) {
        clearTimeout(timer)
        resolve(url)
      }
    })
    child.once('exit', (code) => reject(new Error(`the raw target exited (${code}) before listening`)))
  })
  child.stdout?.resume()
  child.stderr?.resume()
  return { url, pid: child.pid as number, close: () => stopChild(child) }
}

/** CPU of the target over a side's rounds, as a share of one core: near 100 % it, not the generator, was the limit. */
async function withTargetCpu<T>(pid: number, run: () => Promise<T>): Promise<{ value: T; targetBusy: number }> {
  const cpu0 = procCpuMs(pid)
  const t0 = nowMs()
  const value = await run()
  return { value, targetBusy: (procCpuMs(pid) - cpu0) / (nowMs() - t0) }
}

/** What the alternating rounds measured, per round. */
interface Rounds {
  ours: number[]
  two: number[]
  /** Sends a second when the plan outruns the engine (every connection busy), 1 and 2 workers. */
  capped: { one: number[]; two: number[] }
  bare: number[]
  wrk: (number | null)[]
  busy: { wrk: number[]; bare: number[] }
  probes: Probe[][]
  floor: number[]
}

async function measureRounds(
  target: { url: string; pid: number },
  o: OpenLoopLimitOptions,
  pool: WorkerPool,
): Promise<Rounds> {
  const m: Rounds = {
    ours: [],
    two: [],
    capped: { one: [], two: [] },
    bare: [],
    wrk: [],
    busy: { wrk: [], bare: [] },
    probes: [],
    floor: [],
  }
  const sides = [
    async () => {
      const r = await highestRate(target.url, o, pool)
      m.ours.push(r.rate)
      m.probes.push(r.probes)
      m.floor.push(await timersLate(OPEN_LOOP_LIMIT.startRate, o.probeMs))
    },
    async () => {
      m.two.push((await highestRate(target.url, o, pool, 2)).rate)
      for (const [workers, into] of [
        [1, m.capped.one],
        [2, m.capped.two],
      ] as const) {
        const p = await probe(target.url, OPEN_LOOP_LIMIT.maxRate, o.probeMs, pool, workers)
        into.push(((p.planned - p.unsent) * 1000) / o.probeMs)
      }
    },
    async () => {
      const r = await withTargetCpu(target.pid, () => autocannonMax(target.url, o.probeMs))
      m.bare.push(r.value)
      m.busy.bare.push(r.targetBusy)
    },
    async () => {
      const r = await withTargetCpu(target.pid, () => wrkMax(target.url, o.probeMs))
      m.wrk.push(r.value)
      if (r.value !== null) m.busy.wrk.push(r.targetBusy)
    },
  ]
  for (let round = 0; round < o.rounds; round += 1) {
    // The order turns each round, so that none of the sides always follows another into a warm target.
    for (let i = 0; i < sides.length; i += 1) await (sides[(i + round) % sides.length] as () => Promise<void>)()
  }
  return m
}

export async function openLoopLimit(o: OpenLoopLimitOptions): Promise<Row[]> {
  const target = await startRawTarget()
  // The 2-worker probes share one pool, as a run's phases do: threads started once, warm for every probe.
  const pool = new WorkerPool()
  try {
    // Not counted: JIT and connection setup in the generator, its threads and the target would read as a
    // schedule missed. At the cap, so that the hot paths run often enough to be compiled before the rounds.
    await probe(target.url, OPEN_LOOP_LIMIT.maxRate, o.probeMs, pool)
    await probe(target.url, OPEN_LOOP_LIMIT.maxRate, o.probeMs, pool, 2)
    await autocannonMax(target.url, 1000)
    return limitRows(await measureRounds(target, o, pool), o)
  } finally {
    await pool.close()
    await target.close()
  }
}

const perRound = (xs: readonly (number | null)[]): string => xs.map((r) => (r === null ? '-' : r.toFixed(0))).join(', ')

/** The table's rows: one worker against autocannon and wrk, 2 workers against 1, and the engine at its cap. */
function limitRows(m: Rounds, o: OpenLoopLimitOptions): Row[] {
  const oursRate = median(m.ours)
  const bareRate = median(m.bare)
  const wrkRates = m.wrk.filter((w): w is number => w !== null)
  const wrkRate = wrkRates.length === 0 ? null : median(wrkRates)
  const pct = (x: number): string => `${(x * 100).toFixed(0)}%`
  const last = m.probes.at(-1) ?? []
  const twoRate = median(m.two)
  const cores = availableParallelism()
  const free = Math.max(1, cores - 1)
  const row: Row = {
    benchmark:
      'open-loop limit, one worker (highest rate with <= 1 % of calls late by > 10 ms or unsent, vs closed-loop max of bare autocannon and wrk)',
    measured: `${oursRate.toFixed(0)}/s`,
    baseline: `autocannon ${bareRate.toFixed(0)}/s; wrk${wrkRate === null ? ': not installed' : ` ${wrkRate.toFixed(0)}/s`}`,
    figure: `${(oursRate / bareRate).toFixed(2)} of autocannon; ${wrkRate === null ? '- of wrk' : `${(oursRate / wrkRate).toFixed(2)} of wrk`}`,
    goal: `>= ${OPEN_LOOP_LIMIT.goal} of autocannon`,
    met: oursRate / bareRate >= OPEN_LOOP_LIMIT.goal,
    note:
      `${o.rounds} alternating rounds, medians; per round ours: ${perRound(m.ours)}, autocannon ${perRound(m.bare)}, wrk ${perRound(m.wrk)}. ` +
      `Ours: the scheduler engine and its recorder, ${o.probeMs / 1000} s per probe, doubling from ${OPEN_LOOP_LIMIT.startRate}/s then ${o.refinements} halvings, lateness read off the phase's lag histogram (last round's probes, rate: share late or unsent: ${last.map((p) => `${p.rate}: ${(p.errorShare * 100).toFixed(1)}%`).join(', ')}). ` +
      `Timers alone, slept to the same plan at ${OPEN_LOOP_LIMIT.startRate}/s with no call, woke late in ${m.floor.map((f) => `${(f * 100).toFixed(1)}%`).join(', ')} of instants per round (above 1 %: the host, not the generator, missed the schedule). ` +
      `autocannon and wrk (-t1) closed loop for ${o.probeMs / 1000} s; all ${OPEN_LOOP_LIMIT.connections} connections, GET ${OPEN_LOOP_LIMIT.path} of a raw node TCP target in a child process, ` +
      `whose CPU was ${m.busy.bare.length > 0 ? pct(median(m.busy.bare)) : '-'} of a core under autocannon and ${m.busy.wrk.length > 0 ? pct(median(m.busy.wrk)) : '-'} under wrk (near 100 %: the target bounded that figure, and the ratio is an upper bound).` +
      (wrkRate === null ? ` wrk is not installed, nor could the bench install it: ${HOW_TO_INSTALL_WRK}.` : ''),
  }
  const scaling: Row = {
    benchmark: `open-loop scaling (highest on-time rate of 2 workers against 1, same target, same rounds; ${free} of ${cores} cores free of the target: a floor)`,
    measured: `${twoRate.toFixed(0)}/s`,
    baseline: `${oursRate.toFixed(0)}/s`,
    figure: oursRate > 0 ? `${(twoRate / oursRate).toFixed(2)}x` : '-',
    goal: 'none set: a figure to track',
    met: null,
    note: `per round 2 workers: ${perRound(m.two)}; each worker a thread of one pool started before the rounds and kept warm across probes, with its own ${OPEN_LOOP_LIMIT.connections} connections and half the rate, lateness read off their lag histograms. This machine has ${cores} cores and the target takes one of them, so ${free} ${free === 1 ? 'is' : 'are'} left to the generator's threads: with fewer free cores than workers the figure is a floor, not the scaling a generator host of its own shows.`,
  }
  const cap1 = median(m.capped.one)
  const cap2 = median(m.capped.two)
  const atCap: Row = {
    benchmark:
      'open-loop engine at its cap (sends/s when the plan outruns it: 1 worker, 2 workers, vs closed-loop autocannon)',
    measured: `1 worker ${cap1.toFixed(0)}/s; 2 workers ${cap2.toFixed(0)}/s`,
    baseline: `autocannon ${bareRate.toFixed(0)}/s`,
    figure: `${(cap1 / bareRate).toFixed(2)} and ${(cap2 / bareRate).toFixed(2)} of autocannon; 2 workers ${(cap2 / Math.max(1, cap1)).toFixed(2)}x 1`,
    goal: 'none set: a figure to track',
    met: null,
    note: `per round 1 worker ${perRound(m.capped.one)}, 2 workers ${perRound(m.capped.two)}: a plan of ${OPEN_LOOP_LIMIT.maxRate}/s for ${o.probeMs / 1000} s, ${OPEN_LOOP_LIMIT.connections} connections per worker, every send recorded as in a phase; the figure timers cannot spoil, where the on-time rate needs a host whose timers wake on time (see the first row's note).`,
  }
  return [row, scaling, atCap]
}
