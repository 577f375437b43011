/**
 * The admission bounds that hold for every limiter the reference allows (fixed window, sliding window, token
 * bucket, GCRA), for a limit of L calls per period m (Part 1 §8.1, §8.3, §8.4 say "per minute" and no more):
 * - no early throttle: from rest, at least L calls are admitted before the first 429;
 * - from rest, over any span T from the start, at most L + L·T/m are admitted;
 * - over any span T, at most 2L + L·T/m (a fixed window's two edges are the worst case).
 * Admitted is what the target served; a failing answer other than 429 (a 503 for a spent bucket) is a refusal in
 * the wrong words, which the refusal verdict judges, and is never counted as admitted.
 * Counts come from the series' slices by send time; a span is taken as long as its slices could hold, and
 * stretched by the spread of answer times (from the actual send), so it is never shorter than the span in which
 * the target admitted them; the calls in flight together are allowed on top, as answers may overtake each other.
 *
 * "From rest" assumes a limiter whose period begins with the first call. A fixed window aligned to the clock began
 * before it, and admits a whole limit again when it ends: when the headers show fixed windows, the spans from rest
 * count from where the first window began (a minute before its announced end), which is never looser than 2L.
 */
import { WHOLE_SECONDS_ROUNDING_MS } from '../harness/duration.ts'
import { BUCKET_MS } from './engine/series.ts'
import type { AlgorithmSigns, PhaseResult } from './types.ts'

export interface SpanCount {
  admitted: number
  spanMs: number
  /** The bound for that span, calls in flight included. */
  bound: number
  fromRest: boolean
}

export interface AdmissionFigures {
  admitted: number
  failed: number
  refused: number
  /** Refused otherwise: answered a failing status other than 429 that was not the call's own fault (never admitted). */
  otherRefused: number
  /**
   * Admitted among the calls sent up to the first 429 (its own slice included); null without a 429 or a start from
   * rest.
   */
  beforeFirstRefusal: number | null
  /** The calls in flight together, less one: the allowance of every bound. */
  inFlight: number
  /** The span whose count came nearest its bound, or went furthest past it. */
  tightest: SpanCount | null
  /** How long before the phase's start its first fixed window began (0: with the first call, or not a window). */
  headMs: number
}

/** The headers moved like fixed windows: the full-again instant held between calls and jumped by a period. */
export function looksLikeFixedWindows(s: AlgorithmSigns): boolean {
  return s.still > 0 && s.whole + s.partial + s.other <= s.answers * 0.05
}

/**
 * A minute less the first window's announced end, past the phase's start (a reset in whole seconds may be a second
 * long). Answers delayed on a busy machine make some still instants look moved, so a third of them unmoved is
 * enough: taking a token bucket for a window only widens the bound toward 2L, never fails a target.
 */
export function windowHeadMs(phase: PhaseResult, minuteMs: number): number {
  const s = phase.rateLimit.algorithm
  const windowLike = s.still > 0 && 2 * s.still >= s.whole + s.partial + s.other
  if (!phase.plan.fromRest || s.firstFullAt === undefined || !windowLike) return 0
  const rounding = phase.headers.resetFractional === 0 ? WHOLE_SECONDS_ROUNDING_MS : 0
  return Math.min(minuteMs, Math.max(0, minuteMs - (s.firstFullAt - phase.startedAt) + rounding))
}

/** The most a limiter of `limit` per `minuteMs` admits from rest within `spanMs`. */
export const fromRestBound = (limit: number, spanMs: number, minuteMs: number): number =>
  limit + (limit * spanMs) / minuteMs

export function admissionFigures(phase: PhaseResult, limit: number, minuteMs: number): AdmissionFigures {
  const bins = phase.series.filter((b) => b.admittedSent > 0 || b.refusedSent > 0 || (b.otherSent ?? 0) > 0)
  const inFlight = Math.max(0, phase.maxInFlight - 1)
  // Calls reach the target after their latency: a span of admissions is longer than its span of sends by at most the
  // spread.
  const answers = phase.answerTime ?? phase.latency
  const stretch = Math.max(0, answers.p99 - answers.min)
  const admitted = bins.reduce((n, b) => n + b.admittedSent, 0)
  const headMs = windowHeadMs(phase, minuteMs)
  const figures: AdmissionFigures = {
    admitted,
    failed: bins.reduce((n, b) => n + b.failedSent, 0),
    refused: bins.reduce((n, b) => n + b.refusedSent, 0),
    otherRefused: bins.reduce((n, b) => n + (b.otherSent ?? 0), 0),
    beforeFirstRefusal: null,
    inFlight,
    tightest: null,
    headMs,
  }
  const consider = (count: number, spanMs: number, fromRest: boolean): void => {
    const bound =
      (fromRest
        ? fromRestBound(limit, spanMs + stretch + headMs, minuteMs)
        : 2 * limit + (limit * (spanMs + stretch)) / minuteMs) + inFlight
    const t = figures.tightest
    if (t === null || count - bound > t.admitted - t.bound)
      figures.tightest = { admitted: count, spanMs, bound, fromRest }
  }
  const first = phase.rateLimit.firstRefusedSentAt
  if (phase.plan.fromRest && first !== null) {
    const slice = Math.floor(first / BUCKET_MS)
    // A failing answer other than 429 before it may be the target's own trouble, not its limiter: counted here
    // with the admitted, so that it never makes a throttle early; the upper bounds count only what was served.
    figures.beforeFirstRefusal = bins
      .filter((b) => b.t <= slice)
      .reduce((n, b) => n + b.admittedSent + (b.otherSent ?? 0), 0)
  }
  const admitting = bins.filter((b) => b.admittedSent > 0)
  // Prefix sums: the count of slices i..j is sums[j + 1] - sums[i].
  const sums = [0]
  for (const b of admitting) sums.push((sums.at(-1) as number) + b.admittedSent)
  const startSlice = Math.floor(phase.startedAt / BUCKET_MS)
  for (let j = 0; j < admitting.length; j += 1) {
    const end = (admitting[j]!.t + 1) * BUCKET_MS
    if (phase.plan.fromRest) consider(sums[j + 1]!, end - startSlice * BUCKET_MS, true)
    for (let i = 0; i <= j; i += 1) consider(sums[j + 1]! - sums[i]!, end - admitting[i]!.t * BUCKET_MS, false)
  }
  return figures
}

/** The tightest span past its bound: more admitted than any allowed limiter admits. */
export const leaked = (f: AdmissionFigures): boolean =>
  f.tightest !== null && f.tightest.admitted > f.tightest.bound + 1e-9

/** Throttled before the limit from rest. */
export const throttledEarly = (f: AdmissionFigures, limit: number): boolean =>
  f.beforeFirstRefusal !== null && f.beforeFirstRefusal + f.inFlight < limit

export function describeSpan(s: SpanCount | null, minuteMs: number): string {
  if (s === null) return 'no call admitted'
  const span = s.spanMs >= 10_000 ? `${(s.spanMs / 1000).toFixed(0)} s` : `${s.spanMs} ms`
  return (
    `${s.admitted} admitted in ${span}${s.fromRest ? ' from rest' : ''}, at most ${Math.floor(s.bound + 1e-9)} ` +
    `allowed (${s.fromRest ? 'L' : '2L'} + L x ${(s.spanMs / minuteMs).toFixed(2)} periods, with the latency's ` +
    `spread and the calls in flight)`
  )
}
