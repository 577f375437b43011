/** The other compatible endpoints of the reference gateway (Part 1 sections 4.8, 5.1, 7). */
import { describe, expect, it } from 'vitest'
import { EMBEDDING_DIMENSIONS } from '../../../gateway/compatible/simulate.ts'
import { classLimits } from '../../../gateway/limit-tables.ts'
import { KEYS, testGateway } from './helpers.ts'

const gw = testGateway()
const post = (path: string, body: unknown, options: Parameters<typeof gw.call>[1] = {}) =>
  gw.call(path, { method: 'POST', body, ...options })

describe('POST /v1/embeddings', () => {
  it('answers a unit vector per input, the same for the same text, with usage', async () => {
    const response = await post('/v1/embeddings', { model: 'gw-embed-1', input: ['one two', 'three'] })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({
      object: 'list',
      model: 'gw-embed-1',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    })
    const [a, b] = response.body.data
    expect(a).toMatchObject({ object: 'embedding', index: 0 })
    expect(a.embedding).toHaveLength(EMBEDDING_DIMENSIONS)
    expect(Math.hypot(...a.embedding)).toBeCloseTo(1, 3)
    const again = await post('/v1/embeddings', { model: 'gw-embed-1', input: 'one two' })
    expect(again.body.data[0].embedding).toEqual(a.embedding)
    expect(b.embedding).not.toEqual(a.embedding)
  })

  it('honours dimensions and base64, and refuses a missing input', async () => {
    const response = await post('/v1/embeddings', {
      model: 'gw-embed-1',
      input: 'x',
      dimensions: 8,
      encoding_format: 'base64',
    })
    expect(Buffer.from(response.body.data[0].embedding, 'base64')).toHaveLength(8 * 4)
    expect((await post('/v1/embeddings', { model: 'gw-embed-1' })).status).toBe(400)
  })
})

describe('POST /v1/completions', () => {
  it('answers a text_completion, cut at max_tokens', async () => {
    const response = await post('/v1/completions', {
      model: 'gw-complete-1',
      prompt: 'Once upon a time',
      max_tokens: 3,
    })
    expect(response.body).toMatchObject({
      object: 'text_completion',
      model: 'gw-complete-1',
      choices: [{ index: 0, finish_reason: 'length' }],
      usage: { completion_tokens: 3 },
    })
  })

  it('streams text_completion chunks and [DONE]', async () => {
    const response = await post('/v1/completions', {
      model: 'gw-complete-1',
      prompt: 'Hi',
      max_tokens: 4,
      stream: true,
    })
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/)
    const data = (response.body as string)
      .split('\n\n')
      .filter(Boolean)
      .map((block) => block.slice('data: '.length))
    expect(data.at(-1)).toBe('[DONE]')
    expect(JSON.parse(data.at(-2) as string).choices[0].finish_reason).toBe('length')
  })
})

describe('POST /v1/images/generations and /v1/images/edits', () => {
  it('answers n PNG images', async () => {
    const response = await post('/v1/images/generations', { model: 'gw-image-1', prompt: 'a red square', n: 2 })
    expect(response.status).toBe(200)
    expect(response.body.data).toHaveLength(2)
    expect(Buffer.from(response.body.data[0].b64_json, 'base64').subarray(1, 4).toString()).toBe('PNG')
    expect(
      (await post('/v1/images/generations', { model: 'gw-image-1', prompt: 'x', response_format: 'url' })).body.data[0]
        .url,
    ).toMatch(/^data:image\/png;base64,/)
  })

  it('edits take a stored file id: unknown 404, missing 400, multipart 400', async () => {
    expect((await post('/v1/images/edits', { model: 'gw-image-1', prompt: 'blue', image: 'file-nope' })).status).toBe(
      404,
    )
    expect((await post('/v1/images/edits', { model: 'gw-image-1', prompt: 'blue' })).status).toBe(400)
    const multipart = await gw.app.inject({
      method: 'POST',
      url: '/v1/images/edits',
      headers: { authorization: `Bearer ${KEYS.main}`, 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x--\r\n',
    })
    expect(multipart.statusCode).toBe(400)
  })
})

describe('POST /v1/messages', () => {
  it('answers the messages convention, with Bearer or x-api-key', async () => {
    const body = {
      model: 'gw-chat-mini',
      max_tokens: 3,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    }
    for (const form of ['bearer', 'x-api-key'] as const) {
      const response = await post('/v1/messages', body, { form })
      expect(response.status).toBe(200)
      expect(response.body).toMatchObject({
        type: 'message',
        role: 'assistant',
        model: 'gw-chat-mini',
        stop_reason: 'max_tokens',
        usage: { input_tokens: 4, output_tokens: 3 },
      })
      expect(response.body.content[0].type).toBe('text')
    }
  })

  it('refuses a missing max_tokens, a system role in messages, and stream', async () => {
    const messages = [{ role: 'user', content: 'Hi' }]
    expect((await post('/v1/messages', { model: 'gw-chat-mini', messages })).status).toBe(400)
    expect(
      (
        await post('/v1/messages', {
          model: 'gw-chat-mini',
          max_tokens: 5,
          messages: [{ role: 'system', content: 'x' }],
        })
      ).status,
    ).toBe(400)
    expect((await post('/v1/messages', { model: 'gw-chat-mini', max_tokens: 5, messages, stream: true })).status).toBe(
      400,
    )
  })
})

describe('shared rules (sections 1.5, 5.1, 7)', () => {
  const paths = ['/v1/images/generations', '/v1/images/edits', '/v1/embeddings', '/v1/completions', '/v1/messages']

  it('every endpoint needs a key and refuses a body that is not JSON with 400', async () => {
    for (const path of paths) {
      expect((await post(path, { model: 'x' }, { key: null })).status).toBe(401)
      const bad = await gw.app.inject({
        method: 'POST',
        url: path,
        headers: { authorization: `Bearer ${KEYS.main}`, 'content-type': 'application/json' },
        payload: '{"model": ',
      })
      expect(bad.statusCode).toBe(400)
    }
  })

  it('refuses unknown models (404), other modes (400) and models above the tier (403)', async () => {
    expect((await post('/v1/embeddings', { model: 'nope', input: 'x' })).status).toBe(404)
    expect((await post('/v1/embeddings', { model: 'gw-chat', input: 'x' })).status).toBe(400)
    expect(
      (await post('/v1/messages', { model: 'gw-chat-pro', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }))
        .status,
    ).toBe(403)
  })

  it('compat-malformed-json-500: embeddings answer 500 to a body that is not JSON, other errors unchanged', async () => {
    const faulty = testGateway({ faults: ['compat-malformed-json-500'] })
    const bad = await faulty.app.inject({
      method: 'POST',
      url: '/v1/embeddings',
      headers: { authorization: `Bearer ${KEYS.main}`, 'content-type': 'application/json' },
      payload: '{',
    })
    expect(bad.statusCode).toBe(500)
    expect(bad.headers['svc-request-id']).toBeDefined()
    expect((await faulty.call('/v1/embeddings', { method: 'POST', body: { model: 'gw-embed-1' } })).status).toBe(400)
  })
})

describe('error-body-shape (gateway/variations.ts; §7: 400, 404 and 500 bodies are not shown)', () => {
  const varied = testGateway({ variations: ['error-body-shape'] })

  it('answers 400 and 404 on /v1 as { error, message }', async () => {
    const missing = await varied.call('/v1/embeddings', { method: 'POST', body: { input: 'x' } })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ error: 'invalid_request', message: expect.any(String) })
    const route = await varied.call('/v1/gc-no-such-route')
    expect(route.status).toBe(404)
    expect(route.body).toEqual({ error: 'not_found', message: expect.any(String) })
  })

  it('keeps what §7 states: the 429 error object, and the 401 of /user/v1', async () => {
    expect((await varied.call('/user/v1/credit', { key: null })).body.error).toBe('unauthorized')
    const limited = testGateway({ variations: ['error-body-shape'] })
    const calls = Array.from({ length: classLimits('account', 0).rpm + 1 }, () =>
      limited.call('/v1/models', { key: 'tier0' }),
    )
    const refused = (await Promise.all(calls)).find((r) => r.status === 429)
    expect(refused?.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' })
  })
})
