/**
 * Verdicts, each with the figure it rests on, computed from a phase's aggregates only (so a merge of shards
 * judges the whole exactly as one run would). A verdict that the run cannot support (the generator fell behind
 * its schedule, no promise of a 429 could be tested) is `inconclusive`, never a pass.
 */
import { WHOLE_SECONDS_ROUNDING_MS } from '../harness/duration.ts'
import { admissionFigures, leaked, looksLikeFixedWindows, throttledEarly, type AdmissionFigures } from './bounds.ts'
import { BUCKET_MS } from './engine/series.ts'
import { judgeObjectives } from './objectives.ts'
import type { ClientFigures, Objective, PhaseResult, PhaseVerdictId, PromiseTest, Verdict, VerdictId } from './types.ts'
import { SAY } from './verdict-sentences.ts'

export interface JudgeContext {
  minuteMs: number
  /** Every phase of the run, for verdicts that compare phases (backoff shows the other clients beside). */
  phases: readonly PhaseResult[]
  /** Generators whose results were merged (1: one run). */
  shards: number
}

/** The section of the limits a route's calls count against: usage (8.1), files (8.4), models (8.3). */
export function sectionOfRoute(route: string): string {
  if (route.includes('/user/v1')) return 'P1-8.1'
  if (route.includes('/v1/files')) return 'P1-8.4'
  return 'P1-8.3'
}

const sectionOf = (phase: PhaseResult): string => sectionOfRoute(phase.plan.routes[0] ?? '')

function verdict(
  phase: PhaseResult,
  id: VerdictId,
  status: Verdict['status'],
  figure: string,
  detail: string,
  section: string = sectionOf(phase),
): Verdict {
  return { id, phase: phase.plan.name, status, figure, detail, section }
}

/** The limit a phase is judged against: the reference's table when the plan knows it, else what headers said most. */
export function limitOf(phase: PhaseResult): number | null {
  if (phase.plan.expectedLimit !== null) return phase.plan.expectedLimit
  let best: number | null = null
  for (const [limit, n] of Object.entries(phase.rateLimit.limits))
    if (best === null || n > (phase.rateLimit.limits[best] ?? 0)) best = Number(limit)
  return best
}

function behindSchedule(phase: PhaseResult): string | null {
  const s = phase.schedule
  if (s === null || s.conclusive) return null
  return SAY.behind(phase, s)
}

function admissionProblems(f: AdmissionFigures, limit: number, minuteMs: number): string[] {
  const problems: string[] = []
  if (throttledEarly(f, limit)) problems.push(SAY.admission.throttledEarly(f, limit))
  if (leaked(f)) problems.push(SAY.admission.leaked(f, minuteMs))
  return problems
}

export function judgeAdmission(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'admission', 'inconclusive', '-', behind)
  const limit = limitOf(phase)
  if (limit === null) return verdict(phase, 'admission', 'inconclusive', '-', SAY.admission.noLimit)
  const f = admissionFigures(phase, limit, ctx.minuteMs)
  const figure = SAY.admission.figure(f, limit, ctx.minuteMs)
  const problems = admissionProblems(f, limit, ctx.minuteMs)
  if (problems.length > 0) return verdict(phase, 'admission', 'fail', figure, problems.join('; '))
  if (f.admitted === 0) return verdict(phase, 'admission', 'inconclusive', figure, SAY.admission.noneAdmitted)
  return verdict(phase, 'admission', 'pass', figure, SAY.admission.pass(f, phase.plan.fromRest))
}

/**
 * 429s whose room (remaining less the calls in flight beside them) exceeds `others`: more calls that no one could
 * have taken it.
 */
const withRoomPast = (byRoom: Record<string, number>, others: number): number =>
  Object.entries(byRoom).reduce((n, [room, count]) => n + (Number(room) > others ? count : 0), 0)

export function judgeHeaders(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const h = phase.headers
  // Shards' calls take room that no shard sees: beside their own, the others' calls in flight; and which answer
  // came before a 429 only one generator knows.
  const othersAcross = ctx.shards > 1 ? phase.maxInFlight : 0
  const withRoom = Math.max(
    withRoomPast(phase.rateLimit.refusedReportingRoom, othersAcross),
    ctx.shards > 1 ? 0 : withRoomPast(phase.rateLimit.refusedWithRoom, 0),
  )
  const limits = Object.keys(phase.rateLimit.limits)
  const say = SAY.headers
  const problems: string[] = []
  if (h.missing > 0) problems.push(say.missing(h, phase.plan.bucket))
  if (h.unparsable > 0) problems.push(say.unparsable(h))
  if (h.remainingOverLimit > 0) problems.push(say.remainingOverLimit(h))
  if (h.resetOverPeriod > 0) problems.push(say.resetOverPeriod(h))
  if (withRoom > 0) problems.push(say.withRoom(withRoom))
  if (limits.length > 1) problems.push(say.limits(limits))
  if (h.limitNotTable > 0) problems.push(say.limitNotTable(h, phase.plan.expectedLimit))
  const figure = say.figure(h, withRoom, limits)
  if (h.responses === 0) return verdict(phase, 'headers', 'inconclusive', figure, say.noAnswer, 'P1-4.1')
  if (problems.length > 0) return verdict(phase, 'headers', 'fail', figure, problems.join('; '), 'P1-4.1')
  const pass = say.pass(phase.plan.bucket, phase.plan.expectedLimit !== null)
  return verdict(phase, 'headers', 'pass', figure, pass, 'P1-4.1')
}

/**
 * Admitted calls sent between two instants, by the merged slices (both end slices included): what other shards
 * took.
 */
function admittedBetween(phase: PhaseResult, from: number, to: number): number {
  const a = Math.floor(from / BUCKET_MS)
  const b = Math.floor(to / BUCKET_MS)
  return phase.series.filter((s) => s.t >= a && s.t <= b).reduce((n, s) => n + s.admittedSent, 0)
}

export function judgeRecovery(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'recovery', 'inconclusive', '-', behind, 'P1-7')
  const { tested, suspects } = phase.rateLimit
  // A promise is dated from the 429's arrival, the latest instant the target can have meant, and a test call reaches
  // the target after it was sent: latency only delays both. A reset in whole seconds may be a second short.
  const tolerance = 50 + (phase.headers.resetFractional === 0 ? WHOLE_SECONDS_ROUNDING_MS : 0)
  const broken = suspects.filter((s) => {
    // In a merge, each shard saw only its own calls: what the others admitted in between counts too.
    const admitted =
      ctx.shards > 1
        ? Math.max(s.admittedSince, admittedBetween(phase, s.refusedSentAt, s.testSentAt))
        : s.admittedSince
    if (s.kind === 'retry-after') return admitted + s.othersInFlight === 0
    return s.testSentAt > s.promisedAt + tolerance && admitted + s.othersInFlight < s.needs
  })
  const figure = SAY.recovery.figure(tested, broken.length, tolerance)
  if (broken.length > 0) {
    const first = [broken.find((s) => s.kind === 'reset'), broken.find((s) => s.kind === 'retry-after')].filter(
      (s): s is PromiseTest => s !== undefined,
    )
    return verdict(phase, 'recovery', 'fail', figure, first.map(SAY.recovery.broken).join('; '), 'P1-7')
  }
  if (tested.reset + tested.retryAfter === 0)
    return verdict(phase, 'recovery', 'inconclusive', figure, SAY.recovery.untested, 'P1-7')
  return verdict(phase, 'recovery', 'pass', figure, SAY.recovery.pass, 'P1-7')
}

export function judgeFailedCalls(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'failed-calls', 'inconclusive', '-', behind, 'P1-7')
  const limit = limitOf(phase)
  const say = SAY['failed-calls']
  if (limit === null) return verdict(phase, 'failed-calls', 'inconclusive', '-', say.noLimit, 'P1-7')
  const f = admissionFigures(phase, limit, ctx.minuteMs)
  const figure = say.figure(f, limit, ctx.minuteMs)
  const problems = admissionProblems(f, limit, ctx.minuteMs)
  if (problems.length > 0) return verdict(phase, 'failed-calls', 'fail', figure, say.fail(problems), 'P1-7')
  if (f.failed === 0 || f.refused + f.otherRefused === 0)
    return verdict(phase, 'failed-calls', 'inconclusive', figure, say.untested, 'P1-7')
  return verdict(phase, 'failed-calls', 'pass', figure, say.pass, 'P1-7')
}

/** Answers with a status that is neither 2xx nor 429, of calls not sent to fail on purpose, by status. */
function otherRefusals(phase: PhaseResult): Array<[string, number]> {
  const deliberate = phase.series.reduce((n, s) => n + s.failedSent, 0)
  const others = Object.entries(phase.byStatus)
    .filter(([s]) => !s.startsWith('2') && s !== '429')
    .sort(([, a], [, b]) => b - a)
  // Calls failed on purpose answered 4xx are what they asked for: taken off the 4xx they most likely got.
  let owed = deliberate
  return others
    .map(([status, n]): [string, number] => {
      if (!status.startsWith('4') || owed === 0) return [status, n]
      const taken = Math.min(owed, n)
      owed -= taken
      return [status, n - taken]
    })
    .filter(([, n]) => n > 0)
}

/**
 * Section 7: a rate limit is answered 429. A phase overloaded past its limit spends the bucket, so answers of any
 * other failing status (a 503 from a gateway that does not say 429) are refusals in the wrong words. Retry-After
 * "may" accompany a 429: its absence is recorded in the figure, never judged.
 */
export function judgeRefusal(phase: PhaseResult): Verdict {
  const refused = phase.byStatus['429'] ?? 0
  const others = otherRefusals(phase)
  const otherCount = others.reduce((n, [, c]) => n + c, 0)
  const named = others.map(([s, n]) => `${n} x ${s}`).join(', ')
  const withoutRetryAfter = phase.headers.refusedWithoutRetryAfter
  const unanswered = Object.values(phase.errors).reduce((a, b) => a + b, 0)
  const say = SAY.refusal
  const figure = say.figure(refused, refused - withoutRetryAfter, otherCount > 0 ? named : '', unanswered)
  if (otherCount > 0) {
    const detail = refused === 0 ? say.never429(others.map(([s]) => s)) : say.beside429(refused, named)
    return verdict(phase, 'refusal', 'fail', figure, detail, 'P1-7')
  }
  if (refused === 0) return verdict(phase, 'refusal', 'inconclusive', figure, say.unspent, 'P1-7')
  return verdict(phase, 'refusal', 'pass', figure, say.pass(withoutRetryAfter), 'P1-7')
}

export function judgeIsolation(phase: PhaseResult): Verdict {
  const probe = phase.probe
  const say = SAY.isolation
  if (!probe || phase.plan.probe === undefined) return verdict(phase, 'isolation', 'skip', '-', say.noProbe)
  const refusedHere = phase.byStatus['429'] ?? 0
  const figure = say.figure(phase.plan.probe.slot, probe, refusedHere)
  if (probe.refused > 0) return verdict(phase, 'isolation', 'fail', figure, say.fail)
  if (refusedHere === 0) return verdict(phase, 'isolation', 'inconclusive', figure, say.unthrottled)
  if (probe.answered === 0) return verdict(phase, 'isolation', 'inconclusive', figure, say.noAnswer)
  return verdict(phase, 'isolation', 'pass', figure, say.pass)
}

/**
 * Goodput: the successes of a phase against the limit's rate over its time, L·T/minute. Every allowed limiter
 * admits at least that to a client that comes back when it is told (a fixed window or a sliding window L per
 * minute, a token bucket L·T/minute and its initial L), so a client held under it was sent away too long.
 */
export function goodputOf(phase: PhaseResult, minuteMs: number): number | null {
  const limit = limitOf(phase)
  if (limit === null || limit === 0 || !phase.clients) return null
  const rate = (limit * (phase.endedAt - phase.startedAt)) / minuteMs
  return Math.round((phase.clients.successes / rate) * 1000) / 1000
}

export const BACKOFF_GOALS = {
  minGoodput: 0.9, // the section 7 client reaches at least 90 % of the limit's rate
  /**
   * 429s per success: a client that cannot see the future pays about one refusal per worker each time it waits
   * what Retry-After asked, and the limit admits L per minute; twice that, or 0.5, at most.
   */
  wasteFloorFactor: 2,
  minWaste: 0.5,
  /** Retries refused although they waited their Retry-After and nobody was admitted meanwhile, per success. */
  maxRefusedAfterWait: 0.05,
}

/** Retry-After that the target asked on average (ms), at least one call's share of the minute. */
function meanRetryAfterMs(c: ClientFigures, limit: number, minuteMs: number): number {
  return Math.max(minuteMs / limit, c.retryAfterCount === 0 ? minuteMs : c.retryAfterTotalMs / c.retryAfterCount)
}

/** The 429s per success that a client honouring the target's Retry-After pays at most: each worker once per wait. */
export function wasteBound(c: ClientFigures, limit: number, minuteMs: number): number {
  const waitsPerMinute = minuteMs / meanRetryAfterMs(c, limit, minuteMs)
  return Math.max(BACKOFF_GOALS.minWaste, (BACKOFF_GOALS.wasteFloorFactor * c.workers * waitsPerMinute) / limit)
}

export function clientSummary(phase: PhaseResult, minuteMs: number): string {
  const c = phase.clients
  if (!c) return '-'
  return SAY.backoff.client(c, goodputOf(phase, minuteMs))
}

export function judgeBackoff(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const c = phase.clients
  const say = SAY.backoff
  if (!c) return verdict(phase, 'backoff', 'skip', '-', say.notClients, 'P1-7')
  const others = ctx.phases.filter((p) => p !== phase && p.clients).map((p) => clientSummary(p, ctx.minuteMs))
  const goodput = goodputOf(phase, ctx.minuteMs)
  const limit = limitOf(phase)
  const figure = [clientSummary(phase, ctx.minuteMs), ...others].join('; ')
  const none = unserved(phase)
  if (none !== null) return verdict(phase, 'backoff', 'fail', figure, none, 'P1-7')
  if (goodput === null || limit === null || c.successes === 0)
    return verdict(phase, 'backoff', 'inconclusive', figure, say.noSuccess, 'P1-7')
  const waste = c.refusals / Math.max(1, c.successes)
  const bound = wasteBound(c, limit, ctx.minuteMs)
  const problems: string[] = []
  if (goodput < BACKOFF_GOALS.minGoodput) problems.push(say.lowGoodput(goodput, BACKOFF_GOALS.minGoodput))
  const broken = c.refusedAfterWait / Math.max(1, c.successes)
  if (broken > BACKOFF_GOALS.maxRefusedAfterWait) problems.push(say.refusedAfterWait(c, broken))
  if (waste > bound) problems.push(say.waste(waste, bound))
  if (problems.length > 0) return verdict(phase, 'backoff', 'fail', figure, problems.join('; '), 'P1-7')
  return verdict(phase, 'backoff', 'pass', figure, say.pass(c, goodput, waste, bound), 'P1-7')
}

/**
 * What the headers show of the target's algorithm (rate-limit-book.ts signs): an observation for the reader,
 * never a verdict, since the reference names no algorithm.
 */
export function observeAlgorithm(phase: PhaseResult): string | null {
  const s = phase.rateLimit.algorithm
  if (phase.plan.bucket !== 'requests' || s.answers < 2) return null
  const period = `${(Math.round(s.maxResetMs / 100) / 10).toString()} s`
  const few = s.answers * 0.05
  const say = SAY.algorithm
  const counts = say.counts(s)
  if (s.still + s.whole + s.partial + s.other === 0) return say.tooFew(counts)
  if (looksLikeFixedWindows(s)) return say.fixed(period, counts)
  if (s.partial > few && s.other <= s.partial) return say.continuous(counts)
  if (s.whole > few && s.other <= s.whole) return say.sliding(period, counts)
  return say.unknown(counts)
}

/**
 * No call served and the target answered every one of them with a failing status other than 429 (a route it lacks,
 * a body it will not take): the load it was offered is the reference's, so this is the target's failure, named by
 * its statuses, not a measurement left undone. Null when some call was served or nothing was answered.
 */
function unserved(phase: PhaseResult): string | null {
  const statuses = Object.entries(phase.byStatus)
  if (statuses.some(([s]) => s.startsWith('2') || s === '429')) return null
  const others = otherRefusals(phase)
  if (others.length === 0) return null
  return SAY.unserved(others.map(([s, n]) => `${n} x ${s}`).join(', '), phase.plan.routes)
}

/** unserved, or, in a mix, its streamed routes sent and none answered 2xx (429s aside: a limit is no failure). */
function streamsUnserved(phase: PhaseResult): string | null {
  const whole = unserved(phase)
  if (whole !== null || (phase.byStatus['429'] ?? 0) > 0) return whole
  const streams = Object.entries(phase.mix ?? {}).filter(([label]) => label.endsWith('-stream'))
  const sent = streams.reduce((n, [, m]) => n + m.sent, 0)
  if (sent === 0 || streams.some(([, m]) => m.ok > 0)) return null
  return SAY.unserved(
    `${sent} streamed calls, none answered 2xx`,
    streams.map(([label]) => label),
  )
}

export function judgeThroughput(phase: PhaseResult): Verdict {
  const seconds = Math.max(0.001, (phase.endedAt - phase.startedAt) / 1000)
  const ok = Object.entries(phase.byStatus)
    .filter(([s]) => s.startsWith('2'))
    .reduce((n, [, v]) => n + v, 0)
  const server = Object.entries(phase.byStatus)
    .filter(([s]) => s.startsWith('5'))
    .reduce((n, [, v]) => n + v, 0)
  const dropped = Object.values(phase.errors).reduce((a, b) => a + b, 0)
  const say = SAY.throughput
  const figure = say.figure(phase, ok, seconds)
  const bad = server + dropped
  if (phase.sent > 0 && bad / phase.sent > 0.01)
    return verdict(phase, 'throughput', 'fail', figure, say.broke(server, dropped, bad / phase.sent), 'P1-7')
  const none = unserved(phase)
  if (none !== null) return verdict(phase, 'throughput', 'fail', figure, none, 'P1-7')
  if (ok === 0) return verdict(phase, 'throughput', 'inconclusive', figure, say.noSuccess, 'P1-7')
  return verdict(phase, 'throughput', 'pass', figure, say.pass(seconds, phase.plan.connections), 'P1-7')
}

export function judgeStreaming(phase: PhaseResult): Verdict {
  const s = phase.stream
  const say = SAY.streaming
  if (!s) return verdict(phase, 'streaming', 'skip', '-', say.notStreaming, 'P1-6')
  const figure = say.figure(s)
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'streaming', 'inconclusive', figure, behind, 'P1-6')
  if (s.truncated > 0) return verdict(phase, 'streaming', 'fail', figure, say.truncated(s), 'P1-6')
  const none = streamsUnserved(phase)
  if (none !== null) return verdict(phase, 'streaming', 'fail', figure, none, 'P1-6')
  if (s.completed === 0) return verdict(phase, 'streaming', 'inconclusive', figure, say.noneCompleted, 'P1-6')
  return verdict(phase, 'streaming', 'pass', figure, say.pass(s, phase), 'P1-6')
}

const JUDGES: Record<PhaseVerdictId, (phase: PhaseResult, ctx: JudgeContext) => Verdict> = {
  admission: judgeAdmission,
  headers: judgeHeaders,
  recovery: judgeRecovery,
  'failed-calls': judgeFailedCalls,
  refusal: judgeRefusal,
  isolation: judgeIsolation,
  backoff: judgeBackoff,
  throughput: judgeThroughput,
  streaming: judgeStreaming,
}

/** The verdicts each phase's plan names, then each objective of --slo on each phase. */
export function judge(
  phases: readonly PhaseResult[],
  minuteMs: number,
  shards = 1,
  objectives: readonly Objective[] = [],
): Verdict[] {
  return phases.flatMap((phase) => {
    // A stated limit's own period stands in for the target's minute in every bound of its phase.
    // Worker threads, like shards, each saw only their own calls.
    const ctx: JudgeContext = {
      minuteMs: phase.plan.periodMs ?? minuteMs,
      phases,
      shards: shards * (phase.plan.workers ?? 1),
    }
    return [...phase.plan.verdicts.map((id) => JUDGES[id](phase, ctx)), ...judgeObjectives(phase, objectives)]
  })
}

/** Exit code and outcome: 1 a verdict failed; else 3 something proved nothing; else 0. */
export function outcomeOf(verdicts: readonly Verdict[]): {
  outcome: 'pass' | 'fail' | 'inconclusive'
  exitCode: 0 | 1 | 3
} {
  if (verdicts.some((v) => v.status === 'fail')) return { outcome: 'fail', exitCode: 1 }
  if (verdicts.some((v) => v.status === 'inconclusive')) return { outcome: 'inconclusive', exitCode: 3 }
  return { outcome: 'pass', exitCode: 0 }
}
