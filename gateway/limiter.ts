/**
 * Fixed-window counters. A window opens at the first call that touches its key and lasts one
 * "minute" (--minute-ms); the first call after it ends opens the next one. Every call counts, refused
 * ones included (Part 1 section 7: failed requests still count toward per-minute limits), and the
 * check and the count happen in one synchronous step, so N concurrent calls against a limit L admit
 * exactly L.
 */
import type { Clock } from './clock.ts'

export interface WindowReading {
  readonly admitted: boolean
  readonly limit: number
  readonly remaining: number
  /** Epoch milliseconds at which the window ends and the counter starts again. */
  readonly resetAt: number
}

interface Window {
  endsAt: number
  used: number
}

export class FixedWindowLimiter {
  readonly #windows = new Map<string, Window>()

  constructor(
    private readonly clock: Clock,
    readonly windowMs: number,
  ) {}

  /**
   * Counts `cost` units against `key` and says whether the call fits. A cost of 0 admits the call and
   * only reports the bucket (and opens its window if none is open).
   */
  take(key: string, limit: number, cost: number): WindowReading {
    const now = this.clock.now()
    let window = this.#windows.get(key)
    if (!window || now >= window.endsAt) {
      window = { endsAt: now + this.windowMs, used: 0 }
      this.#windows.set(key, window)
    }
    const admitted = cost === 0 || window.used + cost <= limit
    window.used += cost
    return { admitted, limit, remaining: Math.max(0, limit - window.used), resetAt: window.endsAt }
  }

  /** The bucket as it stands, without counting (opens its window if none is open). */
  read(key: string, limit: number): WindowReading {
    return this.take(key, limit, 0)
  }

  /** Counts units that were consumed after admission (tokens of a finished call); never refuses. */
  add(key: string, limit: number, units: number): void {
    if (units > 0) this.take(key, limit, units)
  }

  /** Takes units back out of the open window (only the `failed-calls-not-counted` fault does). */
  refund(key: string, units: number): void {
    const window = this.#windows.get(key)
    if (window) window.used = Math.max(0, window.used - units)
  }

  /**
   * Overwrites the count of the open window. Only the `limiter-race` fault uses it, to show the lost update
   * of a read-then-write limiter that awaits in between.
   */
  overwrite(key: string, used: number): void {
    const window = this.#windows.get(key)
    if (window) window.used = used
  }

  /** Units counted in the open window, 0 when none is open. */
  used(key: string): number {
    const window = this.#windows.get(key)
    return window && this.clock.now() < window.endsAt ? window.used : 0
  }
}
