/**
 * What one phase records as its calls go: every engine reports a call's send, its response headers and its end
 * here, on the main thread, and the recorder folds them into aggregates at once (time series, HDR histograms,
 * rate-limit facts, header counts, the schedule's error). No response is kept, so memory does not grow with
 * the length of a run.
 */
import { performance } from 'node:perf_hooks'
import { resetRoundingMs } from '../../harness/duration.ts'
import { isGood } from '../objectives.ts'
import type {
  BucketName,
  Goodput,
  HeaderCounts,
  Objective,
  PhasePlan,
  PhaseResult,
  RateLimitFacts,
  ScheduleFigures,
  SeriesBucket,
} from '../types.ts'
import { newHistogram, recordMs, summarize, type LiveHistogram } from './histogram.ts'
import { readBucket, readRetryAfterMs, type BucketReading } from './rate-headers.ts'
import { Series } from './series.ts'
import { RateLimitBook, type BookMark, type Pending } from './rate-limit-book.ts'
import type { StreamCall } from './stream-stats.ts'

// perf_hooks' performance, not the global one, which is a lazy accessor that every reading of the clock would call.
const timeOrigin = performance.timeOrigin
/** Epoch milliseconds with sub-millisecond precision from the monotonic clock. */
export const nowMs = (): number => timeOrigin + performance.now()

export interface CallHandle {
  readonly sentAt: number
  readonly scheduledAt: number | null
  readonly deliberateFailure: boolean
  /** The request's route label (a workload file's kind), counted in the phase's mix. */
  readonly label: string | null
  readonly inFlight: number
  /** What the rate-limit book had seen when the call left, and the Retry-After promises it tests. */
  readonly mark: BookMark
  readonly retryTests: readonly Pending[]
  answeredAt: number | null
  status: number | null
  settled: boolean
}

export interface RecorderOptions {
  minuteMs: number
  bucketMs: number
  /** The phase's planned start, from which the schedule is measured. */
  startedAt: number
  /** `--slo`: a call is good when it meets each per-call bound (none: every 2xx is good). */
  objectives?: readonly Objective[]
  /** Calls the plan wants sent by `elapsedMs` after the start (an arrival process); absent: a constant rate. */
  plannedBy?: (elapsedMs: number) => number
}

/** 2xx and good calls of a phase over its seconds: what a merge recomputes from the merged counts. */
export function goodputFigures(
  byStatus: Record<string, number>,
  series: readonly SeriesBucket[],
  durationS: number,
): Goodput {
  const ok = Object.entries(byStatus).reduce(
    (n, [code, count]) => n + (Number(code) >= 200 && Number(code) < 300 ? count : 0),
    0,
  )
  const good = series.reduce((n, b) => n + (b.good ?? 0), 0)
  const seconds = Math.max(0.001, durationS)
  return { ok, good, throughputPerSecond: ok / seconds, goodputPerSecond: good / seconds }
}

/**
 * The reading of a bucket the operator stated without naming its headers: whatever the target sends speaks of another.
 */
const UNANNOUNCED: BucketReading = {
  limit: null,
  remaining: null,
  resetMs: null,
  missing: false,
  unparsable: false,
  negative: false,
}

const UNTRACKED_MARK: BookMark = Object.freeze({ remaining: null, admitted: 0 })
const NO_TESTS: readonly Pending[] = Object.freeze([])
const NO_OBJECTIVES: readonly Objective[] = Object.freeze([])

export class PhaseRecorder {
  readonly series: Series
  readonly latency: LiveHistogram = newHistogram()
  readonly okLatency: LiveHistogram = newHistogram()
  readonly answerTime: LiveHistogram = newHistogram()
  readonly #book: RateLimitBook
  readonly #headers: HeaderCounts = {
    responses: 0,
    refused: 0,
    missing: 0,
    missingOnRefused: 0,
    unparsable: 0,
    refusedWithoutRetryAfter: 0,
    resetFractional: 0,
    limitNotTable: 0,
    remainingOverLimit: 0,
    resetOverPeriod: 0,
  }
  readonly #byStatus = new Map<string, number>()
  readonly #errors = new Map<string, number>()
  readonly #mix = new Map<string, { sent: number; ok: number }>()
  readonly lag: LiveHistogram = newHistogram()
  #sent = 0
  #answered = 0
  #retries = 0
  #inFlight = 0
  #maxInFlight = 0
  #maxBehind = 0
  #maxAhead = 0
  #lastSentAt = 0
  #sawSchedule = false
  readonly startedAt: number

  readonly plan: PhasePlan
  readonly options: RecorderOptions

  constructor(plan: PhasePlan, options: RecorderOptions) {
    this.plan = plan
    this.options = options
    this.series = new Series(options.bucketMs)
    this.#book = new RateLimitBook(options.minuteMs, plan.bucket === 'requests')
    this.startedAt = options.startedAt
  }

  /** Calls planned at or before `elapsedMs`: i / rate for i = 0, 1, ... unless an arrival process says otherwise. */
  #plannedBy(elapsedMs: number): number {
    return this.options.plannedBy
      ? this.options.plannedBy(elapsedMs)
      : Math.floor((elapsedMs / 1000) * (this.plan.rate as number)) + 1
  }

  get inFlight(): number {
    return this.#inFlight
  }

  get sent(): number {
    return this.#sent
  }

  /** Answers other than 429 received so far (of the phase's bucket): a retry sees whether anyone got in meanwhile. */
  get admitted(): number {
    return this.#book.admitted
  }

  /** A call leaves now. `scheduledAt` is when the plan wanted it to leave (null: closed loop, no plan). */
  send(
    options: { scheduledAt?: number | null; deliberateFailure?: boolean; label?: string; at?: number } = {},
  ): CallHandle {
    const at = options.at ?? nowMs()
    this.#sent += 1
    const label = options.label ?? null
    if (label !== null) {
      const counts = this.#mix.get(label) ?? { sent: 0, ok: 0 }
      counts.sent += 1
      this.#mix.set(label, counts)
    }
    this.#inFlight += 1
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight)
    this.#lastSentAt = at
    this.series.sent(at)
    const scheduledAt = options.scheduledAt ?? null
    if (scheduledAt !== null) {
      this.#sawSchedule = true
      // A send ahead of its plan is not late: zero lag, so that the lag's percentiles count every send.
      recordMs(this.lag, Math.max(0, at - scheduledAt))
    }
    if (this.plan.rate !== null) {
      // Calls the plan wanted sent by now against calls sent: how far the generator is behind or ahead.
      const planned = this.#plannedBy(at - this.startedAt)
      this.#maxBehind = Math.max(this.#maxBehind, planned - this.#sent)
      this.#maxAhead = Math.max(this.#maxAhead, this.#sent - planned)
    }
    // Only a phase with a bucket reads the book on the answer: the others share one mark and one empty list.
    const tracked = this.plan.bucket !== null
    return {
      sentAt: at,
      scheduledAt,
      deliberateFailure: options.deliberateFailure ?? false,
      label,
      inFlight: this.#inFlight,
      mark: tracked ? this.#book.mark() : UNTRACKED_MARK,
      retryTests: tracked ? this.#book.sent(at) : NO_TESTS,
      answeredAt: null,
      status: null,
      settled: false,
    }
  }

  retried(at: number = nowMs()): void {
    this.#retries += 1
    this.series.retried(at)
  }

  /** Whether `headers` reads any header of an answer with this status: when not, the lean call parses none. */
  wantsHeaders(status: number): boolean {
    return status === 429 || this.plan.bucket !== null
  }

  /** The response's status line and headers arrived (names lower-cased). */
  headers(call: CallHandle, status: number, headers: Record<string, string>, at: number = nowMs()): void {
    call.answeredAt = at
    call.status = status
    this.#answered += 1
    this.#byStatus.set(String(status), (this.#byStatus.get(String(status)) ?? 0) + 1)
    if (call.label !== null && status >= 200 && status < 300) (this.#mix.get(call.label) as { ok: number }).ok += 1
    const bucket: BucketName | null = this.plan.bucket
    let remaining: number | null = null
    let limit: number | null = null
    this.#headers.responses += 1
    if (status === 429) {
      this.#headers.refused += 1
      if (headers['retry-after'] === undefined) this.#headers.refusedWithoutRetryAfter += 1
    }
    if (bucket !== null) {
      const reading = this.plan.stated?.headers === false ? UNANNOUNCED : readBucket(headers, bucket)
      remaining = reading.remaining
      limit = reading.limit
      if (reading.missing) {
        this.#headers.missing += 1
        if (status === 429) this.#headers.missingOnRefused += 1
      }
      if (reading.unparsable) this.#headers.unparsable += 1
      if (reading.resetMs !== null && reading.resetMs % 1000 !== 0) this.#headers.resetFractional += 1
      // A 429 may name the bucket that refused it (whichever limit is hit first applies, section 8.3): the phase's
      // bucket speaks on the calls it admitted.
      if (status !== 429 && limit !== null && this.plan.expectedLimit !== null && limit !== this.plan.expectedLimit)
        this.#headers.limitNotTable += 1
      if (limit !== null && remaining !== null && remaining > limit) this.#headers.remainingOverLimit += 1
      // A minute is the longest period of the buckets the phases judge; a reset in whole seconds may round up to one
      // more. A token bucket may also owe what a finished call took past its room, at most a minute's refill more.
      const longestResetMs = this.options.minuteMs * (this.plan.bucket === 'requests' ? 1 : 2)
      if (reading.resetMs !== null && reading.resetMs > longestResetMs + resetRoundingMs(reading.resetMs))
        this.#headers.resetOverPeriod += 1
      this.#book.answered(
        {
          sentAt: call.sentAt,
          receivedAt: at,
          status,
          limit,
          remaining,
          resetMs: reading.resetMs,
          retryAfterMs: status === 429 ? readRetryAfterMs(headers, Date.now()) : null,
          inFlightAtSend: call.inFlight,
          inFlightAtAnswer: this.#inFlight,
          mark: call.mark,
          byOtherBucket:
            status === 429 && bucket === 'tokens' && headers['x-ratelimit-remaining-project-tokens']?.trim() === '0',
        },
        call.retryTests,
      )
    }
    this.series.admission(call.sentAt, status, call.deliberateFailure)
    this.series.answered(at, status, remaining, limit)
  }

  /**
   * The call is over: its body ended (`ok`), or it failed without an HTTP answer (`error` names why). `stream`:
   * a streamed call's own figures, which its goodness needs.
   */
  end(call: CallHandle, error: string | null = null, at: number = nowMs(), stream: StreamCall | null = null): void {
    if (call.settled) return
    call.settled = true
    this.#inFlight -= 1
    if (error !== null) {
      // A call that never answered is an error of the series; one whose body broke after its headers was
      // counted by its status already. Neither has a latency.
      this.#errors.set(error, (this.#errors.get(error) ?? 0) + 1)
      if (call.status === null) this.series.answered(at, null, null, null)
      return
    }
    // From the instant the plan wanted the call sent: a generator held back (by the connection cap, or a slow
    // target) would otherwise hide the wait its own lateness added (coordinated omission).
    const e2eMs = at - Math.min(call.scheduledAt ?? call.sentAt, call.sentAt)
    recordMs(this.latency, e2eMs)
    recordMs(this.answerTime, at - call.sentAt)
    const status = call.status ?? 0
    if (status >= 200 && status < 300) recordMs(this.okLatency, e2eMs)
    if (isGood(this.options.objectives ?? NO_OBJECTIVES, { status, e2eMs, stream })) this.series.good(at)
  }

  /** The counts so far, cheaply (no histogram is summarized): for the progress line, once a second. */
  counts(): { byStatus: Record<string, number>; errors: number } {
    let errors = 0
    for (const n of this.#errors.values()) errors += n
    return { byStatus: Object.fromEntries(this.#byStatus), errors }
  }

  /** Calls that ended without an answer for this reason (e.g. `stopped`). */
  errorsNamed(name: string): number {
    return this.#errors.get(name) ?? 0
  }

  rateLimit(): RateLimitFacts {
    return this.#book.facts()
  }

  schedule(endedAt: number): ScheduleFigures | null {
    if (this.plan.rate === null) return null
    const durationS = Math.max(0.001, (Math.min(endedAt, this.#lastSentAt || endedAt) - this.startedAt) / 1000)
    const callsPerMinute = this.plan.rate * (this.options.minuteMs / 1000)
    const boundCalls = Math.max(2, Math.ceil(callsPerMinute / 10))
    // Calls the plan wanted by the end but never sent count as behind too (a generator that stalled at the end).
    const plannedTotal = this.options.plannedBy
      ? this.options.plannedBy(endedAt - this.startedAt)
      : Math.floor(((endedAt - this.startedAt) / 1000) * this.plan.rate)
    const behindAtEnd = Math.max(0, plannedTotal - this.#sent - Math.ceil(this.plan.rate * 0.5))
    const maxBehindCalls = Math.max(this.#maxBehind, behindAtEnd)
    const lag = this.#sawSchedule ? summarize(this.lag) : null
    const lagP99Ms = lag === null ? null : lag.p99
    const achieved = this.#sent / durationS
    // Against the rate the plan offered up to the last send (a ramp or a random process offers less than its rate).
    const offered = this.options.plannedBy ? this.options.plannedBy(durationS * 1000) / durationS : this.plan.rate
    const conclusive = maxBehindCalls <= boundCalls && achieved >= offered * 0.9
    return {
      maxBehindCalls,
      maxAheadCalls: this.#maxAhead,
      boundCalls,
      lagP99Ms,
      ...(lag === null ? {} : { lag }),
      conclusive,
    }
  }

  result(endedAt: number): Omit<PhaseResult, 'plan'> {
    const durationS = Math.max(0.001, (endedAt - this.startedAt) / 1000)
    const series = this.series.buckets()
    return {
      startedAt: this.startedAt,
      endedAt,
      sent: this.#sent,
      answered: this.#answered,
      byStatus: Object.fromEntries(this.#byStatus),
      errors: Object.fromEntries(this.#errors),
      retries: this.#retries,
      achievedRate: this.#sent / durationS,
      latency: summarize(this.latency),
      okLatency: summarize(this.okLatency),
      answerTime: summarize(this.answerTime),
      goodput: goodputFigures(Object.fromEntries(this.#byStatus), series, durationS),
      schedule: this.schedule(endedAt),
      series,
      maxInFlight: this.#maxInFlight,
      rateLimit: this.rateLimit(),
      algorithm: null,
      headers: { ...this.#headers },
      ...(this.#mix.size > 0 ? { mix: Object.fromEntries([...this.#mix].map(([k, v]) => [k, { ...v }])) } : {}),
    }
  }
}
