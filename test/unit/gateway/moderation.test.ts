/** Moderation of the reference gateway (Part 2 sections 2.4, 4.7, 7) and inline moderation on responses and chat. */
import { afterAll, describe, expect, it } from 'vitest'
import { IMAGE_CATEGORIES, MODERATION_CATEGORIES } from '../../../gateway/moderation/categories.ts'
import { classify } from '../../../gateway/moderation/classifier.ts'
import { remainingUsd } from '../../../gateway/account/billing.ts'
import { testGateway } from './helpers.ts'

const gw = testGateway()
const PATH = '/v1/moderations'
const IMAGE =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGOwqdgCAAJcAWlLf+oUAAAAAElFTkSuQmCC'
const post = (body: unknown, options: Parameters<typeof gw.call>[1] = {}) =>
  gw.call(PATH, { method: 'POST', body, ...options })
const textAndImage = [
  { type: 'text', text: 'a harbour at dawn' },
  { type: 'image_url', image_url: { url: IMAGE } },
]

describe('the simulated classifier (section 2.4)', () => {
  it('scores all thirteen categories from 0 to 1, deterministically', () => {
    const a = classify({ texts: ['The tour starts at ten.'], images: [] })
    expect(Object.keys(a.category_scores)).toEqual([...MODERATION_CATEGORIES])
    expect(Object.values(a.category_scores).every((s) => s >= 0 && s < 0.01)).toBe(true)
    expect(a.flagged).toBe(false)
    expect(classify({ texts: ['The tour starts at ten.'], images: [] })).toEqual(a)
  })

  it('flags a category by its marker, and plain words of violence in violence', () => {
    const marked = classify({ texts: ['gc-flag-self-harm-intent'], images: [] })
    expect(marked.categories['self-harm/intent']).toBe(true)
    expect(marked.categories['self-harm']).toBe(false)
    expect(classify({ texts: ['They will attack at dawn'], images: [] })).toMatchObject({
      flagged: true,
      categories: { violence: true },
    })
    expect(classify({ texts: ['a stable and established company'], images: [] }).flagged).toBe(false)
  })

  it('applies image input to the six image categories only', () => {
    const result = classify({ texts: [], images: ['https://x.test/gc-flag-hate-and-gc-flag-violence.png'] })
    for (const category of MODERATION_CATEGORIES)
      expect(result.category_applied_input_types[category]).toEqual(IMAGE_CATEGORIES.has(category) ? ['image'] : [])
    expect(result.categories.violence).toBe(true)
    expect(result.categories.hate).toBe(false) // hate does not apply to images
  })
})

describe('POST /v1/moderations (sections 2.4, 4.7)', () => {
  it('answers id, model and one result per string input', async () => {
    const res = await post({ model: 'omni-moderation-latest', input: ['one', 'two', 'three'] })
    expect(res.status).toBe(200)
    expect(res.body.id).toMatch(/^modr-/)
    expect(res.body.model).toBe('omni-moderation-latest')
    expect(res.body.results).toHaveLength(3)
    expect(res.body.results[0].category_applied_input_types.hate).toEqual(['text'])
  })

  it('takes content items as one input, images with the omni models only', async () => {
    const omni = await post({ model: 'omni-moderation-2024-09-26', input: textAndImage })
    expect(omni.status).toBe(200)
    expect(omni.body.results).toHaveLength(1)
    expect(omni.body.results[0].category_applied_input_types).toMatchObject({
      violence: ['text', 'image'],
      hate: ['text'],
    })
    for (const model of ['text-moderation-latest', 'text-moderation-stable', 'gw-guard-1']) {
      const refused = await post({ model, input: textAndImage })
      expect(refused.status).toBe(400)
      // The request schema states it (an image item with a text model), so its validator refuses, naming the item.
      expect(refused.body.error.param).toMatch(/^input/)
    }
  })

  it('defaults to omni-moderation-latest when model is omitted', async () => {
    const res = await post({ input: 'hello' })
    expect(res.body.model).toBe('omni-moderation-latest')
  })

  it.each([
    ['no input', { model: 'omni-moderation-latest' }, 400],
    ['a number', { input: 42 }, 400],
    ['an empty array', { input: [] }, 400],
    ['a mix of strings and items', { input: ['a', { type: 'text', text: 'b' }] }, 400],
    ['an audio item', { input: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }, 400],
    ['an image item without a usable URL', { input: [{ type: 'image_url', image_url: { url: 'ftp://x' } }] }, 400],
    ['an unknown model', { model: 'gw-nope', input: 'hi' }, 404],
    ['a chat model', { model: 'gw-chat-mini', input: 'hi' }, 400],
  ])('refuses %s', async (_what, body, status) => {
    expect((await post(body)).status).toBe(status)
  })

  it('refuses calls without a valid key (401) and from a suspended account (403)', async () => {
    expect((await post({ input: 'hi' }, { key: null })).status).toBe(401)
    expect((await post({ input: 'hi' }, { key: 'suspended' })).status).toBe(403)
  })

  it('charges the guard model, not the named models', async () => {
    const account = gw.state.accounts.main()
    const before = remainingUsd(account)
    await post({ model: 'omni-moderation-latest', input: 'one two three four' })
    expect(remainingUsd(account)).toBe(before)
    await post({ model: 'gw-guard-1', input: 'one two three four' })
    expect(before - remainingUsd(account)).toBeCloseTo((4 * 0.2) / 1_000_000, 10)
  })

  it("answers the compatible 429 past the model's per-minute limit", async () => {
    const own = testGateway()
    const statuses: number[] = []
    let refused: { status: number; headers: Record<string, unknown>; body: unknown } | undefined
    for (let i = 0; i < 70 && refused === undefined; i += 1) {
      const res = await own.call(PATH, { method: 'POST', body: { input: 'ok' }, key: 'tier0' })
      statuses.push(res.status)
      if (res.status === 429) refused = res
    }
    expect(refused?.body).toEqual({
      error: { message: expect.any(String), type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' },
    })
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0)
  })
})

describe('inline moderation (section 4.7)', () => {
  it('gives responses §2.4 results for input and output, and an error for an image a text model cannot read', async () => {
    const plain = await gw.call('/v1/responses', {
      method: 'POST',
      body: { model: 'gw-chat-mini', input: 'hello', moderation: { model: 'omni-moderation-latest' } },
    })
    expect(Object.keys(plain.body.moderation.input.category_scores)).toHaveLength(13)
    expect(plain.body.moderation.output.category_applied_input_types.violence).toEqual(['text'])
    const input = [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'hi' },
          { type: 'input_image', image_url: IMAGE },
        ],
      },
    ]
    const withImage = await gw.call('/v1/responses', {
      method: 'POST',
      body: { model: 'gw-chat', input, moderation: { model: 'text-moderation-latest' } },
    })
    expect(withImage.status).toBe(200)
    expect(withImage.body.moderation.input).toMatchObject({
      model: 'text-moderation-latest',
      error: { code: 'image_input_not_supported' },
    })
    expect(withImage.body.moderation.output.flagged).toBe(false)
    const omni = await gw.call('/v1/responses', {
      method: 'POST',
      body: { model: 'gw-chat', input, moderation: { model: 'omni-moderation-latest' } },
    })
    expect(omni.body.moderation.input.category_applied_input_types.violence).toEqual(['text', 'image'])
  })

  it('gives chat completions an error result for an image a text model cannot read', async () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image_url', image_url: { url: IMAGE } },
        ],
      },
    ]
    const res = await gw.call('/v1/chat/completions', {
      method: 'POST',
      body: { model: 'gw-chat', messages, moderation: { model: 'text-moderation-stable' } },
    })
    expect(res.status).toBe(200)
    expect(res.body.moderation.input).toMatchObject({ error: { code: 'image_input_not_supported' } })
    expect(typeof res.body.moderation.output.flagged).toBe('boolean')
  })

  it('does not moderate tools (their names, descriptions and schemas)', async () => {
    const tool = {
      type: 'function',
      name: 'attack_and_kill',
      description: 'kill them with a bomb',
      parameters: { type: 'object', properties: { gun: { type: 'string' } } },
    }
    const body = {
      model: 'gw-chat-mini',
      input: 'hello',
      moderation: { model: 'omni-moderation-latest' },
      tool_choice: 'none',
    }
    const [plain, withTool] = await Promise.all([
      gw.call('/v1/responses', { method: 'POST', body }),
      gw.call('/v1/responses', { method: 'POST', body: { ...body, tools: [tool] } }),
    ])
    expect(withTool.body.moderation.input).toEqual(plain.body.moderation.input)
  })
})

describe('real choices (gateway/variations.ts)', () => {
  const real = testGateway({ variations: ['moderation-more-categories'] })
  afterAll(() => real.app.close())

  it('moderation-more-categories: every map names a fourteenth category beside the thirteen', async () => {
    const res = await real.call('/v1/moderations', { method: 'POST', body: { input: 'A quiet morning.' } })
    expect(res.status).toBe(200)
    const [result] = res.body.results
    for (const map of [result.categories, result.category_scores, result.category_applied_input_types])
      expect(Object.keys(map)).toHaveLength(14)
  })
})

describe('moderation-min-tier-3', () => {
  const gated = testGateway({ variations: ['moderation-min-tier-3'] })
  afterAll(() => gated.app.close())
  const send = (model: string, key?: 'tier5') =>
    gated.call('/v1/moderations', {
      method: 'POST',
      body: { model, input: 'A quiet morning.' },
      ...(key ? { key } : {}),
    })

  it('text-moderation-stable and the guard model answer the tier-2 main key 403, a tier-5 key 200', async () => {
    for (const model of ['text-moderation-stable', 'gw-guard-1']) {
      expect((await send(model)).status).toBe(403)
      expect((await send(model, 'tier5')).status).toBe(200)
    }
    expect((await send('omni-moderation-latest')).status).toBe(200)
  })
})
