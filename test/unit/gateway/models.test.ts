/** The model endpoints (Part 1 sections 2.3, 4.3, 8.3). */
import { describe, expect, it } from 'vitest'
import { CATALOGUE, MODES } from '../../../gateway/models/catalogue.ts'
import { classLimits } from '../../../gateway/limit-tables.ts'
import { testGateway } from './helpers.ts'

const gw = testGateway()
const ids = CATALOGUE.map((model) => model.id)

describe('catalogue', () => {
  it('has a model of every mode and chat models at min_tier 0, 1, 2, 3 and 5', () => {
    for (const mode of MODES) expect(CATALOGUE.some((model) => model.mode === mode)).toBe(true)
    const chatTiers = new Set(CATALOGUE.filter((model) => model.mode === 'chat').map((model) => model.minTier))
    for (const tier of [0, 1, 2, 3, 5]) expect(chatTiers.has(tier as never)).toBe(true)
    expect(CATALOGUE.some((model) => model.mode === 'chat' && model.reasoning)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
  })
})

describe('GET /v1/models with Bearer (section 2.3)', () => {
  it('lists every model in the stable order, with the list-item fields and no extra', async () => {
    const response = await gw.call('/v1/models')
    expect(response.status).toBe(200)
    expect(response.body.object).toBe('list')
    expect(response.body.data.map((item: { id: string }) => item.id)).toEqual(ids)
    for (const item of response.body.data) {
      expect(item).toMatchObject({ object: 'model', owned_by: expect.any(String), mode: expect.any(String) })
      expect(Object.keys(item.pricing).sort()).toEqual(['cached_input', 'input', 'output'])
      for (const field of ['min_tier', 'max_tokens', 'max_input_tokens', 'max_output_tokens'])
        expect(Number.isInteger(item[field])).toBe(true)
      for (const [field, value] of Object.entries(item))
        if (field.startsWith('supports_')) expect(typeof value).toBe('boolean')
      expect(item).not.toHaveProperty('extra')
    }
  })

  it('has the same shape as GET /public/models', async () => {
    const [bearer, pub] = await Promise.all([gw.call('/v1/models'), gw.call('/public/models', { key: null })])
    expect(pub.body).toEqual(bearer.body)
  })
})

describe('GET /v1/models/{model_id} with Bearer (section 2.3)', () => {
  it('returns created as Unix seconds and extra with metadata, pricing and rate_limits', async () => {
    const response = await gw.call('/v1/models/gw-chat-pro')
    expect(response.status).toBe(200)
    const { body } = response
    expect(body).toMatchObject({ id: 'gw-chat-pro', object: 'model', owned_by: 'atlas-ai' })
    expect(Number.isInteger(body.created)).toBe(true)
    expect(body.extra.metadata).toMatchObject({ min_tier: 3, mode: 'chat', supports_web_search: true })
    expect(body.extra.metadata.search_context_cost_per_query).toEqual({
      search_context_size_high: expect.any(Number),
      search_context_size_low: expect.any(Number),
      search_context_size_medium: expect.any(Number),
    })
  })

  it('lists tiers from min_tier up only, keyed "3".."5", with the class limits (section 8.3)', async () => {
    const { body } = await gw.call('/v1/models/gw-chat-pro')
    expect(Object.keys(body.extra.rate_limits.tiers)).toEqual(['3', '4', '5'])
    expect(body.extra.rate_limits.tiers['4']).toEqual(classLimits('text', 4))
  })

  it("gives current for the caller's tier, zero when the tier is below min_tier", async () => {
    const below = await gw.call('/v1/models/gw-chat-pro', { key: 'tier2' })
    expect(below.body.extra.rate_limits.current).toEqual({ tier: 2, rpm: 0, tpm: 0 })
    const above = await gw.call('/v1/models/gw-chat-pro', { key: 'tier5' })
    expect(above.body.extra.rate_limits.current).toEqual({ tier: 5, ...above.body.extra.rate_limits.tiers['5'] })
  })

  it('agrees with the list item on min_tier, mode and pricing', async () => {
    const list = await gw.call('/v1/models')
    for (const item of list.body.data) {
      const { body } = await gw.call(`/v1/models/${item.id}`)
      expect(body.extra.metadata.min_tier).toBe(item.min_tier)
      expect(body.extra.metadata.mode).toBe(item.mode)
      expect(body.extra.pricing).toEqual(item.pricing)
    }
  })

  it('answers 404 model_not_found for an unknown id, which is case-sensitive', async () => {
    for (const id of ['no-such-model', 'GW-CHAT']) {
      const response = await gw.call(`/v1/models/${id}`)
      expect(response.status).toBe(404)
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found' })
    }
  })
})

describe('the alternate format with x-api-key (sections 2.3, 4.3)', () => {
  const list = (query = '') => gw.call(`/v1/models${query}`, { form: 'x-api-key' })

  it('pages 20 items by default with first_id, last_id and has_more', async () => {
    const { body } = await list()
    expect(Object.keys(body).sort()).toEqual(['data', 'first_id', 'has_more', 'last_id'])
    expect(body.data.length).toBe(Math.min(20, ids.length))
    expect(body.data[0]).toEqual({
      id: ids[0],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      display_name: expect.any(String),
      type: 'model',
    })
    expect(body.first_id).toBe(ids[0])
    expect(body.last_id).toBe(ids[Math.min(20, ids.length) - 1])
    expect(body.has_more).toBe(ids.length > 20)
  })

  it('walks forward with after_id without repeating or skipping a model', async () => {
    const seen: string[] = []
    let after: string | null = null
    for (;;) {
      const { body }: { body: { data: { id: string }[]; last_id: string; has_more: boolean } } = await list(
        `?limit=4${after ? `&after_id=${after}` : ''}`,
      )
      expect(body.data.length).toBeLessThanOrEqual(4)
      seen.push(...body.data.map((item) => item.id))
      if (!body.has_more) break
      after = body.last_id
    }
    expect(seen).toEqual(ids)
  })

  it('walks backward with before_id', async () => {
    const { body } = await list(`?limit=3&before_id=${ids[5]}`)
    expect(body.data.map((item: { id: string }) => item.id)).toEqual(ids.slice(2, 5))
    expect(body.has_more).toBe(true)
    const first = await list(`?limit=3&before_id=${ids[2]}`)
    expect(first.body.data.map((item: { id: string }) => item.id)).toEqual(ids.slice(0, 2))
    expect(first.body.has_more).toBe(false)
  })

  it('gives null first_id and last_id for an empty page', async () => {
    const { body } = await list(`?after_id=${ids.at(-1)}`)
    expect(body).toEqual({ data: [], first_id: null, last_id: null, has_more: false })
  })

  it.each(['0', '1001', '1.5', 'abc', '', '-1'])('refuses limit=%j with 400', async (limit) => {
    const response = await list(`?limit=${limit}`)
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param: 'limit' })
  })

  it('accepts limit 1 and 1000, and refuses an unknown cursor', async () => {
    expect((await list('?limit=1')).body.data.length).toBe(1)
    expect((await list('?limit=1000')).body.data.length).toBe(ids.length)
    expect((await list('?after_id=nope')).status).toBe(400)
  })

  it('retrieve adds the same extra as Bearer', async () => {
    const [alternate, bearer] = await Promise.all([
      gw.call('/v1/models/gw-chat', { form: 'x-api-key' }),
      gw.call('/v1/models/gw-chat'),
    ])
    expect(alternate.body).toMatchObject({ id: 'gw-chat', type: 'model', display_name: 'GW Chat' })
    expect(alternate.body.extra).toEqual(bearer.body.extra)
  })
})

describe('--bare-models', () => {
  const bare = testGateway({ bareModels: true })

  it("lists and retrieves the convention's bare model only: id, object, created, owned_by", async () => {
    const [list, publicList, retrieved] = await Promise.all([
      bare.call('/v1/models'),
      bare.call('/public/models', { key: null }),
      bare.call('/v1/models/gw-chat'),
    ])
    expect(list.body.data).toHaveLength(CATALOGUE.length)
    for (const item of [...list.body.data, ...publicList.body.data, retrieved.body]) {
      expect(Object.keys(item).sort()).toEqual(['created', 'id', 'object', 'owned_by'])
    }
    expect(retrieved.body).toMatchObject({ id: 'gw-chat', object: 'model', owned_by: 'atlas-ai' })
  })
})

describe('the real-names variation', () => {
  const real = testGateway({ variations: ['real-names'] })

  it("lists and retrieves the neutralised models under their makers' names, and no longer the neutral ones", async () => {
    const list = await real.call('/v1/models')
    const listed: string[] = list.body.data.map((item: { id: string }) => item.id)
    for (const [neutral, maker] of [
      ['vidA-2', 'vela-motion-2'],
      ['p1-search', 'hawkeye-serp'],
      ['gw-ocr-1', 'docuscan-ocr-2505'],
      ['nv-tts-flash', 'nimbus-2.5-flash-tts'],
    ]) {
      expect(listed).toContain(maker)
      expect(listed).not.toContain(neutral)
      const retrieved = await real.call(`/v1/models/${maker}`)
      expect(retrieved.status).toBe(200)
      expect(retrieved.body.id).toBe(maker)
      expect((await real.call(`/v1/models/${neutral}`)).status).toBe(404)
    }
    expect(listed).toHaveLength(ids.length)
    expect(listed).toContain('gw-chat')
  })
})

describe('the disallowed-current-null variation', () => {
  const nulls = testGateway({ variations: ['disallowed-current-null'] })

  it("writes null rpm and tpm in current for a model above the caller's tier, numbers for an allowed one", async () => {
    const above = CATALOGUE.find((model) => model.minTier > 2) as (typeof CATALOGUE)[number]
    const open = CATALOGUE.find((model) => model.minTier <= 2) as (typeof CATALOGUE)[number]
    const shut = await nulls.call(`/v1/models/${above.id}`)
    expect(shut.body.extra.rate_limits.current).toEqual({ tier: 2, rpm: null, tpm: null })
    const allowed = await nulls.call(`/v1/models/${open.id}`)
    expect(allowed.body.extra.rate_limits.current).toEqual({ tier: 2, ...allowed.body.extra.rate_limits.tiers['2'] })
  })
})

describe('the current-tier-string variation', () => {
  const strings = testGateway({ variations: ['current-tier-string'] })

  it("writes current's tier as the number's string, its rpm and tpm as they are", async () => {
    const open = CATALOGUE.find((model) => model.minTier <= 2) as (typeof CATALOGUE)[number]
    const { body } = await strings.call(`/v1/models/${open.id}`)
    expect(body.extra.rate_limits.current).toEqual({ tier: '2', ...body.extra.rate_limits.tiers['2'] })
  })
})
