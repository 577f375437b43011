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
}
