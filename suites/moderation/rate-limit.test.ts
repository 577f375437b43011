/**
 * A moderation call over its model's per-minute limit (Part 2 §7 lists 429; Part 1 §7 gives the compatible 429
 * body, §8.3 the per-model limits, published for the caller's tier in extra.rate_limits.current). The key with the
 * smallest limit is used, so that few calls reach it; a key whose limit is out of reach skips the test.
 */
import { describe } from 'vitest'
import { expectSchema, expectThat, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { KEY_SLOTS, type KeySlot } from '../../harness/keys.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { moderate, OMNI_MODELS } from './fixtures.ts'

const api = target()
const MODEL = OMNI_MODELS[0]

const RATE_LIMIT_DEFAULTS = {
  reachable: 300, // the most calls this test makes to reach a limit: more would be a load test
  wave: 8, // calls in flight at once while filling the bucket
}

/** The model's rpm for each given key (extra.rate_limits.current of the model retrieved with that key). */
async function smallestLimit(): Promise<{ key: KeySlot; rpm: number } | undefined> {
  let best: { key: KeySlot; rpm: number } | undefined
  for (const key of KEY_SLOTS.filter((slot) => slot !== 'suspended' && api.hasKey(slot))) {
    const body = (await api.get(`/v1/models/${encodeURIComponent(MODEL)}`, { key })).json
    const current =
      isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits)
        ? body.extra.rate_limits.current
        : undefined
    const rpm = isObject(current) ? current.rpm : undefined
    if (typeof rpm === 'number' && rpm > 0 && (best === undefined || rpm < best.rpm)) best = { key, rpm }
  }
  return best
}

describe('rate limit (Part 2 §7; Part 1 §7, §8.3)', () => {
  check('P2-7-moderation-429', 'past the model limit of the tier: 429 with the compatible error object', async () => {
    const unknown = await moderate(api, { model: MODEL, input: 'ok' }, { key: 'invalid' })
    precondition(
      unknown.status === 401,
      'P2-7-moderation-401',
      `an unknown key was answered ${unknown.status}, so calls are not counted per account`,
    )
    const limit = await smallestLimit()
    if (limit === undefined)
      skipTest(`no key given reads a requests-per-minute limit for ${MODEL} in extra.rate_limits.current`)
    if (limit.rpm + 1 > RATE_LIMIT_DEFAULTS.reachable)
      skipTest(
        `the smallest limit for ${MODEL} among the keys given is ${limit.rpm} rpm, more than ${RATE_LIMIT_DEFAULTS.reachable} calls; give a tier-0 key (GATEWAY_API_KEY_TIER0)`,
      )
    // A window may turn over while the bucket fills, so allow up to three windows' worth before giving up.
    const most = Math.min(3 * limit.rpm + 3, RATE_LIMIT_DEFAULTS.reachable)
    let refused: Exchange | undefined
    let sent = 0
    let last: Exchange | undefined
    while (refused === undefined && sent < most) {
      const wave = Math.min(RATE_LIMIT_DEFAULTS.wave, most - sent)
      const answers = await Promise.all(
        Array.from({ length: wave }, () =>
          moderate(api, { model: MODEL, input: 'ok' }, { key: limit.key, retry429: false }),
        ),
      )
      sent += wave
      last = answers[answers.length - 1]
      refused = answers.find((ex) => ex.status === 429)
      // A key whose tier may not use the model is refused before any limit counts (§1: the tier sets the models).
      const forbidden = answers.find((ex) => ex.status === 403)
      if (refused === undefined && forbidden !== undefined)
        skipTest(
          `${MODEL} answered 403 to ${limit.key}: the model is not usable at that key's tier, so its limit cannot be reached`,
        )
    }
    observe(
      'moderation rate limit',
      `${limit.key}: ${limit.rpm} rpm for ${MODEL}; ${refused ? `429 after ${sent} calls or fewer` : `no 429 in ${sent} calls`}`,
    )
    expectThat(
      refused !== undefined,
      `a 429 within ${most} calls of ${MODEL} (limit ${limit.rpm} rpm for ${limit.key})`,
      `no 429 in ${sent} calls`,
      last,
    )
    expectSchema(refused, 'moderation/error-429.json')
  })
})
