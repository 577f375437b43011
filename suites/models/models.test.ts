/** The model catalogue with Bearer: list, retrieve, extra and its rate limits (Part 1 §2.3, §4.3, §7). */
import { describe } from 'vitest'
import {
  expectEach,
  expectSchema,
  expectSetup,
  expectStatus,
  expectSuccess,
  expectThat,
  is2xx,
  precondition,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { randomSuffix } from '../../harness/worker/helpers.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { tierOf } from '../shared/tier.ts'
import { modelFixtures } from './model-list.ts'

const api = target()
const { list, retrieved } = modelFixtures(api)

/** Retrieved models whose body is an object with extra.rate_limits: what the rate-limit checks read. */
async function rateLimitsOf(): Promise<
  Array<{
    id: string
    minTier: unknown
    tiers: Record<string, unknown>
    current: Record<string, unknown>
    ex: Awaited<ReturnType<typeof retrieved>>[number]['ex']
  }>
> {
  const all = await retrieved()
  const out = []
  for (const { id, ex } of all) {
    precondition(is2xx(ex), 'P1-2.3-model-retrieve', `GET /v1/models/${id} answered ${ex.status}`)
    const body = ex.json
    const extra = isObject(body) && isObject(body.extra) ? body.extra : undefined
    const rateLimits = extra && isObject(extra.rate_limits) ? extra.rate_limits : undefined
    precondition(
      rateLimits !== undefined && isObject(rateLimits.tiers) && isObject(rateLimits.current),
      'P1-2.3-model-retrieve',
      `${id} has no extra.rate_limits with tiers and current`,
    )
    const metadata = extra && isObject(extra.metadata) ? extra.metadata : {}
    out.push({
      id,
      minTier: metadata.min_tier,
      tiers: rateLimits.tiers as Record<string, unknown>,
      current: rateLimits.current as Record<string, unknown>,
      ex,
    })
  }
  return out
}

function tierKeysValid(tiers: Record<string, unknown>): boolean {
  return schemas().validate('models/rate-limit-tiers.json', tiers).ok
}

describe('model list and retrieve (Part 1 §2.3, §4.3)', () => {
  check('P1-2.3-model-list', 'GET /v1/models with Bearer lists model objects with the fields of §2.3', async () => {
    const { ex, items } = await list()
    expectThat(items.length > 0, 'at least one model', 'an empty list', ex)
    expectEach(ex, 'models/list-item.json', items, '/data')
  })

  check('P1-2.3-mode-values', 'mode is one of the eleven values, in list items and in extra.metadata', async () => {
    const { ex, items } = await list()
    // A mode that is absent is no value: P1-2.3-model-list (and P1-2.3-model-retrieve) report it.
    const listed = items.flatMap((item, i) => (isObject(item) && item.mode !== undefined ? [{ item, i }] : []))
    const metadataModes = (await retrieved()).flatMap(({ id, ex: rex }) => {
      const body = rex.json
      const mode =
        isObject(body) && isObject(body.extra) && isObject(body.extra.metadata) ? body.extra.metadata.mode : undefined
      return mode === undefined ? [] : [{ id, mode, rex }]
    })
    precondition(
      listed.length + metadataModes.length > 0,
      'P1-2.3-model-list',
      items.length === 0 ? 'the model list is empty' : 'no model carries mode, in the list or in extra.metadata',
    )
    const bad = listed
      .filter(({ item }) => !schemas().validate('models/mode.json', item.mode).ok)
      .map(({ item, i }) => `/data/${i}/mode: ${JSON.stringify(item.mode)} (${String(item.id)})`)
    expectThat(bad.length === 0, 'mode values from §2.3', bad, ex)
    for (const { id, mode, rex } of metadataModes) {
      expectThat(
        schemas().validate('models/mode.json', mode).ok,
        `extra.metadata.mode of ${id} from §2.3`,
        JSON.stringify(mode),
        rex,
      )
    }
  })

  check(
    'P1-2.3-model-retrieve',
    'GET /v1/models/{model_id} with Bearer returns created, owned_by and extra',
    async () => {
      const all = await retrieved()
      expectThat(all.length > 0, 'models to retrieve', 'an empty list')
      for (const { ex } of all) {
        expectSuccess(ex)
        expectSchema(ex, 'models/retrieve.json')
      }
    },
  )

  check('P1-2.3-extra-only-on-retrieve', 'no item of the model list carries extra', async () => {
    const { ex, items } = await list()
    const withExtra = items.flatMap((item, i) =>
      isObject(item) && 'extra' in item ? [`/data/${i} (${String(item.id)}) has extra`] : [],
    )
    expectThat(withExtra.length === 0, 'extra only on retrieve', withExtra, ex)
  })

  check('P1-7-unknown-model-404', 'retrieving a model id that does not exist answers 404', async () => {
    expectStatus(await api.get(`/v1/models/gc-no-such-model-${randomSuffix()}`), 404)
  })

  check(
    'P1-2.3-list-retrieve-agree',
    "retrieve's extra.metadata and extra.pricing agree with the list item",
    async () => {
      const { items } = await list()
      const byId = new Map(items.filter(isObject).map((item) => [item.id, item]))
      for (const { id, ex } of await retrieved()) {
        const item = byId.get(id)
        const body = ex.json
        if (item === undefined || !isObject(body) || !isObject(body.extra) || !isObject(body.extra.metadata)) continue
        const { metadata, pricing } = body.extra
        const differences: string[] = []
        if (metadata.min_tier !== item.min_tier)
          differences.push(`min_tier: list ${String(item.min_tier)}, retrieve ${String(metadata.min_tier)}`)
        if (metadata.mode !== item.mode)
          differences.push(`mode: list ${String(item.mode)}, retrieve ${String(metadata.mode)}`)
        // The three prices compared one by one: the order a target writes their keys in is its own.
        const prices = ['input', 'cached_input', 'output'] as const
        const listPrices = isObject(item.pricing) ? item.pricing : undefined
        const retrievePrices = isObject(pricing) ? pricing : undefined
        if (listPrices !== undefined && prices.some((p) => retrievePrices?.[p] !== listPrices[p])) {
          differences.push(`pricing: list ${JSON.stringify(listPrices)}, retrieve ${JSON.stringify(pricing)}`)
        }
        expectThat(
          differences.length === 0,
          `${id}: the same min_tier, mode and pricing in list and retrieve`,
          differences,
          ex,
        )
      }
    },
  )
})

describe('extra.rate_limits (Part 1 §2.3)', () => {
  check('P1-2.3-rate-limits-tiers', 'tiers is keyed by tier number as a string, each with rpm and tpm', async () => {
    for (const { id, tiers, ex } of await rateLimitsOf()) {
      const result = schemas().validate('models/rate-limit-tiers.json', tiers)
      expectThat(
        result.ok,
        `${id}: extra.rate_limits.tiers keyed "0".."5" with rpm and tpm numbers`,
        result.errors.map((e) => `/extra/rate_limits/tiers${e.slice(1)}`),
        ex,
      )
    }
  })

  check('P1-2.3-rate-limits-min-tier', 'tiers below min_tier are absent from tiers', async () => {
    for (const { id, minTier, tiers, ex } of await rateLimitsOf()) {
      precondition(tierKeysValid(tiers), 'P1-2.3-rate-limits-tiers', `${id}: tiers is not keyed by tier number`)
      precondition(
        typeof minTier === 'number',
        'P1-2.3-model-retrieve',
        `${id}: extra.metadata.min_tier is not a number`,
      )
      const below = Object.keys(tiers).filter((tier) => Number(tier) < minTier)
      expectThat(
        below.length === 0,
        `${id} (min_tier ${minTier}): no tier below ${minTier} in tiers`,
        `tiers has ${below.join(', ')}`,
        ex,
      )
    }
  })

  check('P1-2.3-rate-limits-allowed-tiers', 'every tier from min_tier to 5 has an entry in tiers', async () => {
    for (const { id, minTier, tiers, ex } of await rateLimitsOf()) {
      precondition(tierKeysValid(tiers), 'P1-2.3-rate-limits-tiers', `${id}: tiers is not keyed by tier number`)
      precondition(
        typeof minTier === 'number',
        'P1-2.3-model-retrieve',
        `${id}: extra.metadata.min_tier is not a number`,
      )
      const missing = [0, 1, 2, 3, 4, 5].filter((tier) => tier >= minTier && !(String(tier) in tiers))
      expectThat(
        missing.length === 0,
        `${id} (min_tier ${minTier}): entries for tiers ${minTier} to 5`,
        `missing ${missing.join(', ')}`,
        ex,
      )
    }
  })

  check(
    'P1-2.3-rate-limits-current',
    "current is the caller's tier, as in the credit record, with that tier's rpm and tpm",
    async () => {
      const credit = await api.get('/user/v1/credit')
      // The credit record only names the key's tier here: the account family judges it.
      expectSetup(credit, 200, "the credit record that names this key's account_tier")
      const body = credit.json
      const accountTier = isObject(body) ? body.account_tier : undefined
      precondition(
        Number.isInteger(accountTier),
        'P1-2.1-credit-record',
        'the credit record has no integer account_tier',
      )
      const disallowed: string[] = []
      for (const { id, minTier, tiers, current, ex } of await rateLimitsOf()) {
        expectThat(
          tierOf(current.tier) === accountTier,
          `${id}: extra.rate_limits.current.tier ${String(accountTier)} (account_tier of this key)`,
          `current.tier ${JSON.stringify(current.tier)}`,
          ex,
        )
        // Below min_tier the model is not the caller's to use, and the reference does not say what current holds.
        const allowed = typeof minTier === 'number' && (accountTier as number) >= minTier
        const entry = tiers[String(accountTier)]
        if (!allowed) disallowed.push(`${id}: rpm ${JSON.stringify(current.rpm)}, tpm ${JSON.stringify(current.tpm)}`)
        if (!allowed || !isObject(entry)) continue
        expectThat(
          current.rpm === entry.rpm && current.tpm === entry.tpm,
          `${id}: current rpm/tpm equal tiers["${String(accountTier)}"] (${String(entry.rpm)}/${String(entry.tpm)})`,
          `current ${String(current.rpm)}/${String(current.tpm)}`,
          ex,
        )
      }
      if (disallowed.length > 0)
        observe(
          "current of models above the caller's tier",
          `${disallowed.length} model(s): ${disallowed.slice(0, 4).join('; ')}`,
        )
    },
  )
})
