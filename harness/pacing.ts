/**
 * Client-side pacing by the rate-limit headers (Part 1 sections 4.1 and 7): the harness remembers, per key and
 * bucket, what the last response said was left and when the bucket resets, and holds back a call that would
 * find the bucket empty until the announced reset. So the suites do not trip limits by accident; a 429 that
 * happens anyway is retried with backoff (retry.ts). Tests about rate limits turn both off (retry429: false).
 *
 * A bucket is known by key slot, path family (/user/v1 has the usage limit of section 8.1, everything else the
 * model or account buckets) and the model the call names, which is as far as a client can tell buckets apart.
 */
import { parseResetMs } from './duration.ts'

export const PACING_DEFAULTS = {
  maxWaitMs: 65_000, // one rate-limit minute plus margin; longer announced waits are left to the 429 retry
  marginMs: 25, // past the announced reset, so that the call lands in the new window
}

interface Reading {
  remaining: number
  resetAt: number
}

export class Pacer {
  readonly #buckets = new Map<string, Reading>()

  private readonly now: () => number

  constructor(now: () => number = Date.now) {
    this.now = now
  }

  static bucketOf(keySlot: string, path: string, model: string | undefined): string {
    const family = path.startsWith('/user/v1') ? 'usage' : 'v1'
    return `${keySlot}|${family}|${family === 'usage' ? '' : (model ?? '')}`
  }

  /** Milliseconds to wait before a call to this bucket: 0 unless the last reading said it is empty. */
  waitMs(bucket: string): number {
    const reading = this.#buckets.get(bucket)
    if (reading === undefined || reading.remaining > 0) return 0
    const wait = reading.resetAt - this.now() + PACING_DEFAULTS.marginMs
    if (wait <= 0) {
      this.#buckets.delete(bucket)
      return 0
    }
    return Math.min(wait, PACING_DEFAULTS.maxWaitMs)
  }

  /** Takes a response's x-ratelimit-*-requests headers into account; headers that do not parse are ignored. */
  observe(bucket: string, headers: Record<string, string>): void {
    const remainingText = headers['x-ratelimit-remaining-requests']?.trim()
    const resetMs = parseResetMs(headers['x-ratelimit-reset-requests'])
    if (remainingText === undefined || !/^\d+$/.test(remainingText) || resetMs === undefined) return
    this.#buckets.set(bucket, { remaining: Number(remainingText), resetAt: this.now() + resetMs })
  }
}
