/**
 * The usage endpoints are limited per user per minute by tier (Part 1 §8.1), and over the limit answer 429 with
 * their own body (§7). Uses the lowest-tier key given, whose limit is smallest: the cheapest way to reach it.
 * The exact count per tier, recovery after reset and the other tier rules are the `tiers` family's.
 */
import { describe } from 'vitest'
import { expectSchema, expectStatus, expectThat, isObject, precondition } from '../../harness/assert.ts'
import type { KeySlot } from '../../harness/config.ts'
import { memo } from '../../harness/helpers.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { usageLimitPerMinute } from '../../harness/limits.ts'
import { check, gateway } from '../../harness/suite.ts'

const gw = gateway()
const PATH = '/user/v1/credit'

interface Burst {
  key: KeySlot
  tier: number
  limit: number
  /** Most calls admitted within one window, as far as the remaining header lets us tell windows apart. */
  admittedInWindow: number
  refused?: Exchange
  last: Exchange
}

/** Calls until the first 429, or until the limit has clearly been passed within one window. */
const burst = memo(async (): Promise<Burst> => {
  const key = (['tier0', 'tier1', 'tier2', 'tier3', 'tier4', 'tier5'] as const).find((slot) => gw.hasKey(slot)) ?? 'main'
  const first = await gw.get(PATH, { key, retry429: false })
  const body = first.json
  if (first.status !== 429) expectStatus(first, 200)
  const tier = isObject(body) ? body.account_tier : undefined
  precondition(first.status === 429 || (typeof tier === 'number' && usageLimitPerMinute(tier) !== undefined), 'P1-2.1-credit-record', 'the credit record gives no account_tier from 0 to 5')
  const limit = usageLimitPerMinute(tier as number) ?? 0
  let admitted = first.status === 429 ? 0 : 1
  let most = admitted
  let previousRemaining = Number(first.header('x-ratelimit-remaining-requests'))
  let last = first
  // At most three windows' worth: a target that never refuses is found out well before this ends.
  for (let i = 0; i < 3 * limit + 3 && last.status !== 429; i += 1) {
    last = await gw.get(PATH, { key, retry429: false })
    if (last.status === 429) break
    expectStatus(last, 200)
    const remaining = Number(last.header('x-ratelimit-remaining-requests'))
    // A remaining count that went up means a new window began during the burst: count afresh.
    if (Number.isFinite(remaining) && Number.isFinite(previousRemaining) && remaining > previousRemaining) admitted = 0
    previousRemaining = remaining
    admitted += 1
    most = Math.max(most, admitted)
  }
  return { key, tier: tier as number, limit, admittedInWindow: most, ...(last.status === 429 ? { refused: last } : {}), last }
})

describe('usage endpoint rate limit (Part 1 §7, §8.1)', () => {
  check('P1-8.1-usage-rate-limited', 'calls past the tier limit within one window are refused with 429', async () => {
    const b = await burst()
    expectThat(b.refused !== undefined && b.admittedInWindow <= b.limit, `a 429 once ${b.limit} calls (tier ${b.tier}) were admitted in the window`, b.refused ? `${b.admittedInWindow} calls admitted in one window` : `no 429 after ${b.admittedInWindow} calls admitted in one window`, b.last)
  })

  check('P1-7-usage-429-body', 'the 429 of a usage endpoint has error rate_limit_exceeded and a message', async () => {
    const b = await burst()
    precondition(b.refused !== undefined, 'P1-8.1-usage-rate-limited', `no 429 was provoked on ${PATH}`)
    expectSchema(b.refused, 'account/usage-429.json')
  })
})
