/**
 * The announced but unavailable surfaces (Part 1 sections 1.6, 4.6, 4.9, 7): unsupported-route errors by
 * default, and the planned shapes and rules that the `planned-*` faults offer.
 */
import { describe, expect, it } from 'vitest'
import { testGateway } from './helpers.ts'

const PLANNED: Array<['GET' | 'POST', string]> = [
  ['POST', '/v1/responses/input_tokens'],
  ['POST', '/v1/batches'],
  ['GET', '/v1/batches'],
  ['GET', '/v1/batches/b1'],
  ['POST', '/v1/batches/b1/cancel'],
  ['POST', '/v1/assistants'],
  ['POST', '/v1/threads'],
  ['POST', '/v1/threads/t1/messages'],
  ['POST', '/v1/threads/t1/runs'],
  ['POST', '/v1/fine-tuning/jobs'],
  ['GET', '/v1/fine-tuning/jobs'],
  ['GET', '/v1/fine-tuning/jobs/j1'],
  ['POST', '/v1/fine-tuning/jobs/j1/cancel'],
  ['GET', '/v1/fine-tuning/jobs/j1/events'],
  ['POST', '/v1/fine-tuning/jobs/j1/pause'],
  ['POST', '/v1/fine-tuning/jobs/j1/resume'],
  ['GET', '/v1/fine-tuning/jobs/j1/checkpoints'],
]

describe('unsupported-route errors (sections 1.6, 5.1, 7)', () => {
  const gw = testGateway()

  it('answers every planned route like an unknown route: 404 unsupported_route, with or without a key', async () => {
    for (const [method, path] of PLANNED) {
      const response = await gw.call(path, { method, ...(method === 'POST' ? { body: {} } : {}) })
      expect(response.status, `${method} ${path}`).toBe(404)
      expect(response.body.error).toMatchObject({
        type: 'invalid_request_error',
        param: null,
        code: 'unsupported_route',
        message: expect.any(String),
      })
      expect(response.headers['x-ratelimit-limit-requests']).toBeDefined()
      expect((await gw.call(path, { method, key: null })).status).toBe(404)
    }
    expect(gw.state.transactions.findById((await gw.call('/v1/batches')).id)?.record.status_code).toBe(404)
  })

  it('offered routes need a key (section 5.1); pause stays unavailable where fine-tuning is offered', async () => {
    const offered = testGateway({ faults: ['planned-fine-tuning-job-malformed'] })
    expect((await offered.call('/v1/fine-tuning/jobs', { key: null })).status).toBe(401)
    expect((await offered.call('/v1/fine-tuning/jobs/j1/pause', { method: 'POST', body: {} })).body.error.code).toBe(
      'unsupported_route',
    )
    expect((await offered.call('/v1/batches')).body.error.code).toBe('unsupported_route')
  })

  it('planned-route-plain-text: a 404 page that is not JSON, with the shared headers', async () => {
    const faulty = testGateway({ faults: ['planned-route-plain-text'] })
    const response = await faulty.call('/v1/batches')
    expect(response.status).toBe(404)
    expect(response.headers['content-type']).toMatch(/^text\/plain/)
    expect(response.headers['svc-request-id']).toBeDefined()
  })
})

describe('batches, offered under a planned-batch-* fault (sections 2.8, 3, 4.9, 8.5)', () => {
  const gw = testGateway({ faults: ['planned-batch-object-malformed'] })
  const create = (fields: Record<string, unknown> = {}) =>
    gw.call('/v1/batches', {
      method: 'POST',
      body: { input_file_id: 'file-1', endpoint: '/v1/embeddings', completion_window: '24h', ...fields },
    })

  it('creates, lists, retrieves and cancels; cancelling becomes cancelled at the next read', async () => {
    const created = await create({ metadata: { a: 'b' } })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      object: 'batch',
      status: 'validating',
      endpoint: '/v1/embeddings',
      completion_window: '24h',
      metadata: { a: 'b' },
      request_counts: { total: 0 },
    })
    expect(typeof created.body.created_at).toBe('string') // the fault's one defect
    const cancelled = await gw.call(`/v1/batches/${created.body.id}/cancel`, { method: 'POST', body: {} })
    expect(cancelled.body.status).toBe('cancelling')
    expect((await gw.call(`/v1/batches/${created.body.id}`)).body.status).toBe('cancelled')
    expect((await gw.call(`/v1/batches/${created.body.id}/cancel`, { method: 'POST', body: {} })).status).toBe(400)
    const list = await gw.call('/v1/batches?limit=1')
    expect(list.body).toMatchObject({ object: 'list', first_id: created.body.id, has_more: false })
    expect((await gw.call('/v1/batches/batch_nope')).status).toBe(404)
  })

  it.each([
    ['completion_window 48h', { completion_window: '48h' }],
    ['an endpoint outside the list', { endpoint: '/v1/files' }],
    ['17 metadata pairs', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }],
    ['a 65-character metadata key', { metadata: { ['k'.repeat(65)]: 'v' } }],
    ['a 513-character metadata value', { metadata: { k: 'v'.repeat(513) } }],
    ['no input_file_id', { input_file_id: undefined }],
  ])('refuses %s with 400', async (_what, fields) => {
    expect((await create(fields)).status).toBe(400)
  })

  it('takes list limits 1 to 100', async () => {
    for (const [limit, status] of [
      [1, 200],
      [100, 200],
      [0, 400],
      [101, 400],
    ] as const)
      expect((await gw.call(`/v1/batches?limit=${limit}`)).status).toBe(status)
  })
})

describe('assistants and threads, offered under a planned-assistant-* or planned-threads-* fault (sections 2.10, 4.9)', () => {
  const gw = testGateway({ faults: ['planned-threads-any-role'] })
  const post = (path: string, body: unknown) => gw.call(path, { method: 'POST', body })

  it('creates an assistant of §2.10 within the limits and refuses past them', async () => {
    const created = await post('/v1/assistants', {
      model: 'gw-chat',
      name: 'n'.repeat(256),
      tools: [{ type: 'code_interpreter' }],
    })
    expect(created.body).toMatchObject({
      object: 'assistant',
      model: 'gw-chat',
      description: null,
      instructions: null,
      file_ids: [],
      metadata: {},
    })
    expect((await post('/v1/assistants', { model: 'gw-chat', name: 'n'.repeat(257) })).status).toBe(400)
    expect(
      (
        await post('/v1/assistants', {
          model: 'gw-chat',
          tools: Array.from({ length: 129 }, () => ({ type: 'code_interpreter' })),
        })
      ).status,
    ).toBe(400)
    expect((await post('/v1/assistants', { model: 'gw-chat', tools: [{ type: 'function' }] })).status).toBe(400)
    expect((await post('/v1/assistants', { name: 'x' })).status).toBe(400)
  })

  it('threads take messages and runs; the fault lets an assistant message through', async () => {
    const assistant = await post('/v1/assistants', { model: 'gw-chat' })
    const thread = await post('/v1/threads', {})
    expect(thread.body.object).toBe('thread')
    expect((await post(`/v1/threads/${thread.body.id}/messages`, { role: 'user', content: 'Hi' })).body).toMatchObject({
      object: 'thread.message',
      role: 'user',
    })
    expect((await post(`/v1/threads/${thread.body.id}/messages`, { role: 'assistant', content: 'Hi' })).status).toBe(
      200,
    )
    expect((await post(`/v1/threads/${thread.body.id}/messages`, { role: 'user' })).status).toBe(400)
    expect((await post(`/v1/threads/${thread.body.id}/runs`, {})).status).toBe(400)
    expect((await post(`/v1/threads/${thread.body.id}/runs`, { assistant_id: 'asst_nope' })).status).toBe(404)
    expect((await post(`/v1/threads/${thread.body.id}/runs`, { assistant_id: assistant.body.id })).body).toMatchObject({
      object: 'thread.run',
      status: 'queued',
    })
    expect((await post('/v1/threads/thread_nope/messages', { role: 'user', content: 'Hi' })).status).toBe(404)
  })
})

describe('fine-tuning and token counting, offered under their faults (sections 2.9, 4.6, 4.9)', () => {
  it('fine-tuning jobs: create, list, retrieve, events, cancel; suffix at most 64; pause stays unavailable', async () => {
    const gw = testGateway({ faults: ['planned-fine-tuning-job-malformed'] })
    const created = await gw.call('/v1/fine-tuning/jobs', {
      method: 'POST',
      body: { model: 'gw-chat', training_file: 'file-1', suffix: 's'.repeat(64), hyperparameters: { n_epochs: 3 } },
    })
    expect(created.body).toMatchObject({
      object: 'fine_tuning.job',
      status: 'validating_files',
      hyperparameters: { n_epochs: 3, batch_size: 'auto' },
      result_files: [],
      trained_tokens: null,
    })
    const id = created.body.id
    expect((await gw.call('/v1/fine-tuning/jobs')).body.data[0].id).toBe(id)
    expect((await gw.call(`/v1/fine-tuning/jobs/${id}/events`)).body.data[0].object).toBe('fine_tuning.job.event')
    expect((await gw.call(`/v1/fine-tuning/jobs/${id}/cancel`, { method: 'POST', body: {} })).body.status).toBe(
      'cancelled',
    )
    expect((await gw.call(`/v1/fine-tuning/jobs/${id}/pause`, { method: 'POST', body: {} })).body.error.code).toBe(
      'unsupported_route',
    )
    for (const body of [
      { model: 'gw-chat', training_file: 'f', suffix: 's'.repeat(65) },
      { model: 'gw-chat' },
      { model: 'gw-chat', training_file: 'f', method: 'magic' },
    ]) {
      expect((await gw.call('/v1/fine-tuning/jobs', { method: 'POST', body })).status).toBe(400)
    }
  })

  it('token counting answers the count of instructions, input and tools (as a string, the fault)', async () => {
    const gw = testGateway({ faults: ['planned-input-tokens-string'] })
    const response = await gw.call('/v1/responses/input_tokens', {
      method: 'POST',
      body: { model: 'gw-chat', instructions: 'Be brief.', input: 'Hello there' },
    })
    expect(response.body).toEqual({ object: 'response.input_tokens', input_tokens: '5' })
    expect((await gw.call('/v1/responses/input_tokens', { method: 'POST', body: { model: 'gw-chat' } })).status).toBe(
      400,
    )
  })
})

describe('variations (gateway/variations.ts)', () => {
  it('unsupported-route-400: a planned route answers 400 unsupported_route, as §7 leaves the status open', async () => {
    const varied = testGateway({ variations: ['unsupported-route-400'] })
    const response = await varied.call('/v1/batches')
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe('unsupported_route')
    expect((await varied.call('/v1/batches', { key: null })).status).toBe(401)
  })

  it('input-tokens-offered: token counting answers its planned shape; the other surfaces stay unavailable', async () => {
    const varied = testGateway({ variations: ['input-tokens-offered'] })
    const short = await varied.call('/v1/responses/input_tokens', {
      method: 'POST',
      body: { model: 'gw-chat-mini', input: 'Hello.' },
    })
    const long = await varied.call('/v1/responses/input_tokens', {
      method: 'POST',
      body: { model: 'gw-chat-mini', input: 'Hello, gateway: count these words as well, please.' },
    })
    expect(short.status).toBe(200)
    expect(Number.isInteger(short.body.input_tokens)).toBe(true)
    expect(long.body.input_tokens).toBeGreaterThan(short.body.input_tokens)
    expect((await varied.call('/v1/batches')).status).toBe(404)
  })
})
