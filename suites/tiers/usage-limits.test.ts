/**
 * The usage endpoints' per-minute limits, tier by tier (Part 1 §8.1), and what a client reads from the rate-limit
 * headers there (§4.1) and from 429s (§7). The reference names no algorithm, so every check is a property that a
 * fixed window, a sliding window and a token bucket all meet (see buckets.ts). For every tier whose key is given,
 * one sequence on GET /user/v1/credit:
 *
 *   drain     calls one after another until the first 429
 *   promise   wait the 429's Retry-After: one call, which must be admitted
 *   rest      wait the reset the last answer announced: calls one after another until the 429: the bucket was
 *             full (at least L admitted), at most L + L·T/minute admitted, remaining told the truth
 *   failed    from rest, one call, k calls refused with 400, then calls until the 429: all of them count (§7)
 *   at once   from rest, more calls than the limit all at once: at most L + L·T/minute admitted
 *
 * The tiers' sequences run side by side (each account has its own buckets); every wait is the one the target
 * announced. Against the embedded gateway the minutes are ten seconds long, so the file is quick; against a remote
 * target it waits real minutes.
 */
import { beforeAll, describe } from 'vitest'
import {
  expectSchema,
  expectSetup,
  expectSuccess,
  expectThat,
  is2xx,
  isRefusal,
  precondition,
  notObserved,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { resetRoundingMs } from '../../harness/duration.ts'
import { usageLimitPerMinute } from '../../harness/limits.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check } from '../../harness/worker/suite.ts'
import { tierOf } from '../shared/tier.ts'
import {
  burstUntil429,
  describeAlgorithm,
  foundFull,
  integerHeader,
  minuteMs,
  mostAdmittedAnySpan,
  mostAdmittedFromRest,
  receivedAt,
  resetMs,
  retryAfterWithinMinute,
  sentAt,
  shownLimit,
  spanMs,
  startPerTier,
  studyFor,
  TIER_SLOTS,
  TIERS_DEFAULTS,
  untilRestMs,
  waitMs,
  type Burst,
  type TierStudies,
  tiersClient,
} from './buckets.ts'

const api = tiersClient()
const PATH = '/user/v1/credit'
/** A call every usage endpoint refuses with 400 whatever else is wrong with the target: hours_ago must be an integer. */
const FAILING_PATH = '/user/v1/transactions?hours_ago=not-a-number'

interface Study {
  slot: KeySlot
  /** account_tier of the first credit record. */
  tier: number
  limit: number
  first: Exchange
  drain: Burst
  /** The call made after waiting the drain's Retry-After, when it had one within a minute. */
  afterRetryAfter?: Exchange
  /** From rest (the announced reset waited): calls one after another until the 429. */
  rest?: Burst
  /** From rest: one call, k failing calls, then calls until the 429. */
  /** `aligned`: begun where the announced reset said the bucket was full again, not a whole minute later. */
  failed?: { first: Exchange; failures: Exchange[]; rest: Burst; k: number; all: Exchange[]; aligned: boolean }
  /** From rest: more calls than the limit, all at once. */
  concurrent?: Burst & { sent: number }
}

let studies: TierStudies<Study> = new Map()

const call = (slot: KeySlot) => () => api.get(PATH, { key: slot, retry429: false })

/** Every sequence but the last goes one call after another: only the last is about concurrency. */
const ONE_BY_ONE = 1

/** Failing calls in the failed sequence: enough that their count shows beside what a minute's refill admits. */
const failuresFor = (limit: number): number => Math.min(limit - 1, Math.max(2, Math.ceil(limit / 5)))

/** One tier's whole sequence; a string says why it could not be made. */
async function study(slot: KeySlot): Promise<Study | string> {
  const first = await call(slot)()
  const body = first.json
  const tier = is2xx(first) && isObject(body) ? body.account_tier : undefined
  if (typeof tier !== 'number' || usageLimitPerMinute(tier) === undefined) {
    if (first.status === 429)
      return `the first call with ${slot} was already refused (429); another client is using this account's usage limit`
    return `GET ${PATH} with ${slot} gave no account_tier from 0 to 5 (status ${first.status})`
  }
  const limit = usageLimitPerMinute(tier)!
  const max = 3 * limit + 3
  const s: Study = { slot, tier, limit, first, drain: await burstUntil429(call(slot), max, ONE_BY_ONE) }
  if (!s.drain.refused) return s

  const retryAfter = retryAfterWithinMinute(s.drain.refused)
  if (retryAfter !== undefined) {
    await waitMs(retryAfter)
    s.afterRetryAfter = await call(slot)()
  }

  // From rest, as the reset alone promised: the test of that promise.
  const last = s.afterRetryAfter ?? s.drain.refused
  await waitMs(untilRestMs(last, 'reset'))
  s.rest = await burstUntil429(call(slot), max, ONE_BY_ONE)
  if (!s.rest.refused) return s

  // Failed calls count too (§7).
  await waitMs(untilRestMs(s.rest.refused))
  const k = failuresFor(limit)
  let opener = await call(slot)()
  // A reset announced too early (P1-8.1-usage-limit-recovers' to judge) leaves the bucket spent: a whole minute
  // frees it under every allowed limiter, though no longer at the start of a window.
  const aligned = opener.status !== 429
  if (!aligned) {
    await waitMs(minuteMs() + TIERS_DEFAULTS.marginMs)
    opener = await call(slot)()
  }
  const failures: Exchange[] = []
  for (let i = 0; i < k; i += 1) failures.push(await api.get(FAILING_PATH, { key: slot, retry429: false }))
  const rest = await burstUntil429(call(slot), max, ONE_BY_ONE)
  s.failed = { first: opener, failures, rest, k, all: [opener, ...failures, ...rest.all], aligned }

  // All at once.
  await waitMs(untilRestMs(rest.refused ?? s.failed.all.at(-1)!))
  // Past the limit by at least six: on a loaded machine the calls' span widens the bound (mostAdmittedFromRest), and
  // a limit of 3 with three over met it once the span passed 9 s, a limiter that admits all at once unseen.
  const sent = limit + Math.max(6, Math.ceil(limit / 2))
  const all = await Promise.all(Array.from({ length: sent }, () => call(slot)()))
  const refused = all.find((ex) => ex.status === 429)
  s.concurrent = { admitted: all.filter((ex) => ex.status !== 429), all, sent, ...(refused ? { refused } : {}) }
  return s
}

beforeAll(() => {
  studies = startPerTier(api, study)
})

const studyOf = (slot: KeySlot) => studyFor(studies, slot)

const options = { timeout: TIERS_DEFAULTS.testTimeoutMs }

/** What a failure says about the bound: the limit, the span and what the bound came to. */
const bound = (limit: number, calls: readonly Exchange[], most: number): string =>
  `at most ${most} admitted: the limit ${limit} plus what ${minuteMs() / 1000} s minutes refill over ${(spanMs(calls) / 1000).toFixed(2)} s (and the ${TIERS_DEFAULTS.restSlackMs} ms the bucket may have rested before)`

describe.each(TIER_SLOTS.map((slot) => [slot]))('usage limits with the %s key (Part 1 §8.1, §4.1, §7)', (slot) => {
  check(
    'P1-8.1-usage-rate-limited',
    `${slot}: the tier's limit is enforced: from rest, at most L + L·T/minute calls`,
    async () => {
      const s = await studyOf(slot)
      if (!s.drain.refused) {
        const most = mostAdmittedAnySpan(s.limit, s.drain.all)
        expectThat(
          s.drain.admitted.length <= most,
          `a 429 once more calls than a limit of ${s.limit} per minute were made (tier ${s.tier}): ${bound(s.limit, s.drain.all, most)}, at the start of no rest`,
          `${s.drain.admitted.length} calls admitted and no 429`,
          s.drain.all.at(-1),
        )
        skipTest(
          `no 429 in ${s.drain.all.length} calls one after another, which took ${(spanMs(s.drain.all) / 1000).toFixed(1)} s: a limit of ${s.limit} per minute allows that many`,
        )
      }
      precondition(s.rest !== undefined, 'P1-8.1-usage-limit-recovers', 'no measurement from rest was made')
      const r = s.rest!
      const most = mostAdmittedFromRest(s.limit, r.admitted)
      expectThat(
        r.admitted.length <= most,
        `from rest, ${bound(s.limit, r.admitted, most)} (tier ${s.tier})`,
        `${r.admitted.length} admitted${r.refused ? ' before the 429' : ' and no 429'}`,
        r.refused ?? r.all.at(-1),
      )
      if (!r.refused)
        skipTest(
          `no 429 in ${r.all.length} calls from rest over ${(spanMs(r.all) / 1000).toFixed(1)} s: within what a limit of ${s.limit} per minute allows`,
        )
      observe(`usage rate limiter (tier ${s.tier})`, describeAlgorithm(s.limit, r, s.drain.refused))
    },
    options,
  )

  check(
    'P1-8.1-usage-limit-recovers',
    `${slot}: after the reset a 429 announced, the bucket is full: at least L calls`,
    async () => {
      const s = await studyOf(slot)
      if (!s.drain.refused)
        skipTest('no 429 was provoked, so there was no reset to wait for (see P1-8.1-usage-rate-limited)')
      precondition(s.rest !== undefined, 'P1-8.1-usage-rate-limited', 'no measurement from rest was made')
      const r = s.rest!
      const waited = resetMs(s.afterRetryAfter ?? s.drain.refused!)
      const opener = r.all[0]!
      expectThat(
        opener.status !== 429,
        `a call admitted after waiting the announced reset (${waited ?? 'absent: a whole minute'} ms)`,
        '429 again',
        opener,
      )
      expectSuccess(opener)
      const before429 = r.refused ? r.all.indexOf(r.refused) : r.all.length
      expectThat(
        before429 >= s.limit,
        `at least ${s.limit} calls (tier ${s.tier}'s limit) admitted one after another before the next 429: the bucket was full again`,
        `${before429} admitted, then 429`,
        r.refused,
      )
    },
    options,
  )

  check(
    'P1-7-retry-after',
    `${slot}: on /user/v1, Retry-After is whole seconds and waiting it is enough`,
    async () => {
      const s = await studyOf(slot)
      if (!s.drain.refused) skipTest('no 429 was provoked (see P1-8.1-usage-rate-limited)')
      const raw = s.drain.refused!.header('retry-after')
      if (raw === undefined) skipTest('the 429 carried no Retry-After (§4.1: it may accompany 429)')
      expectThat(/^\d+$/.test(raw.trim()), 'Retry-After as a whole number of seconds', raw, s.drain.refused)
      if (s.afterRetryAfter === undefined)
        skipTest(`Retry-After ${raw} is longer than a minute; the suite does not wait that long`)
      expectThat(
        s.afterRetryAfter!.status !== 429,
        `a call admitted after waiting Retry-After: ${raw} s`,
        'a 429 again',
        s.afterRetryAfter,
      )
    },
    options,
  )

  check(
    'P1-7-usage-429-body',
    `${slot}: the 429 has error rate_limit_exceeded and a message`,
    async () => {
      const s = await studyOf(slot)
      precondition(s.drain.refused !== undefined, 'P1-8.1-usage-rate-limited', `no 429 was provoked on ${PATH}`)
      expectSchema(s.drain.refused!, 'account/usage-429.json')
    },
    options,
  )

  check(
    'P1-8.1-usage-limit-header',
    `${slot}: x-ratelimit-limit-requests is the tier's §8.1 limit`,
    async () => {
      const s = await studyOf(slot)
      const seen = integerHeader(s.first, 'x-ratelimit-limit-requests')
      expectThat(
        seen === s.limit,
        `x-ratelimit-limit-requests: ${s.limit} (tier ${s.tier})`,
        s.first.header('x-ratelimit-limit-requests') ?? 'absent',
        s.first,
      )
    },
    options,
  )

  check(
    'P1-4.1-ratelimit-remaining',
    `${slot}: remaining tells the truth: within 0..limit, spent by each call, never a 429 while above 0`,
    async () => {
      const s = await studyOf(slot)
      precondition(s.rest !== undefined, 'P1-8.1-usage-limit-recovers', 'no measurement from rest was made')
      const calls = s.rest!.all
      precondition(
        calls[0]!.status !== 429,
        'P1-8.1-usage-limit-recovers',
        'the first call after the announced reset was refused',
      )
      const firstLimit = integerHeader(calls[0]!, 'x-ratelimit-limit-requests')
      const admitted = calls.filter((ex) => ex.status !== 429)
      let previous: { remaining: number; ex: Exchange } | undefined
      for (const [i, ex] of calls.entries()) {
        const remaining = integerHeader(ex, 'x-ratelimit-remaining-requests')
        const limit = integerHeader(ex, 'x-ratelimit-limit-requests')
        precondition(
          remaining !== undefined && limit !== undefined && firstLimit !== undefined,
          'P1-4.1-ratelimit-headers',
          'the request bucket headers are missing or not integers',
        )
        expectThat(
          limit === firstLimit,
          `x-ratelimit-limit-requests constant (${firstLimit})`,
          `${limit} on call ${i + 1}`,
          ex,
        )
        expectThat(
          remaining! <= limit!,
          `remaining at most the limit ${limit}`,
          `remaining ${remaining} on call ${i + 1}`,
          ex,
        )
        // One call after another: nothing else takes from the bucket, which only fills up between two calls.
        if (ex.status === 429 && previous !== undefined) {
          expectThat(
            previous.remaining === 0,
            `no 429 right after an answer that reported remaining above zero`,
            `remaining ${previous.remaining} on call ${i}, then 429 on call ${i + 1}`,
            ex,
          )
        }
        previous = { remaining: remaining!, ex }
      }
      // From rest, each admitted call spends one unit; the bucket refills at most L per minute (+1: whole units).
      // Only from rest: a bucket that still held older calls may free many of them at once (a sliding window).
      precondition(
        foundFull(admitted.slice(0, 1), s.limit),
        'P1-8.1-usage-limit-recovers',
        'the bucket was not full after the announced reset',
      )
      const start = integerHeader(admitted[0]!, 'x-ratelimit-remaining-requests')!
      for (const [i, ex] of admitted.entries()) {
        const remaining = integerHeader(ex, 'x-ratelimit-remaining-requests')!
        const refill = (s.limit * (receivedAt(ex) - sentAt(admitted[0]!) + TIERS_DEFAULTS.restSlackMs)) / minuteMs()
        expectThat(
          remaining < start + 1 - i + refill,
          `remaining below ${start} - ${i} + 1 + ${refill.toFixed(2)} after the ${i + 1}th admitted call: one less per call, plus what the minute refilled`,
          `remaining ${remaining}`,
          ex,
        )
      }
    },
    options,
  )

  check(
    'P1-4.1-ratelimit-reset-window',
    `${slot}: reset of the per-minute request bucket is at most a minute`,
    async () => {
      const s = await studyOf(slot)
      for (const ex of [s.first, ...s.drain.all, ...(s.rest?.all ?? [])]) {
        const ms = resetMs(ex)
        if (ms === undefined) continue // a reset that does not parse is P1-4.1-ratelimit-headers' to report
        expectThat(
          ms <= minuteMs() + resetRoundingMs(ms),
          `x-ratelimit-reset-requests of at most the bucket's minute (${minuteMs() / 1000} s${resetRoundingMs(ms) > 0 ? ', and a second of rounding to whole seconds' : ''})`,
          ex.header('x-ratelimit-reset-requests') ?? '',
          ex,
        )
      }
    },
    options,
  )

  check(
    'P1-7-failed-calls-count',
    `${slot}: calls refused with 400 count toward the limit`,
    async () => {
      const s = await studyOf(slot)
      precondition(
        s.failed !== undefined,
        'P1-8.1-usage-rate-limited',
        'the sequence did not reach its measurement of failed calls',
      )
      const f = s.failed!
      // The bucket after the announced reset is P1-8.1-usage-limit-recovers' to judge; where it was not free, the
      // failed calls cannot be counted from rest, and this run did not meet the rule.
      if (!(f.first.status < 300 && f.failures.every((ex) => ex.status !== 429)))
        notObserved(
          'the calls after the announced reset (P1-8.1-usage-limit-recovers), and a minute later, met a bucket that was not free: the failed calls could not be counted from rest',
        )
      precondition(
        f.failures.every((ex) => isRefusal(ex.status)),
        'P1-4.2-hours-ago-refused',
        'a non-integer hours_ago was not refused (a 4xx), so the calls meant to fail did not',
      )
      if (!f.rest.refused)
        skipTest(
          `no 429 in ${f.all.length} calls from rest over ${(spanMs(f.all) / 1000).toFixed(1)} s: within what a limit of ${s.limit} per minute allows`,
        )
      // Judged against the limit the calls from rest showed, so that a wrong limit is P1-8.1-usage-rate-limited's alone.
      const limit = shownLimit(s.limit, s.rest)
      const counted = [f.first, ...f.failures, ...f.rest.admitted]
      // From rest only where the announced reset left the bucket full (the words tie no header to §8.1's limit);
      // else the bound every allowed limiter meets from any state.
      const fromRest = f.aligned && foundFull(f.all, s.limit)
      const most = fromRest ? mostAdmittedFromRest(limit, counted) : mostAdmittedAnySpan(limit, counted)
      expectThat(
        counted.length <= most,
        `after 1 admitted and ${f.k} failed calls, ${Math.max(0, most - 1 - f.k)} more at most: ${bound(limit, counted, most)}, the failed calls counted`,
        `${f.rest.admitted.length} more admitted, ${counted.length} in all`,
        f.rest.refused,
      )
    },
    options,
  )

  check(
    'P1-8.1-usage-limit-concurrent',
    `${slot}: calls sent all at once are held to the limit as one by one`,
    async () => {
      const s = await studyOf(slot)
      precondition(
        s.concurrent !== undefined,
        'P1-8.1-usage-rate-limited',
        'the sequence did not reach its concurrent measurement',
      )
      const c = s.concurrent!
      // Against the limit that calls one after another showed from rest, as for failed calls; from rest only where
      // the announced reset left the bucket full, else the bound every allowed limiter meets from any state.
      const limit = shownLimit(s.limit, s.rest)
      const most = foundFull(c.all, s.limit) ? mostAdmittedFromRest(limit, c.all) : mostAdmittedAnySpan(limit, c.all)
      expectThat(
        c.admitted.length <= most,
        `of ${c.sent} calls at once, ${bound(limit, c.all, most)}`,
        `${c.admitted.length} admitted`,
        c.admitted.at(-1) ?? c.all[0],
      )
    },
    options,
  )

  check(
    'P1-2.3-rate-limits-current-per-tier',
    `${slot}: extra.rate_limits.current.tier is the key's tier`,
    async () => {
      const s = await studyOf(slot)
      const list = await api.get('/v1/models', { key: slot })
      expectSetup(list, 200, 'the model list of this key, to find a model to retrieve')
      const items = isObject(list.json) && Array.isArray(list.json.data) ? list.json.data : []
      const id = items
        .map((item) => (isObject(item) ? item.id : undefined))
        .find((value): value is string => typeof value === 'string')
      if (id === undefined) skipTest('the model list with this key is empty')
      const model = await api.get(`/v1/models/${encodeURIComponent(id)}`, { key: slot })
      expectSetup(model, 200, 'retrieving a listed model, whose extra.rate_limits.current is judged')
      const body = model.json
      const current =
        isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits)
          ? body.extra.rate_limits.current
          : undefined
      const seen = isObject(current) ? current.tier : undefined
      expectThat(
        tierOf(seen) === s.tier,
        `extra.rate_limits.current.tier ${s.tier} (account_tier of ${PATH} with the same key)`,
        seen === undefined ? 'absent' : JSON.stringify(seen),
        model,
      )
    },
    options,
  )
})
