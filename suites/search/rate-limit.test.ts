/**
 * A search over its tool's per-minute limit (Part 2 §7 lists 429 for search, §8: "Rate limits follow the tier and
 * per-model limits of Part 1"; Part 1 §7 gives the compatible 429 body, §8.3 the per-model limits, published for
 * the caller's tier in extra.rate_limits.current). p1-search, the cheapest tool, with the key whose limit is
 * smallest, so that few calls reach it; a key whose limit is out of reach skips the test.
 */
import { describe } from 'vitest'
import { expectSchema, expectThat } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { KEY_SLOTS, type KeySlot } from '../../harness/keys.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { targetName } from '../shared/names.ts'
import { needForm, search } from './client.ts'

const api = target()
const TOOL = 'p1-search'

const RATE_LIMIT_DEFAULTS = {
  reachable: 300, // the most calls this test makes to reach a limit: more would be a load test
}

/**
 * The tool's rpm for each given key: extra.rate_limits.current of its model record retrieved with that key, or, where
 * the target has no record under the tool's name, the request bucket's maximum a search with that key reports
 * (x-ratelimit-limit-requests, Part 1 §4.1).
 */
async function smallestLimit(): Promise<{ key: KeySlot; rpm: number; from: string } | undefined> {
  let best: { key: KeySlot; rpm: number; from: string } | undefined
  for (const key of KEY_SLOTS.filter((slot) => slot !== 'suspended' && api.hasKey(slot))) {
    const first = await search(api, { tool: TOOL, key, retry429: false, body: { max_results: 1 } })
    // A key the tool refuses with 403 cannot use it (Part 1 §1.5: a model has min_tier): it has no limit to reach.
    if (first.status === 403) continue
    const body = (await api.get(`/v1/models/${encodeURIComponent(targetName(TOOL))}`, { key })).json
    const current =
      isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits)
        ? body.extra.rate_limits.current
        : undefined
    let rpm = isObject(current) ? current.rpm : undefined
    let from = 'extra.rate_limits.current.rpm'
    if (typeof rpm !== 'number') {
      const raw = first.header('x-ratelimit-limit-requests')?.trim()
      rpm = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined
      from = 'x-ratelimit-limit-requests'
    }
    if (typeof rpm === 'number' && rpm > 0 && (best === undefined || rpm < best.rpm)) best = { key, rpm, from }
  }
  return best
}

describe('rate limit (Part 2 §7, §8; Part 1 §7, §8.3)', () => {
  check('P2-7-search-429', 'past the tool limit of the tier: 429 with the compatible error object', async () => {
    await needForm('body')
    const tool = targetName(TOOL)
    const limit = await smallestLimit()
    if (limit === undefined)
      skipTest(
        `no key given reads a requests-per-minute limit for ${tool} in extra.rate_limits.current or x-ratelimit-limit-requests`,
      )
    if (limit.rpm + 1 > RATE_LIMIT_DEFAULTS.reachable)
      skipTest(
        `the smallest limit for ${tool} among the keys given is ${limit.rpm} rpm, more than ${RATE_LIMIT_DEFAULTS.reachable} calls; give a tier-0 key (GATEWAY_API_KEY_TIER0)`,
      )
    // A window may turn over while the bucket fills, so allow up to three windows' worth before giving up.
    const most = Math.min(3 * limit.rpm + 3, RATE_LIMIT_DEFAULTS.reachable)
    const statuses = new Map<number, number>()
    let refused: Exchange | undefined
    let sent = 0
    let last: Exchange | undefined
    while (refused === undefined && sent < most) {
      // One more call in flight than the limit: a burst that passes it by itself, whatever the length of the target's
      // minute (a shortened one turns over faster than calls made a few at a time can fill it).
      const wave = Math.min(limit.rpm + 1, most - sent)
      const answers = await Promise.all(
        Array.from({ length: wave }, () =>
          search(api, { tool: TOOL, key: limit.key, retry429: false, body: { max_results: 1 } }),
        ),
      )
      sent += wave
      for (const ex of answers) statuses.set(ex.status, (statuses.get(ex.status) ?? 0) + 1)
      last = answers.find((ex) => ex.status !== 200) ?? answers[answers.length - 1]
      refused = answers.find((ex) => ex.status === 429)
    }
    const seen = [...statuses].map(([status, n]) => `${n} x ${status}`).join(', ')
    observe(
      'search rate limit',
      `${limit.key}: ${limit.rpm} rpm for ${tool} (${limit.from}); ${refused ? `429 after ${sent} calls or fewer` : `no 429 in ${sent} calls`} (${seen})`,
    )
    expectThat(
      refused !== undefined,
      `a 429 within ${most} searches of ${tool} (limit ${limit.rpm} rpm for ${limit.key})`,
      `no 429 in ${sent} calls: ${seen}`,
      last,
    )
    expectSchema(refused, 'search/error-429.json')
  })
})
