/** Rules of the hooks every call passes: auth, request ids (headers) and rate limits (tiers; account's usage limit). */
import { setTimeout as sleep } from 'node:timers/promises'
import type { AccountFault } from '../account/faults.ts'
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { AuthFault } from './auth-faults.ts'
import type { HeadersFault } from './headers-faults.ts'
import type { TiersFault } from './tiers-faults.ts'
import { formatGoDuration } from '../go-duration.ts'
import type { BucketReading, RateLimiter } from '../limiter.ts'

/** The tiers family's rule that model routes read. */
export type TierRules = Readonly<ReturnType<typeof tierRules>>

export function tierRules(faults: FaultSet) {
  const bent = bentBy<TiersFault>(faults)
  return {
    // Section 1.5: a model is usable from its min_tier up; the fault serves every model to every tier.
    checkMinTier: !bent('min-tier-ignored'),
  }
}

/** The auth family's rules, read by the auth hook. */
export type AuthRules = Readonly<ReturnType<typeof authRules>>

export function authRules(faults: FaultSet) {
  const bent = bentBy<AuthFault>(faults)
  return {
    // Section 5.1: routes with auth 'none' (/public/models) take no key; the fault requires one.
    openPublicRoutes: !bent('public-models-needs-auth'),
    // Section 5.3: x-api-key is a key on the model endpoints; the fault refuses it.
    takeApiKeyHeader: !bent('x-api-key-refused'),
    // Section 5.1: a /v1 call without a key is refused; the fault serves it as the main account.
    serveKeylessV1: bent('missing-key-allowed'),
    // Section 7: a suspended account is refused on /user/v1 and on /v1; each fault serves it on one of them.
    refuseSuspendedOnUsage: !bent('suspended-usage-allowed'),
    refuseSuspendedOnV1: !bent('suspended-v1-allowed'),
    // Section 5.2: Bearer is taken on every route; the fault refuses it on GET /user/v1/transactions.
    bearerOnTransactions: !bent('bearer-refused-on-transactions'),
    // Section 5.5: the /user/v1 401 has the usage body; the fault answers { error: { code, message } }.
    usage401Body: !bent('usage-401-wrong-body'),
  }
}

/** The headers family's rules, read by the request-id hooks. */
export type RequestIdRules = Readonly<ReturnType<typeof requestIdRules>>

export function requestIdRules(faults: FaultSet) {
  const bent = bentBy<HeadersFault>(faults)
  return {
    // Section 4.1: ids are UUID v7; the fault mints random v4 ids.
    idVersion: bent('svc-request-id-v4') ? 4 : 7,
    // A v7 id carries the gateway clock's time (null); the fault stamps every id with 2020-01-01.
    idTimeMs: bent('svc-request-id-stale') ? Date.UTC(2020, 0, 1) : null,
    // X-Client-Request-Id never becomes the id; the fault takes a valid UUID in it as the id.
    echoClientId: bent('echo-client-request-id'),
    // Every response has an id of its own; the fault gives every error one id minted at start-up.
    reuseErrorId: bent('svc-request-id-reused-on-errors'),
  }
}

/** Counts one request against a bucket and reads it. */
export type Counter = (key: string, limit: number) => BucketReading | Promise<BucketReading>

/**
 * The tiers family's rules (and the account family's usage limit, and the headers family's reset format), read by
 * the rate-limit hooks.
 */
export type RateLimitRules = Readonly<ReturnType<typeof rateLimitRules>>

export function rateLimitRules(faults: FaultSet) {
  const bent = bentBy<TiersFault | AccountFault | HeadersFault>(faults)
  return {
    // Section 8.1: check and count are one synchronous step; the fault reads, waits a store's round trip, then counts.
    requestCounter: bent('limiter-race') ? racingCounter : exactCounter,
    // Section 8.1: the usage limit is the table's; the fault admits one call more (and reports the table's).
    usageCounter: bent('usage-limit-off-by-one') ? offByOneCounter : sameCounter,
    // Section 8.1: each account has its own usage bucket; the fault counts every account against one.
    usageBucketPerAccount: !bent('usage-bucket-shared'),
    // Section 8.1: /user/v1 is limited; the fault never refuses it (it still counts and reports).
    limitUsage: !bent('usage-limit-off'),
    // Section 7: a /user/v1 429 has the usage body; the fault answers the compatible one.
    usage429Body: !bent('usage-429-wrong-body'),
    // Section 7: a compatible 429 is a rate_limit_error (the status's type); the fault says invalid_request_error.
    compatible429Details: bent('compatible-429-wrong-type') ? { type: 'invalid_request_error' } : {},
    // Section 7: Retry-After is the whole seconds until a call is admitted; the fault gives half, less one.
    retryAfter: bent('retry-after-too-short') ? halvedLessOne : sameSeconds,
    // A spent --route-limit bucket is a 429 as every limit; the fault answers 503 without Retry-After.
    routeLimitStatus: bent('route-limit-503') ? 503 : 429,
    // Section 8.3: a model's requests and tokens per minute refuse a call; each fault only counts its own.
    checkModelRpm: !bent('model-rpm-unchecked'),
    checkModelTpm: !bent('model-tpm-unchecked'),
    // Section 8.3: a model's limits are the organization's, shared by all its keys; the fault pools them per key.
    modelPoolPerKey: bent('model-limits-per-key'),
    // Section 7: failed calls count against the request limit; the fault takes them back out.
    countFailedCalls: !bent('failed-calls-not-counted'),
    // Section 4.1: x-ratelimit-reset-* give the time left; the faults give the Unix time of the reset, a quarter
    // of the time, or 90 s more.
    resetHeader: bent('ratelimit-reset-epoch')
      ? resetEpoch
      : bent('ratelimit-reset-short')
        ? resetQuarter
        : bent('ratelimit-reset-over-minute')
          ? resetPlus90s
          : undefined,
  }
}

/** Checks and counts in one synchronous step: N concurrent calls against a limit L admit exactly L. */
function exactCounter(limiter: RateLimiter): Counter {
  return (key, limit) => limiter.take(key, limit, 1)
}

/** A shared counter's round trip: long enough that calls sent together overlap even on a loaded machine. */
const RACE_WINDOW_MS = 250

/**
 * `limiter-race`: checks, then counts once the key has had no new call for a store's round trip, so every call of
 * a burst reads the bucket as it was before the burst, however far apart a loaded machine delivers them. Only the
 * admissions race: a call the stale read would refuse is checked and counted as it stands, so a refusal takes
 * nothing and its Retry-After is true.
 */
function racingCounter(limiter: RateLimiter): Counter {
  const lastRead = new Map<string, number>()
  return async (key, limit) => {
    const before = limiter.read(key, limit)
    lastRead.set(key, performance.now())
    for (;;) {
      const quiet = RACE_WINDOW_MS - (performance.now() - (lastRead.get(key) as number))
      if (quiet <= 0) break
      await sleep(quiet)
    }
    if (before.remaining < 1) return limiter.take(key, limit, 1)
    return { ...limiter.take(key, limit, 1), admitted: true }
  }
}

function sameCounter(count: Counter): Counter {
  return count
}

/** `usage-limit-off-by-one`: admits one call more than the table while reporting the table's limit. */
function offByOneCounter(count: Counter): Counter {
  return async (key, limit) => {
    const reading = await count(key, limit + 1)
    return { ...reading, limit, remaining: Math.max(0, reading.remaining - 1) }
  }
}

function sameSeconds(seconds: number): number {
  return seconds
}

function halvedLessOne(seconds: number): number {
  return Math.max(0, Math.floor(seconds / 2) - 1)
}

function resetEpoch(resetAt: number): string {
  return String(Math.ceil(resetAt / 1000))
}

function resetQuarter(resetAt: number, nowMs: number): string {
  return formatGoDuration((resetAt - nowMs) / 4)
}

function resetPlus90s(resetAt: number, nowMs: number): string {
  return formatGoDuration(resetAt - nowMs + 90_000)
}
