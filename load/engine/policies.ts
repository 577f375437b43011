/**
 * The retry policies the backoff profile drives against one tier's limit, as small named functions: given the
 * attempt that just failed and its response, how long to wait before the next one, or null to give up.
 */
import type { ClientPolicyName } from '../types.ts'

export interface RetryContext {
  /** 1 for the first attempt. */
  attempt: number
  maxAttempts: number
  status: number
  headers: Record<string, string>
  now: number
  random: () => number
}

export const SPEC7 = {
  maxAttempts: 6, // bounded attempts (section 7): the first try and five retries
  baseDelayMs: 250, // first backoff step when the target gives no Retry-After
  maxDelayMs: 65_000, // one minute's window plus margin
  jitterMs: 500, // random spread so that workers do not come back in lock-step
}

/** Retry-After in milliseconds: whole (or decimal) seconds, or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(headers: Record<string, string>, now: number): number | null {
  const value = headers['retry-after']?.trim()
  if (value === undefined || value === '') return null
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

/**
 * Part 1 section 7's client rules: retry 429 with exponential backoff and random jitter, honour Retry-After,
 * bound the number of attempts. Other statuses are not retried.
 */
export function spec7Delay(c: RetryContext): number | null {
  if (c.status !== 429 || c.attempt >= c.maxAttempts) return null
  const backoff = Math.min(SPEC7.maxDelayMs, SPEC7.baseDelayMs * 2 ** (c.attempt - 1))
  const honoured = retryAfterMs(c.headers, c.now) ?? 0
  return Math.min(SPEC7.maxDelayMs, Math.max(honoured, backoff) + c.random() * SPEC7.jitterMs)
}

/** The naive client: a 429 is retried at once, with no wait, until its (generous) attempt bound. */
export function naiveDelay(c: RetryContext): number | null {
  return c.status === 429 && c.attempt < c.maxAttempts ? 0 : null
}

/**
 * A replay of the official OpenAI Node client's retry policy (openai 7, client.js shouldRetry, retryRequest and
 * calculateDefaultRetryTimeoutMillis): two retries by default; retries 408, 409, 429 and 5xx, or as
 * x-should-retry says; waits retry-after-ms, else Retry-After (seconds or a date), else 0.5 s doubling up to
 * 8 s, less up to 25 % jitter.
 */
export function openAiNodeDelay(c: RetryContext): number | null {
  const retriesRemaining = c.maxAttempts - c.attempt
  if (retriesRemaining <= 0) return null
  const say = c.headers['x-should-retry']
  const retry =
    say === 'true'
      ? true
      : say === 'false'
        ? false
        : c.status === 408 || c.status === 409 || c.status === 429 || c.status >= 500
  if (!retry) return null
  const ms = Number.parseFloat(c.headers['retry-after-ms'] ?? '')
  if (!Number.isNaN(ms) && ms !== 0) return ms
  const retryAfter = c.headers['retry-after']
  if (retryAfter) {
    const seconds = Number.parseFloat(retryAfter)
    return Number.isNaN(seconds) ? Date.parse(retryAfter) - c.now : seconds * 1000
  }
  const numRetries = c.attempt - 1
  const sleepSeconds = Math.min(0.5 * 2 ** numRetries, 8)
  return sleepSeconds * (1 - c.random() * 0.25) * 1000
}

export const POLICIES: Record<
  ClientPolicyName,
  { delay: (c: RetryContext) => number | null; maxAttempts: number; label: string }
> = {
  spec7: {
    delay: spec7Delay,
    maxAttempts: SPEC7.maxAttempts,
    label: 'section 7 client (backoff, jitter, Retry-After, 6 attempts)',
  },
  naive: { delay: naiveDelay, maxAttempts: 1000, label: 'naive client (retries at once)' },
  'openai-node': {
    delay: openAiNodeDelay,
    maxAttempts: 3,
    label: 'openai-node retry policy (2 retries, Retry-After, 0.5-8 s)',
  },
}
