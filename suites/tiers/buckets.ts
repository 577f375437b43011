/**
 * Rate-limit buckets as a client sees them (Part 1 §4.1, §7, §8). The reference says "per minute" and names no
 * algorithm: a fixed window, a sliding window and a token bucket all conform. So every judgement here is a
 * property that holds for each of them, measured from rest (after waiting the reset a 429 announced: the time
 * until the bucket is full again):
 *
 * - no early throttle: from rest, at least L calls are admitted before the first 429;
 * - long-run bound: from rest, over a span T, at most L + L·T/minute calls are admitted (a fixed window admits L,
 *   a sliding window L per minute, a token bucket L plus its refill; a leak admits more);
 * - promises kept: a call after the announced Retry-After is admitted; a call is never refused while the answer
 *   before it reported remaining above zero.
 *
 * What only some algorithms show (exactly L, remaining falling by exactly one) is reported as an observation of
 * the algorithm the target seems to use. The tiers family spends requests on purpose, so every call here turns the
 * client's own 429 retry off, and every wait comes from what the target announced, never a fixed sleep.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent } from 'undici'
import { isObject } from '../../common/json.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import type { KeySlot } from '../../harness/keys.ts'
import { parseResetMs, RESET_LIMIT_MS } from '../../harness/duration.ts'
import { TargetClient, type Exchange } from '../../harness/worker/http-client.ts'
import { retryAfterMs } from '../../harness/worker/retry.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { perFile, runConfig } from '../../harness/worker/suite.ts'
import { isLoopback } from '../../harness/setup/target.ts'

export const TIER_SLOTS = ['tier0', 'tier1', 'tier2', 'tier3', 'tier4', 'tier5'] as const satisfies readonly KeySlot[]

/**
 * The tier to judge a key's limits at: its slot's (GATEWAY_API_KEY_TIER<N> holds a key of a tier-N account), once the
 * tier the key's model records report (extra.rate_limits.current, §2.3) agrees. Where the two differ, the key or the
 * report is wrong, and limits judged at either tier could fail a requirement that holds: a string says why, for a skip.
 */
export function agreedTier(slot: KeySlot, reported: number | undefined): number | string {
  if (reported === undefined) return 'extra.rate_limits.current of a model retrieved with this key gives no tier'
  const configured = (TIER_SLOTS as readonly KeySlot[]).indexOf(slot)
  if (reported === configured) return configured
  return `needs P1-2.3-rate-limits-current-per-tier, which does not hold here: extra.rate_limits.current reports tier ${reported} for the key of GATEWAY_API_KEY_${slot.toUpperCase()}; either that key is not a tier-${configured} account's or the report is wrong`
}

export const TIERS_DEFAULTS = {
  marginMs: 150, // past an announced wait, for the latency of the call that follows
  // How long before our first call a bucket may already have been at rest: the margin above, and a reset rounded up
  // to whole seconds. A fixed window aligned to the clock may have begun that much earlier.
  restSlackMs: 1_150,
  burstCapLoopback: 600, // most calls one burst may make against a target on this machine
  burstCapRemote: 100, // against anything else: bursts spend the account's real requests (and money)
  testTimeoutMs: 420_000, // a tier's sequence waits several minutes against a remote target
  batch: 8, // calls in flight at once in a burst: fast enough for a shortened minute, gentle on the target
  connections: 64, // per origin: the largest batch (burstCapLoopback / 10) in flight at once
}

/** The period of a per-minute bucket: a real minute, unless the target's was shortened (embedded, GATEWAY_MINUTE_MS). */
export function minuteMs(): number {
  return runConfig().minuteMs ?? DEFAULTS.realMinuteMs
}

/** The most calls a burst may make against this target, and why a larger limit is not measured. */
export function burstCap(baseUrl: string): number {
  return isLoopback(baseUrl) ? TIERS_DEFAULTS.burstCapLoopback : TIERS_DEFAULTS.burstCapRemote
}

export function integerHeader(ex: Exchange, name: string): number | undefined {
  const raw = ex.header(name)?.trim()
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined
}

/**
 * x-ratelimit-reset-requests in milliseconds, in any form it parses in (§4.1's "a number followed by s" is a sample:
 * bare seconds and durations such as 6m0s or 12.5s too); undefined where it does not, or reads as more than a day,
 * which is no time until reset (a Unix time), for P1-4.1-ratelimit-headers to report.
 */
export function resetMs(ex: Exchange): number | undefined {
  const ms = parseResetMs(ex.header('x-ratelimit-reset-requests'))
  return ms !== undefined && ms <= RESET_LIMIT_MS ? ms : undefined
}

export const sentAt = (ex: Exchange): number => ex.excerpt.startedAt
export const receivedAt = (ex: Exchange): number => ex.excerpt.startedAt + ex.excerpt.durationMs

/**
 * How long until the bucket is at rest (full again), judged from any answer: its reset, or a whole minute where
 * the reset is absent or longer (a longer wait is judged by its own requirement, not waited on). `reset` trusts the
 * reset alone, for the test of that promise; otherwise the longer of the reset and Retry-After, so that a reset
 * announced too early (another requirement's failure) does not cut the measurements that only need rest.
 */
export function untilRestMs(ex: Exchange, trust: 'reset' | 'both' = 'both'): number {
  const minute = minuteMs()
  const within = (ms: number | undefined): number | undefined => (ms !== undefined && ms <= minute ? ms : undefined)
  const reset = within(resetMs(ex)) ?? minute
  const retryAfter = trust === 'both' ? (within(retryAfterMs(ex.header('retry-after'))) ?? 0) : 0
  return Math.max(reset, retryAfter) + TIERS_DEFAULTS.marginMs
}

/**
 * Whether calls made from rest found the bucket full: the highest remaining any of them reported is the limit less
 * one (what every algorithm reports after the first call into a full bucket). Calls without the header cannot tell,
 * and are taken as full; the remaining header's truth is P1-4.1-ratelimit-remaining's to judge.
 */
export function foundFull(calls: readonly Exchange[], limit: number): boolean {
  const values = calls
    .filter((ex) => ex.status !== 429)
    .map((ex) => integerHeader(ex, 'x-ratelimit-remaining-requests'))
    .filter((v): v is number => v !== undefined)
  return values.length === 0 || Math.max(...values) >= limit - 1
}

/** The Retry-After of a 429 in milliseconds, when it is there and at most a minute (longer is not waited on). */
export function retryAfterWithinMinute(ex: Exchange): number | undefined {
  const ms = retryAfterMs(ex.header('retry-after'))
  return ms !== undefined && ms <= minuteMs() ? ms : undefined
}

export async function waitMs(ms: number): Promise<void> {
  await sleep(Math.max(0, ms))
}

export interface Burst {
  /** Calls admitted (not 429), in order: those before the first 429 and any of its batch. */
  admitted: Exchange[]
  /** The first 429, if one came within the cap. */
  refused?: Exchange
  /** Every exchange of the burst, in order. */
  all: Exchange[]
}

function burstOf(all: Exchange[]): Burst {
  const refused = all.find((ex) => ex.status === 429)
  return { admitted: all.filter((ex) => ex.status !== 429), all, ...(refused ? { refused } : {}) }
}

/** Calls per batch for a limit: small, and at most about ten batches to a minute's limit. */
function batchFor(limit: number): number {
  return Math.max(TIERS_DEFAULTS.batch, Math.ceil(limit / 10))
}

/**
 * The family's client: the suites' own, but with connections enough for a burst's batch, so that a limit of
 * hundreds is reached within a minute even when every answer takes a few hundred milliseconds.
 */
export const tiersClient = perFile(
  () => new TargetClient(runConfig(), new Agent({ connections: TIERS_DEFAULTS.connections, allowH2: false })),
)

/**
 * Calls until one brings a 429, at most `max`, in concurrent batches of `batch` (1: one after another). Every call
 * of the batch that met the limit is counted, so the count of admitted calls stays exact.
 */
export async function burstUntil429(
  call: () => Promise<Exchange>,
  max: number,
  batch: number = batchFor(max),
): Promise<Burst> {
  const all: Exchange[] = []
  while (all.length < max) {
    const size = Math.min(batch, max - all.length)
    const results = await Promise.all(Array.from({ length: size }, () => call()))
    all.push(...results)
    if (results.some((ex) => ex.status === 429)) return burstOf(all)
  }
  return { admitted: all, all }
}

/** From the first call's send to the last one's answer: the span in which the target admitted them. */
export function spanMs(calls: readonly Exchange[]): number {
  if (calls.length === 0) return 0
  return Math.max(...calls.map(receivedAt)) - Math.min(...calls.map(sentAt))
}

/**
 * The long-run bound: the most calls any allowed limiter of `limit` per minute admits from rest over the span of
 * these calls, L + L·T/minute, T widened by the time the bucket may have been at rest before the first call.
 */
export function mostAdmittedFromRest(limit: number, calls: readonly Exchange[]): number {
  return Math.floor(limit + (limit * (spanMs(calls) + TIERS_DEFAULTS.restSlackMs)) / minuteMs())
}

/**
 * The limit a burst from rest showed: what it admitted less what the minute could have refilled meanwhile, and at
 * least the table's. Checks of something else than the limit (failed calls, concurrency) compare against it, so that
 * a wrong limit is reported once, by the requirement of the limit.
 */
export function shownLimit(limit: number, fromRest: Burst | undefined): number {
  if (fromRest === undefined) return limit
  const refill = Math.floor((limit * spanMs(fromRest.admitted)) / minuteMs())
  return Math.max(limit, fromRest.admitted.length - refill)
}

/** The same bound for calls that did not start from rest: a fixed window may admit L at the end of one and L more. */
export function mostAdmittedAnySpan(limit: number, calls: readonly Exchange[]): number {
  return limit + mostAdmittedFromRest(limit, calls)
}

/** `error.type`, `param`, `code` and `message` of a compatible error body, as far as they are there. */
export function compatibleErrorOf(ex: Exchange): Record<string, unknown> | undefined {
  const body = ex.json
  return isObject(body) && isObject(body.error) ? body.error : undefined
}

/**
 * Which algorithm a burst from rest suggests, for an observation: never a verdict. Exactly L admitted with
 * remaining falling by one per call is what a fixed or sliding window shows over less than a minute; more than
 * L is a bucket that refills while it is used.
 */
export function describeAlgorithm(limit: number, burst: Burst, retryAfter: Exchange | undefined): string {
  const admitted = burst.admitted.length
  const seconds = (spanMs(burst.admitted) / 1000).toFixed(1)
  const parts = [
    admitted > limit
      ? `${admitted} admitted from rest over ${seconds} s against a limit of ${limit}: the bucket refills while in use (a token bucket or GCRA)`
      : `${admitted} admitted from rest over ${seconds} s, then 429: no refill seen within the burst (a fixed or sliding window, or a slow refill)`,
  ]
  const reset = retryAfter ? resetMs(retryAfter) : undefined
  const wait = retryAfter ? retryAfterMs(retryAfter.header('retry-after')) : undefined
  if (reset !== undefined && wait !== undefined) {
    parts.push(
      wait + 1_000 < reset
        ? `its 429 asked to wait ${wait / 1000} s for one call and ${(reset / 1000).toFixed(1)} s for the bucket to be full: admission comes back before the whole limit does`
        : `its 429 asked to wait ${wait / 1000} s, about the ${(reset / 1000).toFixed(1)} s until the bucket is full: the whole limit comes back at once (a fixed window)`,
    )
  }
  return parts.join('; ')
}

/** A study per tier whose key is given: its result, or a string saying why it could not be made. */
export type TierStudies<T> = Map<KeySlot, Promise<T | string>>

/**
 * Starts `study` for every tier whose key is given, all at once (each account has its own buckets), so that the
 * file's tests, which await them in turn, take as long as the slowest tier rather than the sum.
 */
export function startPerTier<T>(api: TargetClient, study: (slot: KeySlot) => Promise<T | string>): TierStudies<T> {
  const studies: TierStudies<T> = new Map()
  for (const slot of TIER_SLOTS) {
    if (!api.hasKey(slot)) continue
    const running = study(slot)
    // Awaited by the tests; a rejection must not become an unhandled one before they do.
    running.catch(() => undefined)
    studies.set(slot, running)
  }
  return studies
}

/** A tier's study for a test, or a skip saying which key is missing or why the study could not be made. */
export async function studyFor<T>(studies: TierStudies<T>, slot: KeySlot): Promise<T> {
  const running = studies.get(slot)
  if (running === undefined) skipTest(`no key for ${slot}: set GATEWAY_API_KEY_${slot.toUpperCase()}`)
  const result = await running
  if (typeof result === 'string') skipTest(result)
  return result
}
