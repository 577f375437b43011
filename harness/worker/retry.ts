/**
 * Retry of 429 by the harness client (Part 1 section 7, client rules): exponential backoff with random jitter,
 * Retry-After honoured, a bounded number of attempts. Used outside the tests that are about rate limits, so that
 * a busy target does not turn into false failures; every retry is recorded and reported.
 */
import { parseResetMs } from '../duration.ts'

export const RETRY_DEFAULTS = {
  maxAttempts: 4, // the first try plus three retries
  baseDelayMs: 500, // first backoff step when the target gives no hint
  maxDelayMs: 65_000, // one rate-limit minute plus margin; a longer wait is not worth it within one run
  jitterMs: 250, // spread so that parallel workers do not retry in lock-step
}

/** Retry-After is whole seconds (Part 1 section 4.1); an HTTP date is allowed by HTTP and honoured too. */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Exponential step for attempt n (1-based): base, 2 base, 4 base, ... */
export function exponentialDelayMs(attempt: number, base: number = RETRY_DEFAULTS.baseDelayMs): number {
  return base * 2 ** Math.max(0, attempt - 1)
}

/**
 * How long to wait before the next attempt: the longest of what the target promised (Retry-After, the
 * request-bucket reset) and our own backoff, plus jitter, capped. Undefined means: give up.
 */
export function delayBeforeRetryMs(
  attempt: number,
  headers: Record<string, string>,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= RETRY_DEFAULTS.maxAttempts) return undefined
  const promised = Math.max(
    retryAfterMs(headers['retry-after']) ?? 0,
    parseResetMs(headers['x-ratelimit-reset-requests']) ?? 0,
  )
  const wait = Math.max(promised, exponentialDelayMs(attempt)) + random() * RETRY_DEFAULTS.jitterMs
  return wait > RETRY_DEFAULTS.maxDelayMs ? undefined : wait
}
