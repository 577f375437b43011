/**
 * The rate-limit facts of a phase, folded as its answers arrive (types.ts RateLimitFacts). Nothing here assumes
 * an algorithm: the reference says "requests per minute" and no more (Part 1 §8.1, §8.3), so the book keeps what
 * holds for a fixed window, a sliding window and a token bucket alike: the promises each 429 made (its reset and
 * its Retry-After) and the refusals that came while the answer before promised room. What the headers show of
 * the algorithm is counted as signs, for an observation.
 */
import type { PromiseTest, RateLimitFacts } from '../types.ts'

export const BOOK_LIMITS = {
  maxSuspects: 1000, // broken-looking promise tests kept for the verdict: far more than a failure needs
  maxPending: 10_000, // promises not yet tested (one per admission between 429s at most)
  signToleranceMs: 50, // how far an announced instant may drift and still count as unmoved (latency, rounding)
}

/** What the book needs of one answer. */
export interface Answer {
  sentAt: number
  receivedAt: number
  status: number
  limit: number | null
  remaining: number | null
  resetMs: number | null
  retryAfterMs: number | null
  /** Calls in flight when it was sent, itself included, and when it was answered, itself included. */
  inFlightAtSend: number
  inFlightAtAnswer: number
  /** The book's state when the call was sent (BookMark). */
  mark: BookMark
  /**
   * A 429 that another bucket may have given: the project-scoped token bucket reported no room (section 4.1: a call
   * can be throttled by it while the token bucket has capacity). It tests no promise of this bucket.
   */
  byOtherBucket?: boolean
}

/** Taken at each send: what the generator had seen by then. */
export interface BookMark {
  /**
   * Remaining of the answer received before the send whose call was sent last, less the calls that were in flight
   * beside that call (they may have reached the target after it): the room it promised at least (null: none yet).
   */
  remaining: number | null
  /** Admitted answers received before the send. */
  admitted: number
}

/** Keeps a promise unless one of the same admission count promises no later. */
function keep(promises: Map<number, Pending>, p: Pending | null): void {
  if (p === null) return
  const known = promises.get(p.admittedAtRefusal)
  if (known === undefined ? promises.size < BOOK_LIMITS.maxPending : p.promisedAt < known.promisedAt)
    promises.set(p.admittedAtRefusal, p)
}

/** A promise a 429 made, not yet tested. */
export interface Pending {
  refusedSentAt: number
  promisedAt: number
  admittedAtRefusal: number
  /** Admissions owed before a refusal (PromiseTest.needs). */
  limit: number
  /** The limit header of the 429: which bucket made the promise. */
  bucket: number | null
}

export function emptyFacts(): RateLimitFacts {
  return {
    firstRefusedSentAt: null,
    refusedWithRoom: {},
    refusedReportingRoom: {},
    tested: { reset: 0, retryAfter: 0 },
    suspects: [],
    limits: {},
    algorithm: { answers: 0, still: 0, period: 0, whole: 0, partial: 0, other: 0, maxResetMs: 0 },
  }
}

export class RateLimitBook {
  readonly #facts = emptyFacts()
  #admitted = 0
  #lastRemaining: number | null = null
  #lastRemainingSentAt = Number.NEGATIVE_INFINITY
  #lastFullAt: number | null = null
  /**
   * Promises not yet tested, by the admissions seen when their 429 was sent: of two with the same count, the
   * earlier promise is the stricter test, so each map holds one per count (a handful under any load).
   */
  readonly #resetPromises = new Map<number, Pending>()
  readonly #retryPromises = new Map<number, Pending>()

  readonly periodMs: number
  /**
   * The bucket counts calls (requests), so a promise is a number of calls; a token bucket's calls have costs the
   * generator does not know, so its reset promises one call, and remaining says nothing of room.
   */
  readonly countsCalls: boolean

  constructor(periodMs: number, countsCalls: boolean) {
    this.periodMs = periodMs
    this.countsCalls = countsCalls
  }

  get admitted(): number {
    return this.#admitted
  }

  mark(): BookMark {
    return { remaining: this.#lastRemaining, admitted: this.#admitted }
  }

  /**
   * A call leaves: the Retry-After promises that have passed are tested by it (the first call sent after each),
   * returned so that its answer can judge them.
   */
  sent(at: number): Pending[] {
    const due: Pending[] = []
    for (const [key, p] of this.#retryPromises) {
      if (p.promisedAt >= at) continue
      due.push(p)
      this.#retryPromises.delete(key)
    }
    return due
  }

  answered(a: Answer, retryTests: readonly Pending[]): void {
    const f = this.#facts
    const refused = a.status === 429
    // Admitted answers only: a 429 may report the bucket that refused it, another limit (section 8.3).
    if (a.limit !== null && !refused) f.limits[a.limit] = (f.limits[a.limit] ?? 0) + 1
    if (refused) this.#refused(a, retryTests)
    else {
      this.#admitted += 1
      f.tested.retryAfter += retryTests.length
      this.#resetsKept(a)
    }
    this.#signs(a, refused)
    // Answers arrive out of order: the call sent last speaks for the bucket, not the answer read last.
    if (a.remaining !== null && a.sentAt >= this.#lastRemainingSentAt) {
      this.#lastRemaining = a.remaining - Math.max(0, a.inFlightAtSend - 1)
      this.#lastRemainingSentAt = a.sentAt
    }
  }

  #refused(a: Answer, retryTests: readonly Pending[]): void {
    const f = this.#facts
    if (f.firstRefusedSentAt === null || a.sentAt < f.firstRefusedSentAt) f.firstRefusedSentAt = a.sentAt
    const others = Math.max(0, a.inFlightAtSend - 1)
    const room = (byRoom: Record<string, number>, remaining: number | null): void => {
      if (!this.countsCalls || remaining === null || remaining <= others) return
      byRoom[remaining - others] = (byRoom[remaining - others] ?? 0) + 1
    }
    room(f.refusedWithRoom, a.mark.remaining)
    room(f.refusedReportingRoom, a.remaining)
    const limit = this.countsCalls ? (a.limit ?? 0) : 1
    // A refusal by another bucket (its limit header names another limit, section 8.3) tests no promise of this one.
    const sameBucket = (p: Pending): boolean => a.byOtherBucket !== true && p.bucket === a.limit
    // Retry-After: this was the first call sent after the promise; someone admitted meanwhile took the room.
    for (const p of retryTests) {
      f.tested.retryAfter += 1
      if (!sameBucket(p)) continue
      const admittedSince = a.mark.admitted - p.admittedAtRefusal
      const othersNow = Math.max(others, a.inFlightAtAnswer - 1)
      if (admittedSince + othersNow === 0)
        this.#suspect({
          kind: 'retry-after',
          refusedSentAt: p.refusedSentAt,
          promisedAt: p.promisedAt,
          testSentAt: a.sentAt,
          admittedSince,
          othersInFlight: othersNow,
          needs: p.limit,
        })
    }
    // Reset: a bucket full at the promised instant admits the limit before it refuses again.
    for (const [key, p] of this.#resetPromises) {
      if (p.promisedAt >= a.sentAt || !sameBucket(p)) continue
      this.#resetPromises.delete(key)
      f.tested.reset += 1
      const admittedSince = a.mark.admitted - p.admittedAtRefusal
      if (admittedSince + others < p.limit)
        this.#suspect({
          kind: 'reset',
          refusedSentAt: p.refusedSentAt,
          promisedAt: p.promisedAt,
          testSentAt: a.sentAt,
          admittedSince,
          othersInFlight: others,
          needs: p.limit,
        })
    }
    const promise = (ms: number | null): Pending | null =>
      ms === null
        ? null
        : {
            refusedSentAt: a.sentAt,
            promisedAt: a.receivedAt + ms,
            admittedAtRefusal: a.mark.admitted,
            limit,
            bucket: a.limit,
          }
    if (limit > 0) keep(this.#resetPromises, promise(a.resetMs))
    keep(this.#retryPromises, promise(a.retryAfterMs))
  }

  /** A reset promise is kept once a call sent after it is admitted with the admissions it owed since its 429. */
  #resetsKept(a: Answer): void {
    for (const [key, p] of this.#resetPromises) {
      if (p.promisedAt >= a.sentAt || a.mark.admitted + 1 - p.admittedAtRefusal < p.limit) continue
      this.#resetPromises.delete(key)
      this.#facts.tested.reset += 1
    }
  }

  #suspect(test: PromiseTest): void {
    if (this.#facts.suspects.length < BOOK_LIMITS.maxSuspects) this.#facts.suspects.push(test)
  }

  /** How the instant the bucket is full again moved since the answer before (AlgorithmSigns). */
  #signs(a: Answer, refused: boolean): void {
    if (a.resetMs === null) return
    const s = this.#facts.algorithm
    s.maxResetMs = Math.max(s.maxResetMs, a.resetMs)
    const fullAt = a.receivedAt + a.resetMs
    const before = this.#lastFullAt
    this.#lastFullAt = fullAt
    if (refused || !this.countsCalls) return
    if (s.firstFullAt === undefined || fullAt < s.firstFullAt) s.firstFullAt = fullAt
    if (before === null || a.limit === null || a.limit <= 0) return
    s.answers += 1
    const unitMs = this.periodMs / a.limit
    // Within a third of one call's share, so that "unmoved" and "moved by one share" stay apart at any limit.
    const tolerance = a.resetMs % 1000 === 0 ? 1000 : Math.min(BOOK_LIMITS.signToleranceMs, unitMs / 3)
    const moved = fullAt - before
    const near = (value: number): boolean => Math.abs(moved - value) <= tolerance
    if (near(0)) s.still += 1
    else if (moved >= this.periodMs / 2) s.period += 1
    else if (Math.abs(a.resetMs - this.periodMs) <= tolerance) s.whole += 1
    else if (a.resetMs < this.periodMs) s.partial += 1
    else s.other += 1
  }

  facts(): RateLimitFacts {
    return structuredClone(this.#facts)
  }
}
