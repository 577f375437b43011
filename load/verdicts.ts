/**
 * Verdicts, each with the figure it rests on, computed from a phase's aggregates only (so a merge of shards
 * judges the whole exactly as one run would). A verdict that the run cannot support (the generator fell behind
 * its schedule, no promise of a 429 could be tested) is `inconclusive`, never a pass.
 */
import {
  admissionFigures,
  describeSpan,
  leaked,
  looksLikeFixedWindows,
  throttledEarly,
  type AdmissionFigures,
} from './bounds.ts'
import { describeArrival } from './engine/arrivals.ts'
import { BUCKET_MS } from './engine/series.ts'
import { judgeObjectives } from './objectives.ts'
import type { ClientFigures, Objective, PhaseResult, PhaseVerdictId, PromiseTest, Verdict, VerdictId } from './types.ts'

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

/** The limit a phase is judged against: the reference's table when the plan knows it, else what the headers said most. */
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
  return `the generator was up to ${s.maxBehindCalls} calls behind its plan (bound ${s.maxBehindCalls > s.boundCalls ? s.boundCalls : 'met'}) and achieved ${phase.achievedRate.toFixed(2)}/s of ${phase.plan.rate}/s offered, so the limit was not loaded as planned`
}

function admissionProblems(f: AdmissionFigures, limit: number, minuteMs: number): string[] {
  const problems: string[] = []
  if (throttledEarly(f, limit))
    problems.push(
      `throttled early: ${f.beforeFirstRefusal} admitted from rest before the first 429, limit ${limit}${f.inFlight ? ` less ${f.inFlight} in flight` : ''}`,
    )
  if (leaked(f)) problems.push(`leaked: ${describeSpan(f.tightest, minuteMs)}`)
  return problems
}

function admissionFigure(f: AdmissionFigures, limit: number, minuteMs: number): string {
  const first =
    f.beforeFirstRefusal === null ? 'no 429 from rest' : `${f.beforeFirstRefusal} admitted before the first 429`
  const head =
    f.headMs > 0
      ? `; spans from rest count from the first window's start, ${(f.headMs / 1000).toFixed(1)} s before the phase`
      : ''
  return `limit ${limit}; ${first}; tightest span: ${describeSpan(f.tightest, minuteMs)}${head}`
}

export function judgeAdmission(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'admission', 'inconclusive', '-', behind)
  const limit = limitOf(phase)
  if (limit === null)
    return verdict(
      phase,
      'admission',
      'inconclusive',
      '-',
      'no response carried a limit header and the reference gives no table value for this bucket',
    )
  const f = admissionFigures(phase, limit, ctx.minuteMs)
  const figure = admissionFigure(f, limit, ctx.minuteMs)
  const problems = admissionProblems(f, limit, ctx.minuteMs)
  if (problems.length > 0) return verdict(phase, 'admission', 'fail', figure, problems.join('; '))
  if (f.admitted === 0) return verdict(phase, 'admission', 'inconclusive', figure, 'no call was admitted')
  return verdict(
    phase,
    'admission',
    'pass',
    figure,
    `${f.admitted} admitted and ${f.refused} refused: ${phase.plan.fromRest ? `from rest at least the limit before the first 429, and at most L + L·T/minute over any span from the start;` : ''} at most 2L + L·T/minute over any span (plus the calls in flight), which any fixed window, sliding window or token bucket meets`,
  )
}

/** 429s whose room (remaining less the calls in flight beside them) exceeds `others`: more calls that no one could have taken it. */
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
  const problems: string[] = []
  if (h.missing > 0)
    problems.push(
      `${h.missing} of ${h.responses} answers (${h.missingOnRefused} of ${h.refused} 429s) lacked a limit, remaining or reset header of the ${phase.plan.bucket} bucket`,
    )
  if (h.unparsable > 0)
    problems.push(`${h.unparsable} answers had a value that does not parse (remaining below zero included)`)
  if (h.remainingOverLimit > 0) problems.push(`${h.remainingOverLimit} answers reported remaining above the limit`)
  if (h.resetOverPeriod > 0)
    problems.push(
      `${h.resetOverPeriod} answers announced a reset longer than the bucket's minute (two for a token bucket, which a finished call may leave in debt)`,
    )
  if (withRoom > 0)
    problems.push(
      `${withRoom} 429s came while they or the answer before them reported more remaining than the calls in flight: remaining does not count down`,
    )
  if (limits.length > 1) problems.push(`the limit header took ${limits.length} values (${limits.join(', ')})`)
  if (h.limitNotTable > 0)
    problems.push(`${h.limitNotTable} answers reported a limit other than the reference's ${phase.plan.expectedLimit}`)
  const figure = `${h.responses} answers, ${h.missing} without the headers, ${withRoom} refusals with room, ${h.resetOverPeriod} resets past a minute, limit ${limits.join('/') || '-'}`
  if (h.responses === 0) return verdict(phase, 'headers', 'inconclusive', figure, 'no answer was received', 'P1-4.1')
  if (problems.length > 0) return verdict(phase, 'headers', 'fail', figure, problems.join('; '), 'P1-4.1')
  return verdict(
    phase,
    'headers',
    'pass',
    figure,
    `every answer, 429s included, carried the three ${phase.plan.bucket} headers; 0 <= remaining <= limit; the limit held still${phase.plan.expectedLimit !== null ? " at the table's value" : ''}; every reset parsed and was at most a minute (two for tokens); no 429 came while it or the answer before it reported room`,
    'P1-4.1',
  )
}

/** Admitted calls sent between two instants, by the merged slices (both end slices included): what other shards took. */
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
  const tolerance = 50 + (phase.headers.resetFractional === 0 ? 1000 : 0)
  const broken = suspects.filter((s) => {
    // In a merge, each shard saw only its own calls: what the others admitted in between counts too.
    const admitted =
      ctx.shards > 1
        ? Math.max(s.admittedSince, admittedBetween(phase, s.refusedSentAt, s.testSentAt))
        : s.admittedSince
    if (s.kind === 'retry-after') return admitted + s.othersInFlight === 0
    return s.testSentAt > s.promisedAt + tolerance && admitted + s.othersInFlight < s.needs
  })
  const figure = `${tested.reset} reset promises and ${tested.retryAfter} Retry-After promises tested; ${broken.length} broken (tolerance ${tolerance.toFixed(0)} ms on resets)`
  if (broken.length > 0) {
    const say = (s: PromiseTest): string =>
      s.kind === 'retry-after'
        ? `a call sent ${(s.testSentAt - s.promisedAt).toFixed(0)} ms after the Retry-After of a 429 had passed was refused, and no call had been admitted since`
        : `a call sent ${(s.testSentAt - s.promisedAt).toFixed(0)} ms after the reset a 429 announced was refused after ${s.admittedSince} admissions since, where the full bucket promised ${s.needs}`
    const first = [broken.find((s) => s.kind === 'reset'), broken.find((s) => s.kind === 'retry-after')].filter(
      (s): s is PromiseTest => s !== undefined,
    )
    return verdict(phase, 'recovery', 'fail', figure, first.map(say).join('; '), 'P1-7')
  }
  if (tested.reset + tested.retryAfter === 0)
    return verdict(
      phase,
      'recovery',
      'inconclusive',
      figure,
      'no call was sent after a promise a 429 made had passed',
      'P1-7',
    )
  return verdict(
    phase,
    'recovery',
    'pass',
    figure,
    'every 429 kept its promises: the first call after its Retry-After was admitted unless another took the room first, and after its reset the bucket admitted its limit before refusing again',
    'P1-7',
  )
}

export function judgeFailedCalls(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'failed-calls', 'inconclusive', '-', behind, 'P1-7')
  const limit = limitOf(phase)
  if (limit === null)
    return verdict(phase, 'failed-calls', 'inconclusive', '-', 'no limit is known for this bucket', 'P1-7')
  const f = admissionFigures(phase, limit, ctx.minuteMs)
  const figure = `${f.admitted} admitted (${f.failed} failed on purpose), ${f.refused} refused; ${admissionFigure(f, limit, ctx.minuteMs)}`
  const problems = admissionProblems(f, limit, ctx.minuteMs)
  if (problems.length > 0)
    return verdict(
      phase,
      'failed-calls',
      'fail',
      figure,
      `counting the calls that failed on purpose, ${problems.join('; ')}: failed calls did not count toward the limit`,
      'P1-7',
    )
  if (f.failed === 0 || f.refused === 0)
    return verdict(
      phase,
      'failed-calls',
      'inconclusive',
      figure,
      'no call failed on purpose, or the limit was never reached',
      'P1-7',
    )
  return verdict(
    phase,
    'failed-calls',
    'pass',
    figure,
    'counting the calls that failed on purpose, the admissions stayed within the bounds every allowed limiter meets',
    'P1-7',
  )
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
  const withRetryAfter = refused - phase.headers.refusedWithoutRetryAfter
  const figure = `${refused} answered 429 (${withRetryAfter} with Retry-After)${otherCount > 0 ? `, ${named}` : ''}, ${Object.values(phase.errors).reduce((a, b) => a + b, 0)} without an answer`
  if (otherCount > 0)
    return verdict(
      phase,
      'refusal',
      'fail',
      figure,
      refused === 0
        ? `the spent bucket was answered ${others.map(([s]) => s).join(', ')}, never 429: section 7 answers a rate limit with 429`
        : `beside ${refused} 429s, ${named}: a spent bucket is answered 429 (section 7), and no other failure was asked for`,
      'P1-7',
    )
  if (refused === 0)
    return verdict(phase, 'refusal', 'inconclusive', figure, 'no call was refused: the limit was never spent', 'P1-7')
  return verdict(
    phase,
    'refusal',
    'pass',
    figure,
    `every refusal was a 429${phase.headers.refusedWithoutRetryAfter > 0 ? `; ${phase.headers.refusedWithoutRetryAfter} came without Retry-After, which "may" accompany a 429 (recorded, not judged)` : ', each with Retry-After'}`,
    'P1-7',
  )
}

export function judgeIsolation(phase: PhaseResult): Verdict {
  const probe = phase.probe
  if (!probe || phase.plan.probe === undefined)
    return verdict(phase, 'isolation', 'skip', '-', 'no second account key was given, so isolation was not measured')
  const saturated = (phase.byStatus['429'] ?? 0) > 0
  const figure = `other account (${phase.plan.probe.slot}): ${probe.answered} answers, ${probe.refused} refused, while this one had ${phase.byStatus['429'] ?? 0} 429s`
  if (probe.refused > 0)
    return verdict(
      phase,
      'isolation',
      'fail',
      figure,
      `calls of another account were refused while this account was saturated: its limit is not its own`,
    )
  if (!saturated)
    return verdict(
      phase,
      'isolation',
      'inconclusive',
      figure,
      'this account was never throttled, so its saturation could not have spilled over',
    )
  if (probe.answered === 0)
    return verdict(phase, 'isolation', 'inconclusive', figure, 'the other account got no answer')
  return verdict(phase, 'isolation', 'pass', figure, 'saturating this account left the other account untouched')
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
  /** Retries refused although they waited the Retry-After they were given and nobody was admitted meanwhile, per success. */
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
  const goodput = goodputOf(phase, minuteMs)
  return `${c.policy}: goodput ${goodput === null ? '-' : `${(goodput * 100).toFixed(0)}%`} of the limit's rate, ${(c.refusals / Math.max(1, c.successes)).toFixed(2)} 429s per success, ${c.gaveUp} given up`
}

export function judgeBackoff(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const c = phase.clients
  if (!c) return verdict(phase, 'backoff', 'skip', '-', 'not a clients phase', 'P1-7')
  const others = ctx.phases.filter((p) => p !== phase && p.clients).map((p) => clientSummary(p, ctx.minuteMs))
  const goodput = goodputOf(phase, ctx.minuteMs)
  const limit = limitOf(phase)
  const figure = [clientSummary(phase, ctx.minuteMs), ...others].join('; ')
  if (goodput === null || limit === null || c.successes === 0)
    return verdict(phase, 'backoff', 'inconclusive', figure, 'no call succeeded, or no limit is known', 'P1-7')
  const waste = c.refusals / Math.max(1, c.successes)
  const bound = wasteBound(c, limit, ctx.minuteMs)
  const problems: string[] = []
  if (goodput < BACKOFF_GOALS.minGoodput)
    problems.push(
      `goodput ${(goodput * 100).toFixed(0)}% of the limit's rate, under ${BACKOFF_GOALS.minGoodput * 100}%: the target's reset or Retry-After sent the client away too long`,
    )
  const broken = c.refusedAfterWait / Math.max(1, c.successes)
  if (broken > BACKOFF_GOALS.maxRefusedAfterWait)
    problems.push(
      `${c.refusedAfterWait} retries were refused although they waited what Retry-After asked and no call was admitted meanwhile (${(broken * 100).toFixed(0)}% of successes): Retry-After is shorter than the wait the limit needs`,
    )
  if (waste > bound)
    problems.push(
      `${waste.toFixed(2)} 429s per success, over ${bound.toFixed(2)}: waiting what the target announced did not get the client through`,
    )
  if (problems.length > 0) return verdict(phase, 'backoff', 'fail', figure, problems.join('; '), 'P1-7')
  return verdict(
    phase,
    'backoff',
    'pass',
    figure,
    `following section 7 (backoff with jitter, Retry-After honoured, ${c.maxAttempts} attempts) reached ${(goodput * 100).toFixed(0)}% of the limit's rate with ${waste.toFixed(2)} 429s per success (bound ${bound.toFixed(2)})`,
    'P1-7',
  )
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
  const counts = `${s.still} held, ${s.period} moved a period, ${s.whole} a period after the call, ${s.partial} sooner, ${s.other} other, of ${s.answers} admitted answers`
  if (s.still + s.whole + s.partial + s.other === 0)
    return `too few calls within a minute of each other to tell (${counts})`
  if (looksLikeFixedWindows(s))
    return `fixed windows of about ${period}: the instant the bucket is full again held still between calls and moved by a whole period at once (${counts})`
  if (s.partial > few && s.other <= s.partial)
    return `continuous refill (token bucket or GCRA): admitted calls announced the bucket full again sooner than a period after them (${counts})`
  if (s.whole > few && s.other <= s.whole)
    return `sliding window of about ${period}: each admitted call announced the bucket full again one period after itself (${counts})`
  return `unknown: the headers moved in no pattern of a fixed window, sliding window or token bucket (${counts})`
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
  const figure = `${(phase.answered / seconds).toFixed(0)} answers/s, ${(ok / seconds).toFixed(0)} 2xx/s, ${((phase.byStatus['429'] ?? 0) / seconds).toFixed(0)} 429/s; latency p50 ${phase.latency.p50} ms, p99 ${phase.latency.p99} ms`
  const bad = server + dropped
  if (phase.sent > 0 && bad / phase.sent > 0.01) {
    return verdict(
      phase,
      'throughput',
      'fail',
      figure,
      `${server} 5xx and ${dropped} calls without an answer (${((bad / phase.sent) * 100).toFixed(1)}%): the target broke under load`,
      'P1-7',
    )
  }
  if (ok === 0) return verdict(phase, 'throughput', 'inconclusive', figure, 'no call succeeded', 'P1-7')
  return verdict(
    phase,
    'throughput',
    'pass',
    figure,
    `sustained over ${seconds.toFixed(1)} s with ${phase.plan.connections} connections`,
    'P1-7',
  )
}

export function judgeStreaming(phase: PhaseResult): Verdict {
  const s = phase.stream
  if (!s) return verdict(phase, 'streaming', 'skip', '-', 'not a streaming phase', 'P1-6')
  const figure = `TTFT p50/p90/p99 ${s.ttft.p50}/${s.ttft.p90}/${s.ttft.p99} ms; inter-token ${s.interToken.p50}/${s.interToken.p90}/${s.interToken.p99} ms; end-to-end ${s.endToEnd.p50}/${s.endToEnd.p90}/${s.endToEnd.p99} ms; ${s.tokensPerSecond.p50.toFixed(1)} tokens/s (p50)`
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'streaming', 'inconclusive', figure, behind, 'P1-6')
  if (s.truncated > 0)
    return verdict(
      phase,
      'streaming',
      'fail',
      figure,
      `${s.truncated} of ${s.completed + s.truncated} streams ended without response.completed`,
      'P1-6',
    )
  if (s.completed === 0) return verdict(phase, 'streaming', 'inconclusive', figure, 'no stream completed', 'P1-6')
  return verdict(
    phase,
    'streaming',
    'pass',
    figure,
    `${s.completed} streams completed at ${phase.plan.rate}/s arriving ${describeArrival(phase.plan.arrival, phase.plan.rate)}`,
    'P1-6',
  )
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
