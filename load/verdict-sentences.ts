/**
 * What each verdict says: its figure, and the sentence of each outcome, one entry per verdict (verdicts.ts decides
 * which applies). A sentence reads the figures it is given and decides nothing.
 */
import { type AdmissionFigures, describeSpan } from './bounds.ts'
import { describeArrival } from './engine/arrivals.ts'
import type {
  AlgorithmSigns,
  ClientFigures,
  HeaderCounts,
  PhaseResult,
  PromiseTest,
  ScheduleFigures,
  StreamFigures,
} from './types.ts'

/** A run that fell behind its plan proves nothing of the limit: every verdict that loads it says so. */
function behind(phase: PhaseResult, s: ScheduleFigures): string {
  const bound = s.maxBehindCalls > s.boundCalls ? s.boundCalls : 'met'
  return (
    `the generator was up to ${s.maxBehindCalls} calls behind its plan (bound ${bound}) and achieved ` +
    `${phase.achievedRate.toFixed(2)}/s of ${phase.plan.rate}/s offered, so the limit was not loaded as planned`
  )
}

/** What the target did with the phase's calls: served, refused with 429, refused otherwise. */
const served = (f: AdmissionFigures): string =>
  `${f.admitted} served, ${f.refused} refused with 429, ${f.otherRefused} refused otherwise`

const admission = {
  figure(f: AdmissionFigures, limit: number, minuteMs: number): string {
    const first =
      f.beforeFirstRefusal === null ? 'no 429 from rest' : `${f.beforeFirstRefusal} admitted before the first 429`
    const head =
      f.headMs > 0
        ? `; spans from rest count from the first window's start, ${(f.headMs / 1000).toFixed(1)} s before the phase`
        : ''
    return `limit ${limit}; ${served(f)}; ${first}; tightest span: ${describeSpan(f.tightest, minuteMs)}${head}`
  },
  throttledEarly: (f: AdmissionFigures, limit: number): string =>
    `throttled early: ${f.beforeFirstRefusal} admitted from rest before the first 429, limit ${limit}` +
    (f.inFlight ? ` less ${f.inFlight} in flight` : ''),
  leaked: (f: AdmissionFigures, minuteMs: number): string => `leaked: ${describeSpan(f.tightest, minuteMs)}`,
  noLimit: 'no response carried a limit header and the reference gives no table value for this bucket',
  noneAdmitted: 'no call was admitted',
  pass: (f: AdmissionFigures, fromRest: boolean): string =>
    `${f.admitted} admitted (served) and ${f.refused} refused with 429` +
    (f.otherRefused > 0
      ? ` (${f.otherRefused} refused otherwise, not counted as admitted: the refusal verdict judges them)`
      : '') +
    ': ' +
    (fromRest
      ? 'from rest at least the limit before the first 429, and at most L + L·T/minute over any span from the start;'
      : '') +
    ' at most 2L + L·T/minute over any span (plus the calls in flight), which any fixed window, sliding window or ' +
    'token bucket meets',
}

const headers = {
  figure: (h: HeaderCounts, withRoom: number, limits: readonly string[]): string =>
    `${h.responses} answers, ${h.missing} without the headers, ${withRoom} refusals with room, ` +
    `${h.resetOverPeriod} resets past a minute, limit ${limits.join('/') || '-'}`,
  missing: (h: HeaderCounts, bucket: string | null): string =>
    `${h.missing} of ${h.responses} answers (${h.missingOnRefused} of ${h.refused} 429s) lacked a limit, remaining ` +
    `or reset header of the ${bucket} bucket`,
  unparsable: (h: HeaderCounts): string =>
    `${h.unparsable} answers had a value that does not parse (remaining below zero included)`,
  remainingOverLimit: (h: HeaderCounts): string => `${h.remainingOverLimit} answers reported remaining above the limit`,
  resetOverPeriod: (h: HeaderCounts): string =>
    `${h.resetOverPeriod} answers announced a reset longer than the bucket's minute (two for a token bucket, which ` +
    'a finished call may leave in debt)',
  withRoom: (withRoom: number): string =>
    `${withRoom} 429s came while they or the answer before them reported more remaining than the calls in flight: ` +
    'remaining does not count down',
  limits: (limits: readonly string[]): string => `the limit header took ${limits.length} values (${limits.join(', ')})`,
  limitNotTable: (h: HeaderCounts, expected: number | null): string =>
    `${h.limitNotTable} answers reported a limit other than the reference's ${expected}`,
  noAnswer: 'no answer was received',
  pass: (bucket: string | null, tableLimit: boolean): string =>
    `every answer, 429s included, carried the three ${bucket} headers; 0 <= remaining <= limit; the limit held ` +
    `still${tableLimit ? " at the table's value" : ''}; every reset parsed and was at most a minute (two for ` +
    'tokens); no 429 came while it or the answer before it reported room',
}

const recovery = {
  figure: (tested: { reset: number; retryAfter: number }, broken: number, toleranceMs: number): string =>
    `${tested.reset} reset promises and ${tested.retryAfter} Retry-After promises tested; ${broken} broken ` +
    `(tolerance ${toleranceMs.toFixed(0)} ms on resets)`,
  broken(s: PromiseTest): string {
    const after = (s.testSentAt - s.promisedAt).toFixed(0)
    return s.kind === 'retry-after'
      ? `a call sent ${after} ms after the Retry-After of a 429 had passed was refused, and no call had been ` +
          'admitted since'
      : `a call sent ${after} ms after the reset a 429 announced was refused after ${s.admittedSince} admissions ` +
          `since, where the full bucket promised ${s.needs}`
  },
  untested: 'no call was sent after a promise a 429 made had passed',
  pass:
    'every 429 kept its promises: the first call after its Retry-After was admitted unless another took the room ' +
    'first, and after its reset the bucket admitted its limit before refusing again',
}

const failedCalls = {
  figure: (f: AdmissionFigures, limit: number, minuteMs: number): string =>
    `${f.admitted} admitted (${f.failed} failed on purpose); ${admission.figure(f, limit, minuteMs)}`,
  noLimit: 'no limit is known for this bucket',
  fail: (problems: readonly string[]): string =>
    `counting the calls that failed on purpose, ${problems.join('; ')}: failed calls did not count toward the limit`,
  untested: 'no call failed on purpose, or the limit was never reached',
  pass:
    'counting the calls that failed on purpose, the admissions stayed within the bounds every allowed limiter ' +
    'meets',
}

const refusal = {
  figure: (refused: number, withRetryAfter: number, named: string, unanswered: number): string =>
    `${refused} answered 429 (${withRetryAfter} with Retry-After)${named ? `, ${named}` : ''}, ${unanswered} ` +
    'without an answer',
  never429: (statuses: readonly string[]): string =>
    `the spent bucket was answered ${statuses.join(', ')}, never 429: section 7 answers a rate limit with 429`,
  beside429: (refused: number, named: string): string =>
    `beside ${refused} 429s, ${named}: a spent bucket is answered 429 (section 7), and no other failure was asked for`,
  unspent: 'no call was refused: the limit was never spent',
  pass: (withoutRetryAfter: number): string =>
    'every refusal was a 429' +
    (withoutRetryAfter > 0
      ? `; ${withoutRetryAfter} came without Retry-After, which "may" accompany a 429 (recorded, not judged)`
      : ', each with Retry-After'),
}

const isolation = {
  figure: (slot: string, probe: { answered: number; refused: number }, refusedHere: number): string =>
    `other account (${slot}): ${probe.answered} answers, ${probe.refused} refused, while this one had ` +
    `${refusedHere} 429s`,
  noProbe: 'no second account key was given, so isolation was not measured',
  fail: 'calls of another account were refused while this account was saturated: its limit is not its own',
  unthrottled: 'this account was never throttled, so its saturation could not have spilled over',
  noAnswer: 'the other account got no answer',
  pass: 'saturating this account left the other account untouched',
}

const percent = (share: number): string => `${(share * 100).toFixed(0)}%`

const backoff = {
  /** One client's figures, shown beside the others' in every backoff verdict. */
  client: (c: ClientFigures, goodput: number | null): string =>
    `${c.policy}: goodput ${goodput === null ? '-' : percent(goodput)} of the limit's rate, ` +
    `${(c.refusals / Math.max(1, c.successes)).toFixed(2)} 429s per success, ${c.gaveUp} given up`,
  notClients: 'not a clients phase',
  noSuccess: 'no call succeeded, or no limit is known',
  lowGoodput: (goodput: number, minGoodput: number): string =>
    `goodput ${percent(goodput)} of the limit's rate, under ${minGoodput * 100}%: the target's reset or ` +
    'Retry-After sent the client away too long',
  refusedAfterWait: (c: ClientFigures, share: number): string =>
    `${c.refusedAfterWait} retries were refused although they waited what Retry-After asked and no call was ` +
    `admitted meanwhile (${percent(share)} of successes): Retry-After is shorter than the wait the limit needs`,
  waste: (waste: number, bound: number): string =>
    `${waste.toFixed(2)} 429s per success, over ${bound.toFixed(2)}: waiting what the target announced did not ` +
    'get the client through',
  pass: (c: ClientFigures, goodput: number, waste: number, bound: number): string =>
    `following section 7 (backoff with jitter, Retry-After honoured, ${c.maxAttempts} attempts) reached ` +
    `${percent(goodput)} of the limit's rate with ${waste.toFixed(2)} 429s per success (bound ${bound.toFixed(2)})`,
}

const throughput = {
  figure: (phase: PhaseResult, ok: number, seconds: number): string =>
    `${(phase.answered / seconds).toFixed(0)} answers/s, ${(ok / seconds).toFixed(0)} 2xx/s, ` +
    `${((phase.byStatus['429'] ?? 0) / seconds).toFixed(0)} 429/s; latency p50 ${phase.latency.p50} ms, ` +
    `p99 ${phase.latency.p99} ms`,
  broke: (server: number, dropped: number, share: number): string =>
    `${server} 5xx and ${dropped} calls without an answer (${(share * 100).toFixed(1)}%): the target broke under load`,
  noSuccess: 'no call succeeded',
  pass: (seconds: number, connections: number): string =>
    `sustained over ${seconds.toFixed(1)} s with ${connections} connections`,
}

const streaming = {
  figure(s: StreamFigures): string {
    const p = (h: { p50: number; p90: number; p99: number }): string => `${h.p50}/${h.p90}/${h.p99}`
    return (
      `TTFT p50/p90/p99 ${p(s.ttft)} ms; inter-token ${p(s.interToken)} ms; end-to-end ${p(s.endToEnd)} ms; ` +
      `${s.tokensPerSecond.p50.toFixed(1)} tokens/s (p50)`
    )
  },
  notStreaming: 'not a streaming phase',
  truncated: (s: StreamFigures): string =>
    `${s.truncated} of ${s.completed + s.truncated} streams ended without response.completed`,
  noneCompleted: 'no stream completed',
  pass: (s: StreamFigures, phase: PhaseResult): string =>
    `${s.completed} streams completed at ${phase.plan.rate}/s arriving ` +
    describeArrival(phase.plan.arrival, phase.plan.rate),
}

/** What the headers show of the target's algorithm: an observation, not a verdict, in the same words' place. */
const algorithm = {
  counts: (s: AlgorithmSigns): string =>
    `${s.still} held, ${s.period} moved a period, ${s.whole} a period after the call, ${s.partial} sooner, ` +
    `${s.other} other, of ${s.answers} admitted answers`,
  tooFew: (counts: string): string => `too few calls within a minute of each other to tell (${counts})`,
  fixed: (period: string, counts: string): string =>
    `fixed windows of about ${period}: the instant the bucket is full again held still between calls and moved by ` +
    `a whole period at once (${counts})`,
  continuous: (counts: string): string =>
    'continuous refill (token bucket or GCRA): admitted calls announced the bucket full again sooner than a period ' +
    `after them (${counts})`,
  sliding: (period: string, counts: string): string =>
    `sliding window of about ${period}: each admitted call announced the bucket full again one period after ` +
    `itself (${counts})`,
  unknown: (counts: string): string =>
    `unknown: the headers moved in no pattern of a fixed window, sliding window or token bucket (${counts})`,
}

export const SAY = {
  behind,
  admission,
  headers,
  recovery,
  'failed-calls': failedCalls,
  refusal,
  isolation,
  backoff,
  throughput,
  streaming,
  algorithm,
  unserved: (statuses: string, routes: readonly string[]): string =>
    `no call was served: every answer was a failure (${statuses}); the target does not serve ` +
    `${routes.join(', ')} as the profile calls it`,
}
