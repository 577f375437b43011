/**
 * Rate-limit buckets. The reference counts "per minute" (Part 1 §8.1, §8.3, §8.4) and names no algorithm, so the
 * gateway offers the three that gateways use (--limiter):
 *
 * - fixed-window: a window opens at the first call that touches its key and lasts one period; the first call
 *   after it ends opens the next. Refused calls count too (they change nothing inside the window).
 * - clock-window: fixed windows aligned to the clock (each starts at a whole multiple of the period), as limiters
 *   keyed by the current minute do: a first call may land at a window's end, so a whole limit follows soon after it.
 * - sliding-window: the units admitted in the last period, each leaving the window one period after it came.
 * - token-bucket: `limit` tokens, refilled continuously at `limit` per period; a call takes its cost, and tokens
 *   counted after a call may leave a debt that is refilled before the next call.
 *
 * Whatever the algorithm, a reading says: `remaining` whole units left now; `resetAt`, when the bucket is back to
 * its initial, full state if nothing more is taken (the x-ratelimit-reset-* headers); `retryAt`, when a call of the
 * same cost would first be admitted (Retry-After). Check and count happen in one synchronous step, so N concurrent
 * calls against a limit L admit exactly what N calls one by one would.
 */
import type { Clock } from './clock.ts'

export const LIMITER_ALGORITHMS = ['fixed-window', 'sliding-window', 'token-bucket', 'clock-window'] as const
export type LimiterAlgorithm = (typeof LIMITER_ALGORITHMS)[number]

export interface BucketReading {
  readonly admitted: boolean
  readonly limit: number
  readonly remaining: number
  /** Epoch milliseconds at which the bucket is full again if nothing more is taken. */
  readonly resetAt: number
  /** Epoch milliseconds at which a call of the same cost would be admitted (now, when this one was). */
  readonly retryAt: number
}

export interface RateLimiter {
  readonly algorithm: LimiterAlgorithm
  /** The bucket's period: one "minute" (--minute-ms), or a day of them. */
  readonly periodMs: number
  /**
   * Counts `cost` units against `key` and says whether the call fits. A cost of 0 admits the call and only
   * reports the bucket.
   */
  take(key: string, limit: number, cost: number): BucketReading
  /** The bucket as it stands, and whether a call of cost `need` would fit now, without counting anything. */
  read(key: string, limit: number, need?: number): BucketReading
  /** Counts units consumed after admission (the tokens of a finished call); never refuses. */
  add(key: string, limit: number, units: number): void
  /** Gives units back (only the `failed-calls-not-counted` fault does). */
  refund(key: string, limit: number, units: number): void
}

export function createLimiter(algorithm: LimiterAlgorithm, clock: Clock, periodMs: number): RateLimiter {
  switch (algorithm) {
    case 'fixed-window':
      return new FixedWindowLimiter(clock, periodMs)
    case 'clock-window':
      return new FixedWindowLimiter(clock, periodMs, true)
    case 'sliding-window':
      return new SlidingWindowLimiter(clock, periodMs)
    case 'token-bucket':
      return new TokenBucketLimiter(clock, periodMs)
  }
}

interface Window {
  endsAt: number
  used: number
}

export class FixedWindowLimiter implements RateLimiter {
  readonly algorithm: 'fixed-window' | 'clock-window'
  readonly #windows = new Map<string, Window>()

  private readonly clock: Clock
  readonly periodMs: number
  /** Windows start at whole multiples of the period on the clock, not at a key's first call. */
  readonly aligned: boolean

  constructor(clock: Clock, periodMs: number, aligned: boolean = false) {
    this.clock = clock
    this.periodMs = periodMs
    this.aligned = aligned
    this.algorithm = aligned ? 'clock-window' : 'fixed-window'
  }

  take(key: string, limit: number, cost: number): BucketReading {
    const now = this.clock.now()
    const window = this.#open(key, now)
    const admitted = cost === 0 || window.used + cost <= limit
    window.used += cost
    return this.#reading(window, limit, admitted, now)
  }

  read(key: string, limit: number, need = 0): BucketReading {
    const now = this.clock.now()
    const window = this.#open(key, now)
    return this.#reading(window, limit, window.used + need <= limit, now)
  }

  #reading(window: Window, limit: number, admitted: boolean, now: number): BucketReading {
    return {
      admitted,
      limit,
      remaining: Math.max(0, limit - window.used),
      resetAt: window.endsAt,
      retryAt: admitted ? now : window.endsAt,
    }
  }

  add(key: string, limit: number, units: number): void {
    if (units > 0) this.take(key, limit, units)
  }

  refund(key: string, _limit: number, units: number): void {
    const window = this.#windows.get(key)
    if (window) window.used = Math.max(0, window.used - units)
  }

  /** Reading a bucket opens its window, as a first call would: its headers then announce a whole period. */
  #open(key: string, now: number): Window {
    let window = this.#windows.get(key)
    if (!window || now >= window.endsAt) {
      const endsAt = this.aligned ? (Math.floor(now / this.periodMs) + 1) * this.periodMs : now + this.periodMs
      window = { endsAt, used: 0 }
      this.#windows.set(key, window)
    }
    return window
  }
}

/** Admitted units in arrival order; `head` is the oldest still inside the period. */
interface Log {
  at: number[]
  units: number[]
  head: number
  used: number
}

export class SlidingWindowLimiter implements RateLimiter {
  readonly algorithm = 'sliding-window'
  readonly #logs = new Map<string, Log>()

  private readonly clock: Clock
  readonly periodMs: number

  constructor(clock: Clock, periodMs: number) {
    this.clock = clock
    this.periodMs = periodMs
  }

  take(key: string, limit: number, cost: number): BucketReading {
    const now = this.clock.now()
    const log = this.#current(key, now)
    const admitted = cost === 0 || log.used + cost <= limit
    if (admitted && cost > 0) this.#push(log, now, cost)
    return this.#reading(log, limit, now, admitted, cost)
  }

  read(key: string, limit: number, need = 0): BucketReading {
    const now = this.clock.now()
    const log = this.#current(key, now)
    return this.#reading(log, limit, now, log.used + need <= limit, need)
  }

  add(key: string, _limit: number, units: number): void {
    if (units > 0) this.#push(this.#current(key, this.clock.now()), this.clock.now(), units)
  }

  /** Takes back the newest entries: the refunded call was the last one counted. */
  refund(key: string, _limit: number, units: number): void {
    const log = this.#logs.get(key)
    let left = units
    while (log && left > 0 && log.at.length > log.head) {
      const i = log.at.length - 1
      const take = Math.min(left, log.units[i]!)
      log.units[i]! -= take
      log.used -= take
      left -= take
      if (log.units[i] === 0) {
        log.at.pop()
        log.units.pop()
      }
    }
  }

  #current(key: string, now: number): Log {
    let log = this.#logs.get(key)
    if (!log) {
      log = { at: [], units: [], head: 0, used: 0 }
      this.#logs.set(key, log)
    }
    while (log.head < log.at.length && log.at[log.head]! <= now - this.periodMs) {
      log.used -= log.units[log.head]!
      log.head += 1
    }
    // Drop what has left the window once it is most of the arrays, so memory follows the calls of one period.
    if (log.head > 1024 && log.head * 2 > log.at.length) {
      log.at.splice(0, log.head)
      log.units.splice(0, log.head)
      log.head = 0
    }
    return log
  }

  #push(log: Log, now: number, units: number): void {
    if (log.at.length > log.head && log.at.at(-1) === now) log.units[log.units.length - 1]! += units
    else {
      log.at.push(now)
      log.units.push(units)
    }
    log.used += units
  }

  #reading(log: Log, limit: number, now: number, admitted: boolean, cost: number): BucketReading {
    const empty = log.head >= log.at.length
    const resetAt = empty ? now : log.at.at(-1)! + this.periodMs
    let retryAt = now
    if (!admitted) {
      // The call fits once enough of the oldest units have left the window.
      let used = log.used
      for (let i = log.head; i < log.at.length && used + cost > limit; i += 1) {
        used -= log.units[i]!
        retryAt = log.at[i]! + this.periodMs
      }
      if (used + cost > limit) retryAt = resetAt
    }
    return { admitted, limit, remaining: Math.max(0, limit - log.used), resetAt, retryAt }
  }
}

const EPSILON = 1e-9

interface Bucket {
  tokens: number
  at: number
}

export class TokenBucketLimiter implements RateLimiter {
  readonly algorithm = 'token-bucket'
  readonly #buckets = new Map<string, Bucket>()

  private readonly clock: Clock
  readonly periodMs: number

  constructor(clock: Clock, periodMs: number) {
    this.clock = clock
    this.periodMs = periodMs
  }

  take(key: string, limit: number, cost: number): BucketReading {
    const now = this.clock.now()
    const bucket = this.#refilled(key, limit, now)
    // The epsilon keeps a refill that float arithmetic left a hair short of a whole token from refusing the call
    // that `remaining` just promised.
    const admitted = cost === 0 || bucket.tokens + EPSILON >= cost
    // A refused call takes nothing: the tokens it asked for are not there.
    if (admitted) bucket.tokens = Math.max(0, bucket.tokens - cost)
    return this.#reading(bucket, limit, now, admitted, cost)
  }

  read(key: string, limit: number, need = 0): BucketReading {
    const now = this.clock.now()
    const bucket = this.#refilled(key, limit, now)
    return this.#reading(bucket, limit, now, bucket.tokens + EPSILON >= need, need)
  }

  #reading(bucket: Bucket, limit: number, now: number, admitted: boolean, cost: number): BucketReading {
    const perMs = limit / this.periodMs
    return {
      admitted,
      limit,
      remaining: Math.max(0, Math.floor(bucket.tokens + EPSILON)),
      resetAt: now + Math.max(0, Math.ceil((limit - bucket.tokens - EPSILON) / perMs)),
      retryAt: admitted ? now : now + Math.ceil((cost - bucket.tokens - EPSILON) / perMs),
    }
  }

  /**
   * Units consumed after admission (a finished call's tokens) may take the bucket below empty: the debt is refilled
   * before the next call is admitted, so the long-run rate holds however large one call is. One period's worth at
   * most, so the bucket is full again within two.
   */
  add(key: string, limit: number, units: number): void {
    const bucket = this.#refilled(key, limit, this.clock.now())
    bucket.tokens = Math.max(-limit, bucket.tokens - units)
  }

  refund(key: string, limit: number, units: number): void {
    const bucket = this.#refilled(key, limit, this.clock.now())
    bucket.tokens = Math.min(limit, bucket.tokens + units)
  }

  #refilled(key: string, limit: number, now: number): Bucket {
    let bucket = this.#buckets.get(key)
    if (!bucket) {
      bucket = { tokens: limit, at: now }
      this.#buckets.set(key, bucket)
    }
    bucket.tokens = Math.min(limit, bucket.tokens + ((now - bucket.at) * limit) / this.periodMs)
    bucket.at = now
    return bucket
  }
}
