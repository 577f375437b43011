/**
 * Reading the rate-limit headers of Part 1 section 4.1 off one response, whatever the case of their names (the
 * load engines hand over raw header lists). A value that is present but not a number (or, for reset, not a
 * duration or bare seconds) is `unparsable`, which the headers verdict counts.
 */
import { parseResetMs } from '../../harness/duration.ts'
import { retryAfterMs } from '../../harness/worker/retry.ts'
import type { BucketName } from '../types.ts'

export interface BucketReading {
  limit: number | null
  remaining: number | null
  resetMs: number | null
  /** One of the three headers is absent. */
  missing: boolean
  /** One of the three headers is present but does not parse (remaining below zero included). */
  unparsable: boolean
  negative: boolean
}

/** Lower-cases names; a repeated header keeps its first value (a proxy that doubles one is not our concern here). */
export function normalizeHeaders(
  raw: readonly string[] | Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {}
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = String(raw[i]).toLowerCase()
      if (!(name in out)) out[name] = String(raw[i + 1])
    }
    return out
  }
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue
    const lower = name.toLowerCase()
    if (!(lower in out)) out[lower] = Array.isArray(value) ? String(value[0]) : String(value)
  }
  return out
}

const INTEGER = /^-?\d+$/

export function readBucket(headers: Record<string, string>, bucket: BucketName): BucketReading {
  const limitText = headers[`x-ratelimit-limit-${bucket}`]
  const remainingText = headers[`x-ratelimit-remaining-${bucket}`]
  const resetText = headers[`x-ratelimit-reset-${bucket}`]
  const missing = limitText === undefined || remainingText === undefined || resetText === undefined
  const limit = limitText !== undefined && INTEGER.test(limitText.trim()) ? Number(limitText) : null
  const remaining = remainingText !== undefined && INTEGER.test(remainingText.trim()) ? Number(remainingText) : null
  // A time until reset in any form the reference allows (§4.1 gives one as a sample): a duration or bare seconds.
  const resetMs = parseResetMs(resetText) ?? null
  const negative = remaining !== null && remaining < 0
  const unparsable =
    (limitText !== undefined && limit === null) ||
    (remainingText !== undefined && remaining === null) ||
    (resetText !== undefined && resetMs === null) ||
    negative
  return { limit, remaining, resetMs, missing, unparsable, negative }
}

/** Retry-After in milliseconds (whole seconds, or an HTTP date), or null. */
export function readRetryAfterMs(headers: Record<string, string>, now: number): number | null {
  return retryAfterMs(headers['retry-after'], now) ?? null
}
