/**
 * The usage endpoints' per-minute limits, tier by tier (Part 1 §8.1), and what a client reads from the rate-limit
 * headers there (§4.1) and from 429s (§7). For every tier whose key is given, one sequence of windows on
 * GET /user/v1/credit:
 *
 *   drain     calls until the first 429, so that the next window is known to be fresh
 *   window 1  after the announced reset: the first call must be admitted (recovery), then calls until the 429:
 *             exactly the tier's limit admitted, remaining counting down by one, the 429 in the /user/v1 body
 *   window 2  one call, k calls refused with 400, then calls until the 429: window 1's count - 1 - k admitted (§7)
 *   window 3  more calls than the limit, all at once: as many admitted as in window 1, one by one
 *
 * Windows 1 and 2 go one call after another. A burst that a window boundary cut (the calls took longer than the
 * window) is counted in the window of its first 429, which began with one of our calls; where no window saw its
 * 429 the measurement is made again, and if every try is cut, the test is skipped as unproven rather than failed.
 *
 * The tiers' sequences run side by side (each account has its own buckets); every wait is the one the target
 * announced. Against the embedded gateway (5-second minutes) the file takes about 20 s; against a remote target
 * about four real minutes.
 */
import { beforeAll, describe } from 'vitest'
import { expectSchema, expectStatus, expectThat, isObject, precondition } from '../../harness/assert.ts'
import type { KeySlot } from '../../harness/config.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { usageLimitPerMinute } from '../../harness/limits.ts'
import { skipTest } from '../../harness/recorder.ts'
import { check, gateway } from '../../harness/suite.ts'
import { announcedResetMs, burstInFreshWindow, burstUntil429, inOneWindow, narrowed, overLimitWindow, straddles, windowsByRemaining, integerHeader, resetMs, startPerTier, STRADDLED, studyFor, TIER_SLOTS, TIERS_DEFAULTS, waitMs, type Burst, type TierStudies } from './windows.ts'

const gw = gateway()
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
  /** The first call after waiting the reset the drain's 429 announced. */
  recovery?: Exchange
  /** Window 1: every call from its first admitted one to its 429. */
  window?: Burst & { straddled: boolean }
  /** Window 2. */
  failed?: { first: Exchange; failures: Exchange[]; rest: Burst; k: number; all: Exchange[]; straddled: boolean }
  /** Window 3. */
  concurrent?: { admitted: number; sent: number; all: Exchange[]; straddled: boolean }
}

let studies: TierStudies<Study> = new Map()

const call = (slot: KeySlot) => () => gw.get(PATH, { key: slot, retry429: false })

/** Every window but the last is measured one call after another: only window 3 is about concurrency. */
const ONE_BY_ONE = 1

/** One tier's whole sequence; a string says why it could not be made. */
async function study(slot: KeySlot): Promise<Study | string> {
  const first = await call(slot)()
  const body = first.json
  const tier = first.status === 200 && isObject(body) ? body.account_tier : undefined
  if (typeof tier !== 'number' || usageLimitPerMinute(tier) === undefined) {
    if (first.status === 429) return `the first call with ${slot} was already refused (429); another client is using this account's usage limit`
    return `GET ${PATH} with ${slot} gave no account_tier from 0 to 5 (status ${first.status})`
  }
  const limit = usageLimitPerMinute(tier)!
  const s: Study = { slot, tier, limit, first, drain: await burstUntil429(call(slot), 3 * limit + 3, ONE_BY_ONE) }
  if (!s.drain.refused) return s

  // Window 1: wait what the 429 announced (the reset header where plausible): the first call is the recovery.
  await waitMs(announcedResetMs(s.drain.refused))
  s.recovery = await call(slot)()
  const measure = async (): Promise<Burst> => {
    const opener = await call(slot)()
    if (opener.status === 429) return { admitted: [], refused: opener, all: [opener] }
    const rest = await burstUntil429(call(slot), 3 * limit + 3, ONE_BY_ONE)
    return { admitted: [opener, ...rest.admitted], all: [opener, ...rest.all], ...(rest.refused ? { refused: rest.refused } : {}) }
  }
  const recovered = s.recovery.status !== 429
  const rest = recovered ? await burstUntil429(call(slot), 3 * limit + 3, ONE_BY_ONE) : undefined
  const opened = rest ? narrowed({ admitted: [s.recovery, ...rest.admitted], all: [s.recovery, ...rest.all], ...(rest.refused ? { refused: rest.refused } : {}) }, true) : undefined
  const window = opened && !opened.straddled ? opened : await burstInFreshWindow(rest?.all.at(-1) ?? s.recovery, measure, true)
  s.window = window
  if (!window.refused) return s

  // Window 2: failed calls count too. Usable when the opener and the failures met the 429's window.
  const k = Math.min(2, limit - 1)
  s.failed = await inOneWindow(window.refused, async () => {
    const first = await call(slot)()
    const failures: Exchange[] = []
    for (let i = 0; i < k; i += 1) failures.push(await gw.get(FAILING_PATH, { key: slot, retry429: false }))
    const rest = await burstUntil429(call(slot), 3 * limit + 3, ONE_BY_ONE)
    return { first, failures, rest, k, all: [first, ...failures, ...rest.all] }
  }, (f) => f.rest.refused !== undefined && (windowsByRemaining(f.all)?.length ?? (straddles(f.all) ? 2 : 1)) === 1)
  const last = s.failed.rest.refused ?? s.failed.all.at(-1)!

  // Window 3: all at once.
  const sent = limit + Math.max(3, Math.ceil(limit / 2))
  const burst = await burstInFreshWindow(last, async () => {
    const all = await Promise.all(Array.from({ length: sent }, () => call(slot)()))
    const refused = all.find((ex) => ex.status === 429)
    return { admitted: all.filter((ex) => ex.status !== 429), all, ...(refused ? { refused } : {}) }
  })
  s.concurrent = { admitted: burst.admitted.length, sent, all: burst.all, straddled: burst.straddled }
  return s
}

beforeAll(() => {
  studies = startPerTier(gw, study)
})

const studyOf = (slot: KeySlot) => studyFor(studies, slot)

const options = { timeout: TIERS_DEFAULTS.testTimeoutMs }

describe.each(TIER_SLOTS.map((slot) => [slot]))('usage limits with the %s key (Part 1 §8.1, §4.1, §7)', (slot) => {
  check('P1-8.1-usage-rate-limited', `${slot}: exactly the tier's limit of calls is admitted in a fresh window`, async () => {
    const s = await studyOf(slot)
    if (!s.drain.refused) {
      const over = overLimitWindow(s.drain, s.limit, true)
      if (!over) skipTest(STRADDLED)
      expectThat(false, `a 429 once ${s.limit} calls were admitted in a window (tier ${s.tier})`, `${over.length} calls admitted in one window, no 429`, over.at(-1))
    }
    precondition(s.window !== undefined, 'P1-8.1-usage-limit-recovers', 'no fresh window could be opened after the first 429')
    const w = s.window!
    if (w.straddled) skipTest(STRADDLED)
    if (!w.refused && !overLimitWindow(w, s.limit, true)) skipTest(STRADDLED)
    expectThat(w.refused !== undefined && w.admitted.length === s.limit, `${s.limit} calls admitted, then 429 (tier ${s.tier})`, w.refused ? `${w.admitted.length} admitted before the 429` : `${w.admitted.length} admitted and no 429`, w.refused ?? w.all.at(-1))
  }, options)

  check('P1-7-usage-429-body', `${slot}: the 429 has error rate_limit_exceeded and a message`, async () => {
    const s = await studyOf(slot)
    precondition(s.drain.refused !== undefined, 'P1-8.1-usage-rate-limited', `no 429 was provoked on ${PATH}`)
    expectSchema(s.drain.refused!, 'account/usage-429.json')
  }, options)

  check('P1-8.1-usage-limit-header', `${slot}: x-ratelimit-limit-requests is the tier's §8.1 limit`, async () => {
    const s = await studyOf(slot)
    const seen = integerHeader(s.first, 'x-ratelimit-limit-requests')
    expectThat(seen === s.limit, `x-ratelimit-limit-requests: ${s.limit} (tier ${s.tier})`, s.first.header('x-ratelimit-limit-requests') ?? 'absent', s.first)
  }, options)

  check('P1-8.1-usage-limit-recovers', `${slot}: after the announced reset a call is admitted again`, async () => {
    const s = await studyOf(slot)
    precondition(s.drain.refused !== undefined, 'P1-8.1-usage-rate-limited', `no 429 was provoked on ${PATH}`)
    const r = s.recovery!
    const announced = resetMs(s.drain.refused!)
    expectThat(r.status !== 429, `a call admitted after waiting ${announced ?? 'the Retry-After'} ms as the 429 announced`, `429 again`, r)
    expectStatus(r, 200)
  }, options)

  check('P1-4.1-ratelimit-remaining', `${slot}: remaining falls by one per call, never below zero; limit stays`, async () => {
    const s = await studyOf(slot)
    precondition(s.window !== undefined, 'P1-8.1-usage-limit-recovers', 'no fresh window could be opened after the first 429')
    if (s.window!.straddled) skipTest(STRADDLED)
    const calls = s.window!.admitted
    const firstLimit = integerHeader(calls[0]!, 'x-ratelimit-limit-requests')
    const remaining: number[] = []
    for (const [i, ex] of calls.entries()) {
      const value = integerHeader(ex, 'x-ratelimit-remaining-requests')
      precondition(value !== undefined && firstLimit !== undefined, 'P1-4.1-ratelimit-headers', 'the request bucket headers are missing or not integers')
      expectThat(integerHeader(ex, 'x-ratelimit-limit-requests') === firstLimit, `x-ratelimit-limit-requests constant within the window (${firstLimit})`, `${ex.header('x-ratelimit-limit-requests')} on call ${i + 1}`, ex)
      remaining.push(value!)
    }
    // One call after another: each admitted call takes one unit, so the values count down from the first one's.
    const start = remaining[0]!
    const expected = calls.map((_, i) => Math.max(0, start - i))
    const seen = remaining
    expectThat(JSON.stringify(seen) === JSON.stringify(expected), `remaining ${start}, ${start - 1}, ... one less per admitted call`, `remaining values ${seen.join(', ')}`, calls.at(-1))
  }, options)

  check('P1-4.1-ratelimit-reset-window', `${slot}: reset of the per-minute request bucket is at most a minute`, async () => {
    const s = await studyOf(slot)
    for (const ex of [s.first, ...s.drain.all, ...(s.window?.all ?? [])]) {
      const ms = resetMs(ex)
      if (ms === undefined) continue // a reset that does not parse is P1-4.1-ratelimit-headers' to report
      expectThat(ms <= TIERS_DEFAULTS.windowMs, 'x-ratelimit-reset-requests of at most 60s', ex.header('x-ratelimit-reset-requests') ?? '', ex)
    }
  }, options)

  check('P1-7-failed-calls-count', `${slot}: calls refused with 400 count toward the limit`, async () => {
    const s = await studyOf(slot)
    precondition(s.failed !== undefined, 'P1-8.1-usage-rate-limited', 'the sequence did not reach a second fresh window')
    const f = s.failed!
    if (f.straddled) skipTest(STRADDLED)
    precondition(f.first.status === 200, 'P1-8.1-usage-limit-recovers', `the first call of a fresh window was answered ${f.first.status}`)
    for (const failure of f.failures) expectStatus(failure, 400, 'hours_ago must be an integer (Part 1 §4.2)')
    // Judged against what a window admitted in window 1, so that a wrong limit is P1-8.1-usage-rate-limited's alone.
    precondition(s.window?.refused !== undefined && !s.window.straddled, 'P1-8.1-usage-rate-limited', 'window 1 was not measured')
    const capacity = s.window!.admitted.length
    const expected = capacity - 1 - f.k
    expectThat(f.rest.admitted.length === expected && f.rest.refused !== undefined, `after 1 admitted and ${f.k} failed calls, ${expected} more admitted (window 1 admitted ${capacity}), then 429`, `${f.rest.admitted.length} more admitted${f.rest.refused ? '' : ' and no 429'}`, f.rest.refused ?? f.rest.all.at(-1))
  }, options)

  check('P1-8.1-usage-limit-concurrent', `${slot}: calls sent all at once are admitted as many as one by one`, async () => {
    const s = await studyOf(slot)
    precondition(s.concurrent !== undefined && s.window?.refused !== undefined, 'P1-8.1-usage-rate-limited', 'no window was measured one call after another')
    const sequential = s.window!.admitted.length
    const c = s.concurrent!
    if (c.straddled || s.window!.straddled) skipTest(STRADDLED)
    expectThat(c.admitted === sequential, `${sequential} of ${c.sent} concurrent calls admitted, as one by one`, `${c.admitted} admitted`, c.all.find((ex) => ex.status !== 429) ?? c.all[0])
  }, options)

  check('P1-2.3-rate-limits-current-per-tier', `${slot}: extra.rate_limits.current.tier is the key's tier`, async () => {
    const s = await studyOf(slot)
    const list = await gw.get('/v1/models', { key: slot })
    expectStatus(list, 200)
    const items = isObject(list.json) && Array.isArray(list.json.data) ? list.json.data : []
    const id = items.map((item) => (isObject(item) ? item.id : undefined)).find((value): value is string => typeof value === 'string')
    if (id === undefined) skipTest('the model list with this key is empty')
    const model = await gw.get(`/v1/models/${encodeURIComponent(id)}`, { key: slot })
    expectStatus(model, 200)
    const body = model.json
    const current = isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits) ? body.extra.rate_limits.current : undefined
    const seen = isObject(current) ? current.tier : undefined
    expectThat(seen === s.tier, `extra.rate_limits.current.tier ${s.tier} (account_tier of ${PATH} with the same key)`, seen === undefined ? 'absent' : JSON.stringify(seen), model)
  }, options)
})
