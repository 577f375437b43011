/**
 * Rate-limit windows as a client sees them (Part 1 §4.1, §7, §8): which tier keys are given, how long to wait for
 * a fresh window, and bursts of calls until the first 429. The tiers family spends requests on purpose, so every
 * call here turns the client's own 429 retry off, and every wait comes from what the target announced, never a
 * fixed sleep.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { isObject } from '../../harness/assert.ts'
import type { KeySlot } from '../../harness/config.ts'
import { parseDurationMs } from '../../harness/duration.ts'
import type { Exchange, GatewayClient } from '../../harness/http-client.ts'
import { retryAfterMs } from '../../harness/retry.ts'
import { skipTest } from '../../harness/recorder.ts'
import { isLoopback } from '../../harness/target.ts'

export const TIER_SLOTS = ['tier0', 'tier1', 'tier2', 'tier3', 'tier4', 'tier5'] as const satisfies readonly KeySlot[]

export const TIERS_DEFAULTS = {
  windowMs: 60_000, // a per-minute limit's window; the longest wait a reset may ask for
  marginMs: 150, // past an announced reset, for the latency of the call that follows
  burstCapLoopback: 600, // most calls one burst may make against a target on this machine
  burstCapRemote: 100, // against anything else: bursts spend the account's real requests (and money)
  testTimeoutMs: 420_000, // a tier's sequence waits up to four windows against a remote target
  batch: 8, // calls in flight at once in a burst: fast enough for a shortened minute, gentle on the target
  windowJitterMs: 1_000, // least tolerance between announced window ends of one window (see sameWindowTolerance)
  resetSlackMs: 50, // a reset may read a few ms later than the one before it (rounding), within one window
  attempts: 3, // measurements of a window that a boundary cut in two before the suite takes what it has
}

/** The most calls a burst may make against this target, and why a larger limit is not measured. */
export function burstCap(baseUrl: string): number {
  return isLoopback(baseUrl) ? TIERS_DEFAULTS.burstCapLoopback : TIERS_DEFAULTS.burstCapRemote
}

export function integerHeader(ex: Exchange, name: string): number | undefined {
  const raw = ex.header(name)?.trim()
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined
}

/** x-ratelimit-reset-requests in milliseconds, when it parses. */
export function resetMs(ex: Exchange): number | undefined {
  return parseDurationMs(ex.header('x-ratelimit-reset-requests'))
}

/**
 * How long until a fresh window, judged from a 429 or any response: the request bucket's reset when it is a
 * plausible per-minute value, else Retry-After, else a whole window. Neither header is trusted past one window:
 * a target announcing longer waits is judged by its own requirement, not waited on for minutes.
 */
export function untilFreshWindowMs(ex: Exchange): number {
  const reset = resetMs(ex)
  const retryAfter = retryAfterMs(ex.header('retry-after'))
  const candidates = [reset, retryAfter].filter((ms): ms is number => ms !== undefined && ms <= TIERS_DEFAULTS.windowMs)
  return (candidates.length > 0 ? Math.max(...candidates) : TIERS_DEFAULTS.windowMs) + TIERS_DEFAULTS.marginMs
}

/**
 * The wait a 429 announces for the request bucket, as P1-8.1-usage-limit-recovers reads it: the reset header,
 * or Retry-After where the reset is absent or longer than a window, or a whole window; plus a little latency.
 */
export function announcedResetMs(ex: Exchange): number {
  const reset = resetMs(ex)
  if (reset !== undefined && reset <= TIERS_DEFAULTS.windowMs) return reset + 50
  const retryAfter = retryAfterMs(ex.header('retry-after'))
  if (retryAfter !== undefined && retryAfter <= TIERS_DEFAULTS.windowMs) return retryAfter + 50
  return TIERS_DEFAULTS.windowMs + 50
}

export async function waitMs(ms: number): Promise<void> {
  await sleep(Math.max(0, ms))
}

export interface Burst {
  /** Calls admitted (not 429) before the first 429, in order. */
  admitted: Exchange[]
  /** The first 429, if one came within the cap. */
  refused?: Exchange
  /** Every exchange of the burst, in order. */
  all: Exchange[]
}

/** Our clock's time at which the request bucket of this response resets, when the response says. */
export function windowEndAt(ex: Exchange): number | undefined {
  const reset = resetMs(ex)
  return reset === undefined ? undefined : ex.record.startedAt + ex.record.durationMs + reset
}

/**
 * How far apart two announced window ends may be and still be one window. Each end is estimated as our arrival
 * time plus the announced reset, so a busy client or network shifts it by its delays; a new window's end lies a
 * whole window later. Half the longest reset seen (about half a window), and at least TIERS_DEFAULTS.windowJitterMs.
 */
function sameWindowTolerance(exchanges: readonly Exchange[]): number {
  const resets = exchanges.map(resetMs).filter((ms): ms is number => ms !== undefined)
  return Math.max(TIERS_DEFAULTS.windowJitterMs, resets.length > 0 ? Math.max(...resets) / 2 : 0)
}

/**
 * Whether these calls met more than one window of their bucket: the reset times they announce differ by more
 * than delays can explain. A burst that a window boundary cut in two proves nothing about the limit, and is
 * measured again in the next window. Targets that announce no reset cannot be told apart and are taken as is.
 */
export function straddles(exchanges: readonly Exchange[]): boolean {
  const ends = exchanges.map(windowEndAt).filter((at): at is number => at !== undefined)
  return ends.length > 1 && Math.max(...ends) - Math.min(...ends) > sameWindowTolerance(exchanges)
}

/**
 * The calls of `all` that met the same window as `refused` (the first 429): that window began with one of our
 * calls (every measurement starts after a fresh window), so its admitted calls are the exact count even when the
 * burst as a whole was cut by a window boundary. A target that announces no reset cannot be split, and is taken
 * whole.
 */
export function sameWindowAs(refused: Exchange, all: readonly Exchange[]): Exchange[] {
  const end = windowEndAt(refused)
  if (end === undefined) return [...all]
  const tolerance = sameWindowTolerance([refused, ...all])
  return all.filter((ex) => {
    const at = windowEndAt(ex)
    return at === undefined || Math.abs(at - end) <= tolerance
  })
}

/**
 * The calls grouped by the window they met (announced window ends within the tolerance of each other), oldest
 * first. Calls that announce no reset join the group before them.
 */
export function byWindow(exchanges: readonly Exchange[]): Exchange[][] {
  const tolerance = sameWindowTolerance(exchanges)
  const groups: Array<{ end: number | undefined; calls: Exchange[] }> = []
  for (const ex of exchanges) {
    const at = windowEndAt(ex)
    const group = groups.find((g) => at === undefined || g.end === undefined || Math.abs(g.end - at) <= tolerance)
    if (group) {
      group.calls.push(ex)
      group.end ??= at
    } else {
      groups.push({ end: at, calls: [ex] })
    }
  }
  return groups.map((g) => g.calls)
}

/**
 * A burst that met no 429: proof that the limit is not enforced only where one window admitted more than the
 * limit; otherwise (every window was cut short by its boundary, on a slow machine or link) it proves nothing.
 */
export function overLimitWindow(burst: Burst, limit: number, sequential = false): Exchange[] | undefined {
  const windows = (sequential ? windowsByRemaining(burst.all) : undefined) ?? byWindow(burst.all)
  return windows.find((calls) => calls.filter((ex) => ex.status !== 429).length > limit)
}

/**
 * Calls made one after another, split where a new window began: where x-ratelimit-remaining-requests rises, or
 * where x-ratelimit-reset-requests rises (within a window it only falls). Either signal alone is enough, so a
 * target whose remaining count or whose reset is wrong is still split right by the other. Undefined when a call
 * carries neither header in a readable form.
 */
export function windowsByRemaining(sequential: readonly Exchange[]): Exchange[][] | undefined {
  const windows: Exchange[][] = []
  let previous: { remaining?: number; reset?: number } | undefined
  for (const ex of sequential) {
    const remaining = integerHeader(ex, 'x-ratelimit-remaining-requests')
    const reset = resetMs(ex)
    if (remaining === undefined && reset === undefined) return undefined
    const rose = (now: number | undefined, before: number | undefined, slack: number) => now !== undefined && before !== undefined && now > before + slack
    if (previous === undefined || rose(remaining, previous.remaining, 0) || rose(reset, previous.reset, TIERS_DEFAULTS.resetSlackMs)) windows.push([])
    windows.at(-1)!.push(ex)
    previous = { ...(remaining === undefined ? {} : { remaining }), ...(reset === undefined ? {} : { reset }) }
  }
  return windows
}

/**
 * A burst narrowed to the window of its first 429; without a 429 it is usable only if no boundary cut it.
 * Sequential bursts are split by the remaining count where the target gives it, others by the announced reset.
 */
export function narrowed(burst: Burst, sequential = false): Burst & { straddled: boolean } {
  const byRemaining = sequential ? windowsByRemaining(burst.all) : undefined
  if (!burst.refused) return { ...burst, straddled: byRemaining ? byRemaining.length > 1 : straddles(burst.all) }
  // Calls made at once in a fresh window: if no two admitted calls read the same remaining, no second window
  // began among them (its first call would read the limit less one again). That holds even where the reset
  // header is wrong, which would scatter the announced window ends of calls that a busy client received late.
  if (!sequential && distinctRemaining(burst.admitted)) return { ...burst, straddled: false }
  const all = byRemaining ? byRemaining.at(-1)! : sameWindowAs(burst.refused, burst.all)
  return { admitted: all.filter((ex) => ex.status !== 429), refused: burst.refused, all, straddled: false }
}

/** Every call read a whole-number remaining, and no two read the same. */
function distinctRemaining(calls: readonly Exchange[]): boolean {
  const values = calls.map((ex) => integerHeader(ex, 'x-ratelimit-remaining-requests'))
  return values.every((v) => v !== undefined) && new Set(values).size === values.length
}

/**
 * Measures one whole window: waits for a fresh one after `after`, then `run`s; when the run is not `usable`
 * (a window boundary cut it in a way narrowing cannot mend), waits and runs again, at most
 * `TIERS_DEFAULTS.attempts` times.
 */
export async function inOneWindow<T extends { all: Exchange[] }>(after: Exchange, run: () => Promise<T>, usable: (result: T) => boolean = (r) => !straddles(r.all)): Promise<T & { straddled: boolean }> {
  let last: Exchange = after
  for (let attempt = 1; ; attempt += 1) {
    await waitMs(untilFreshWindowMs(last))
    const result = await run()
    const ok = usable(result)
    if (ok || attempt >= TIERS_DEFAULTS.attempts) return { ...result, straddled: !ok }
    last = result.all.at(-1) ?? last
  }
}

/** Measures a burst until its 429 in a fresh window, narrowed to that 429's window. */
export async function burstInFreshWindow(after: Exchange, run: () => Promise<Burst>, sequential = false): Promise<Burst & { straddled: boolean }> {
  return inOneWindow(after, async () => narrowed(await run(), sequential), (b) => !b.straddled)
}

/** What a test says when every measurement of a window was cut by a window boundary: nothing was proven. */
export const STRADDLED = `every measurement was cut in two by a window boundary (${TIERS_DEFAULTS.attempts} tries): the calls took longer than the target's window, so the count proves nothing`

/** Calls per batch for a limit: small, and at most about twenty batches to a window. */
export function batchFor(limit: number): number {
  return Math.max(TIERS_DEFAULTS.batch, Math.ceil(limit / 20))
}

/**
 * Calls in small concurrent batches until a batch brings a 429, at most `max` calls. Batches keep a burst well
 * inside one window even on a busy machine (one call after another can take longer than a shortened minute);
 * every call of the batch that met the limit is counted, so the count of admitted calls stays exact.
 */
export async function burstUntil429(call: () => Promise<Exchange>, max: number, batch: number = batchFor(max)): Promise<Burst> {
  const all: Exchange[] = []
  while (all.length < max) {
    const size = Math.min(batch, max - all.length)
    const results = await Promise.all(Array.from({ length: size }, () => call()))
    all.push(...results)
    const refused = results.find((ex) => ex.status === 429)
    if (refused) return { admitted: all.filter((ex) => ex.status !== 429), refused, all }
  }
  return { admitted: all, all }
}

/** `error.type`, `param`, `code` and `message` of a compatible error body, as far as they are there. */
export function compatibleErrorOf(ex: Exchange): Record<string, unknown> | undefined {
  const body = ex.json
  return isObject(body) && isObject(body.error) ? body.error : undefined
}

/** A study per tier whose key is given: its result, or a string saying why it could not be made. */
export type TierStudies<T> = Map<KeySlot, Promise<T | string>>

/**
 * Starts `study` for every tier whose key is given, all at once (each account has its own buckets), so that the
 * file's tests, which await them in turn, take as long as the slowest tier rather than the sum.
 */
export function startPerTier<T>(gw: GatewayClient, study: (slot: KeySlot) => Promise<T | string>): TierStudies<T> {
  const studies: TierStudies<T> = new Map()
  for (const slot of TIER_SLOTS) {
    if (!gw.hasKey(slot)) continue
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
