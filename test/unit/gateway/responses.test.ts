/** The responses endpoint of the reference gateway (Part 1 §2.5, §2.7, §3, §4.5, §6.2-6.4, §7). */
import { afterAll, describe, expect, test, vi } from 'vitest'
import { BACKGROUND_DEFAULTS } from '../../../gateway/responses/background.ts'
import { countTokens } from '../../../gateway/simulate/tokenizer.ts'
import { collectSse, eventJson } from '../../../harness/worker/sse.ts'
import { sleep, testGateway } from './helpers.ts'

const gw = testGateway()
afterAll(() => gw.app.close())

const BASE = { model: 'gw-chat-mini', input: 'Explain what a gateway does.', temperature: 0 }

function post(body: unknown, key?: 'tier5' | 'tier0') {
  return gw.call('/v1/responses', { method: 'POST', body, ...(key ? { key } : {}) })
}

async function streamOf(body: Record<string, unknown>) {
  const response = await gw.app.inject({
    method: 'POST',
    url: '/v1/responses',
    headers: { authorization: `Bearer ${gw.state.accounts.main().key.value}` },
    payload: { ...body, stream: true },
  })
  const { events, end } = await collectSse(
    (async function* () {
      yield response.body
    })(),
  )
  return {
    response,
    end,
    // biome-ignore lint/suspicious/noExplicitAny: the tests read an event's fields as freely as CallResult.body's
    events: events.map((e) => ({ name: e.event, data: (eventJson(e) as { ok: true; value: any }).value })),
  }
}

describe('request checks (§4.5, §8.5, §7)', () => {
  test.each([
    ['metadata of 17 pairs', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }],
    ['a metadata key of 65 characters', { metadata: { ['k'.repeat(65)]: 'v' } }],
    ['a metadata value of 513 characters', { metadata: { k: 'v'.repeat(513) } }],
    ['temperature 2.01', { temperature: 2.01 }],
    ['temperature -0.01', { temperature: -0.01 }],
    ['top_logprobs 21', { top_logprobs: 21 }],
    ['top_logprobs -1', { top_logprobs: -1 }],
    ['a safety_identifier of 65 characters', { safety_identifier: 's'.repeat(65) }],
    ['n (rule 1)', { n: 2 }],
    ['response_format (rule 2)', { response_format: { type: 'json_object' } }],
    ['stream_options without stream', { stream_options: {} }],
    ['conversation (not enabled)', { conversation: 'conv_1' }],
    ['a built-in tool', { tools: [{ type: 'web_search' }] }],
    ['tool_choice required without tools', { tool_choice: 'required' }],
    ['a non-chat model', { model: 'gw-embed-1' }],
  ])('%s is refused with 400 and a compatible error body', async (_, extra) => {
    const res = await post({ ...BASE, ...extra })
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.any(String) })
  })

  test('the largest valid values are accepted', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${i}`.padEnd(64, 'k'), 'v'.repeat(512)]))
    const res = await post({
      ...BASE,
      metadata,
      temperature: 2,
      top_logprobs: 20,
      include: ['message.output_text.logprobs'],
      safety_identifier: 's'.repeat(64),
      max_output_tokens: 8,
    })
    expect(res.status).toBe(200)
    expect(res.body.output[0].content[0].logprobs[0].top_logprobs).toHaveLength(20)
  })

  test('missing input or model: 400; unknown model: 404; a model above the tier: 403', async () => {
    expect((await post({ model: 'gw-chat-mini' })).status).toBe(400)
    expect((await post({ input: 'hi' })).status).toBe(400)
    expect((await post({ ...BASE, model: 'no-such-model' })).status).toBe(404)
    expect((await post({ ...BASE, model: 'gw-chat-ultra' })).status).toBe(403)
    expect((await post({ ...BASE, model: 'gw-chat-ultra' }, 'tier5')).status).toBe(200)
  })

  test('conversation with previous_response_id is refused', async () => {
    const first = await post(BASE)
    const res = await post({ ...BASE, previous_response_id: first.body.id, conversation: 'conv_1' })
    expect(res.status).toBe(400)
    expect(res.body.error.message).toMatch(/previous_response_id/)
  })
})

describe('generation (§2.5, §2.7, §3, §4.5)', () => {
  test('the same request at temperature 0 gives the same text and usage; usage adds up', async () => {
    const [a, b] = [await post(BASE), await post(BASE)]
    expect(a.body.output_text).toBe(b.body.output_text)
    expect(a.body.usage).toEqual(b.body.usage)
    expect(a.body).toMatchObject({ status: 'completed', incomplete_details: null, object: 'response' })
    expect(a.body.usage.input_tokens).toBe(countTokens(BASE.input))
    expect(a.body.usage.output_tokens).toBe(countTokens(a.body.output_text))
    expect(a.body.output[0].content[0].text).toBe(a.body.output_text)
  })

  test('max_output_tokens cuts the answer: incomplete, reason max_output_tokens', async () => {
    const res = await post({ ...BASE, max_output_tokens: 5 })
    expect(res.body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })
    expect(res.body.usage.output_tokens).toBe(5)
  })

  test('rule 7: hidden reasoning that eats the budget leaves no message, and is inside output_tokens', async () => {
    const res = await post({ ...BASE, model: 'gw-reasoner', max_output_tokens: 10 })
    expect(res.body).toMatchObject({
      status: 'incomplete',
      output_text: '',
      usage: { output_tokens: 10, output_tokens_details: { reasoning_tokens: 10 } },
    })
    expect(res.body.output.map((i: { type: string }) => i.type)).toEqual(['reasoning'])
  })

  test('instructions count as input tokens', async () => {
    const res = await post({ ...BASE, instructions: 'Be brief and kind.' })
    expect(res.body.usage.input_tokens).toBe(countTokens(BASE.input) + countTokens('Be brief and kind.'))
  })

  test('text.format json_schema gives JSON that fits the schema', async () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        count: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['name', 'count', 'tags'],
      additionalProperties: false,
    }
    const res = await post({ ...BASE, text: { format: { type: 'json_schema', name: 'thing', schema, strict: true } } })
    const value = JSON.parse(res.body.output_text)
    expect(value).toEqual({ name: expect.any(String), count: expect.any(Number), tags: [expect.any(String)] })
  })

  test('tool_choice required calls the tool; auto calls it when the input names it; a tool output gets text', async () => {
    const tool = {
      type: 'function',
      name: 'get_time',
      parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
      strict: true,
    }
    const required = await post({ ...BASE, tools: [tool], tool_choice: 'required' })
    const call = required.body.output.find((i: { type: string }) => i.type === 'function_call')
    expect(call).toMatchObject({ name: 'get_time', call_id: expect.any(String) })
    expect(JSON.parse(call.arguments)).toEqual({ zone: expect.any(String) })
    expect((await post({ ...BASE, tools: [tool] })).body.output[0].type).toBe('message')
    expect((await post({ ...BASE, input: 'Please get_time for me', tools: [tool] })).body.output[0].type).toBe(
      'function_call',
    )
    const replay = [
      { role: 'user', content: 'Time?' },
      { type: 'function_call', call_id: call.call_id, name: 'get_time', arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: '12:00' },
    ]
    expect((await post({ ...BASE, input: replay, tools: [tool], tool_choice: 'required' })).body.output[0].type).toBe(
      'message',
    )
  })

  test('over the window: 400 with truncation disabled, truncated with auto', async () => {
    const input = 'a '.repeat(128_001)
    const refused = await post({ ...BASE, input })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 'context_length_exceeded', param: 'input' })
    const truncated = await post({ ...BASE, input, truncation: 'auto', max_output_tokens: 4 })
    expect(truncated.status).toBe(200)
    expect(truncated.body.usage.input_tokens).toBe(128_000)
  })

  test('inline moderation covers input and output; a violent text is flagged', async () => {
    const res = await post({ ...BASE, moderation: { model: 'omni-moderation-latest' } })
    expect(res.body.moderation).toMatchObject({ input: { flagged: false }, output: { flagged: false } })
    const violent = await post({
      ...BASE,
      input: 'How to attack a castle',
      moderation: { model: 'omni-moderation-latest' },
    })
    expect(violent.body.moderation.input).toMatchObject({ flagged: true, categories: { violence: true } })
    expect((await post({ ...BASE, moderation: { model: 'gw-chat' } })).status).toBe(400)
  })
})

describe('stored responses and chains (§4.5)', () => {
  test('retrieve, input items, other accounts, store false', async () => {
    const created = await post(BASE)
    const got = await gw.call(`/v1/responses/${created.body.id}`)
    expect(got.body).toEqual(created.body)
    const items = await gw.call(`/v1/responses/${created.body.id}/input_items`)
    expect(items.body).toMatchObject({
      object: 'list',
      data: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: BASE.input }] }],
      has_more: false,
    })
    expect((await gw.call(`/v1/responses/${created.body.id}`, { key: 'tier5' })).status).toBe(404)
    const unstored = await post({ ...BASE, store: false })
    expect((await gw.call(`/v1/responses/${unstored.body.id}`)).status).toBe(404)
    expect((await post({ ...BASE, previous_response_id: unstored.body.id })).status).toBe(400)
  })

  test('rule 4: the chain counts as input; instructions are not carried over', async () => {
    const first = await post({ ...BASE, instructions: 'Answer in French, please.' })
    const second = await post({ ...BASE, input: 'Shorter.', previous_response_id: first.body.id })
    const firstContext = countTokens(BASE.input) + countTokens(first.body.output_text)
    expect(second.body.usage.input_tokens).toBe(firstContext + countTokens('Shorter.'))
    expect(second.body.instructions).toBeNull()
  })
})

describe('background responses (§3, §4.5)', () => {
  // The phases run on the gateway's timers; stepping them by hand makes each phase observable however busy the
  // machine is, where a poll in real time could sleep through the in_progress phase.
  test('queued, then in_progress, then completed, each for its phase length', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const created = await post({ ...BASE, background: true })
      expect(created.body).toMatchObject({ status: 'queued', output: [], usage: null })
      const status = async () => (await gw.call(`/v1/responses/${created.body.id}`)).body
      const { queuedMs, inProgressMs } = BACKGROUND_DEFAULTS
      await vi.advanceTimersByTimeAsync(queuedMs - 1)
      expect((await status()).status).toBe('queued')
      await vi.advanceTimersByTimeAsync(1)
      expect((await status()).status).toBe('in_progress')
      await vi.advanceTimersByTimeAsync(inProgressMs - 1)
      expect((await status()).status).toBe('in_progress')
      await vi.advanceTimersByTimeAsync(1)
      const done = await status()
      expect(done.status).toBe('completed')
      expect(done.usage).toMatchObject({ input_tokens: expect.any(Number) })
    } finally {
      vi.useRealTimers()
    }
  })

  test('a background response finishes by itself on the real clock', async () => {
    const created = await post({ ...BASE, background: true })
    const seen = ['queued']
    let last = created
    for (let waited = 0; last.body.status !== 'completed' && waited < 10_000; waited += 20) {
      await sleep(20)
      last = await gw.call(`/v1/responses/${created.body.id}`)
      if (seen.at(-1) !== last.body.status) seen.push(last.body.status)
    }
    // A poll may sleep through a phase on a busy machine: what it saw is the order, with none out of it.
    expect(['queued', 'in_progress', 'completed'].filter((s) => seen.includes(s))).toEqual(seen)
    expect(seen.at(-1)).toBe('completed')
  })

  test('cancel while running; not once finished, nor a foreground response', async () => {
    const created = await post({ ...BASE, background: true })
    const cancelled = await gw.call(`/v1/responses/${created.body.id}/cancel`, { method: 'POST' })
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } })
    await sleep(350)
    expect((await gw.call(`/v1/responses/${created.body.id}`)).body.status).toBe('cancelled')
    expect((await gw.call(`/v1/responses/${created.body.id}/cancel`, { method: 'POST' })).status).toBe(400)
    const foreground = await post(BASE)
    expect((await gw.call(`/v1/responses/${foreground.body.id}/cancel`, { method: 'POST' })).status).toBe(400)
    expect((await post({ ...BASE, background: true, store: false })).status).toBe(400)
  })
})

describe('streams (§6.2-6.4) and transactions (§2.2)', () => {
  test('created first, deltas that join to output_text, completed last; names equal data.type', async () => {
    const { response, end, events } = await streamOf(BASE)
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/)
    expect(response.headers['svc-request-id']).toBeDefined()
    expect(end.cleanEnd).toBe(true)
    expect(events[0]?.data.type).toBe('response.created')
    expect(events.at(-1)?.data.type).toBe('response.completed')
    expect(events.every((e) => e.name === e.data.type)).toBe(true)
    const deltas = events
      .filter((e) => e.data.type === 'response.output_text.delta')
      .map((e) => e.data.delta)
      .join('')
    expect(deltas).toBe(events.at(-1)?.data.response.output_text)
    expect(events.at(-1)?.data.response.usage).toEqual((await post(BASE)).body.usage)
  })

  test('a cut stream ends with response.incomplete; a tool call streams its arguments', async () => {
    expect((await streamOf({ ...BASE, max_output_tokens: 3 })).events.at(-1)?.data.type).toBe('response.incomplete')
    const tool = {
      type: 'function',
      name: 'get_time',
      parameters: { type: 'object', properties: { zone: { type: 'string' } } },
    }
    const { events } = await streamOf({ ...BASE, tools: [tool], tool_choice: 'required' })
    const args = events
      .filter((e) => e.data.type === 'response.function_call_arguments.delta')
      .map((e) => e.data.delta)
      .join('')
    expect(events.find((e) => e.data.type === 'response.function_call_arguments.done')?.data.arguments).toBe(args)
  })

  test('moderation results arrive only with the terminal event', async () => {
    const { events } = await streamOf({ ...BASE, moderation: { model: 'omni-moderation-latest' } })
    expect(events.filter((e) => e.data.response?.moderation).map((e) => e.data.type)).toEqual(['response.completed'])
  })

  test('the transaction of a stream has stream true, its tokens, the model and the safety identifier', async () => {
    const { response, events } = await streamOf({ ...BASE, safety_identifier: 'gc-user-1' })
    const usage = events.at(-1)?.data.response.usage
    const record = gw.state.transactions.findById(String(response.headers['svc-request-id']))?.record
    expect(record).toMatchObject({
      stream: true,
      model: 'gw-chat-mini',
      safety_identifier: 'gc-user-1',
      tokens: { prompt: usage.input_tokens, completion: usage.output_tokens, reasoning: 0 },
    })
  })
})

describe('real choices (gateway/variations.ts)', () => {
  const real = testGateway({
    variations: [
      'no-background',
      'no-output-text',
      'no-inline-moderation',
      'opaque-response-ids',
      'conversations-not-found',
    ],
  })
  afterAll(() => real.app.close())
  const send = (body: unknown) => real.call('/v1/responses', { method: 'POST', body })

  test('no-background: background true is answered finished in the foreground, and stays so', async () => {
    const res = await send({ ...BASE, background: true })
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('completed')
    expect((await real.call(`/v1/responses/${res.body.id}`)).body.status).toBe('completed')
  })

  test('no-output-text: the response object has output but no output_text, streamed or not', async () => {
    const res = await send(BASE)
    expect(res.body.output.length).toBeGreaterThan(0)
    expect(res.body).not.toHaveProperty('output_text')
  })

  test('no-inline-moderation: the moderation object is accepted and ignored', async () => {
    const res = await send({ ...BASE, moderation: { model: 'omni-moderation-latest' } })
    expect(res.status).toBe(200)
    expect(res.body).not.toHaveProperty('moderation')
  })

  test('opaque-response-ids: an id of a form never issued is 400; a well-formed unknown id is 404', async () => {
    expect((await real.call('/v1/responses/resp_gc_no_such')).status).toBe(400)
    expect((await real.call(`/v1/responses/resp_${'0'.repeat(32)}`)).status).toBe(404)
  })

  test('conversations-not-found: a conversation answers 404, alone or with previous_response_id', async () => {
    expect((await send({ ...BASE, conversation: 'conv_1' })).status).toBe(404)
    const first = await send(BASE)
    expect((await send({ ...BASE, conversation: 'conv_1', previous_response_id: first.body.id })).status).toBe(404)
  })
})

describe('faults of the new checks', () => {
  const faulty = testGateway({
    faults: ['unknown-response-500', 'background-status-pending', 'input-file-two-sources-accepted'],
  })
  afterAll(() => faulty.app.close())
  const send = (body: unknown) => faulty.call('/v1/responses', { method: 'POST', body })
  const file = { type: 'input_file', file_id: 'file-1', file_data: 'data:text/plain;base64,aGk=' }

  test('unknown-response-500: an id never issued answers 500; one issued with store false still 404', async () => {
    expect((await faulty.call('/v1/responses/resp_gc_no_such')).status).toBe(500)
    const unstored = await send({ ...BASE, store: false })
    expect((await faulty.call(`/v1/responses/${unstored.body.id}`)).status).toBe(404)
  })

  test('background-status-pending: the answer says pending while the job is queued', async () => {
    const res = await send({ ...BASE, background: true })
    expect(res.body.status).toBe('pending')
    expect((await faulty.call(`/v1/responses/${res.body.id}`)).body.status).toMatch(/queued|in_progress|completed/)
  })

  test('input-file-two-sources-accepted: file_id with file_data is accepted; the faithful gateway refuses it', async () => {
    const input = [{ role: 'user', content: [{ type: 'input_text', text: 'Read it.' }, file] }]
    expect((await send({ ...BASE, input })).status).toBe(200)
    expect((await post({ ...BASE, input })).status).toBe(400)
  })
})

describe('long-reasoning (rule 7)', () => {
  const thinking = testGateway({ variations: ['long-reasoning'] })
  afterAll(() => thinking.app.close())

  test('a short budget ends incomplete with no text; a roomy one reasons first, then answers', async () => {
    const send = (max: number) =>
      thinking.call('/v1/responses', { method: 'POST', body: { ...BASE, max_output_tokens: max } })
    const short = await send(96)
    expect(short.body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })
    expect(short.body.output_text).toBe('')
    const roomy = await send(1024)
    expect(roomy.body.status).toBe('completed')
    expect(roomy.body.usage.output_tokens_details.reasoning_tokens).toBeGreaterThanOrEqual(128)
    expect(roomy.body.output_text).not.toBe('')
  })
})

describe('model-dependent features and wrapped inline results', () => {
  const varied = testGateway({
    variations: ['logprobs-model-dependent', 'temperature-to-1', 'inline-results-wrapped'],
  })
  afterAll(() => varied.app.close())
  const send = (body: unknown) => varied.call('/v1/responses', { method: 'POST', body })
  const logprobs = { top_logprobs: 0, include: ['message.output_text.logprobs'] }

  test('logprobs-model-dependent: gw-chat-mini refuses logprobs; another model takes them', async () => {
    expect((await send({ ...BASE, ...logprobs })).status).toBe(400)
    expect((await send({ ...BASE, ...logprobs, model: 'gw-chat' })).status).toBe(200)
  })

  test('temperature-to-1: gw-chat-mini takes 1 but refuses 1.5; another model takes 2', async () => {
    expect((await send({ ...BASE, temperature: 1 })).status).toBe(200)
    expect((await send({ ...BASE, temperature: 1.5 })).status).toBe(400)
    expect((await send({ ...BASE, model: 'gw-chat', temperature: 2 })).status).toBe(200)
  })

  test('inline-results-wrapped: each side is a results array of flagged results', async () => {
    const res = await send({ ...BASE, moderation: { model: 'omni-moderation-latest' } })
    expect(res.status).toBe(200)
    for (const side of ['input', 'output']) {
      expect(res.body.moderation[side].results).toHaveLength(1)
      expect(typeof res.body.moderation[side].results[0].flagged).toBe('boolean')
    }
  })

  test('faults of the split limits refuse the largest valid value', async () => {
    const faulty = testGateway({
      faults: [
        'metadata-16-pairs-refused',
        'temperature-2-refused',
        'top-logprobs-20-refused',
        'safety-identifier-64-refused',
      ],
    })
    const sendF = (body: unknown) => faulty.call('/v1/responses', { method: 'POST', body })
    const metadata = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v']))
    expect((await sendF({ ...BASE, metadata })).status).toBe(400)
    expect((await sendF({ ...BASE, temperature: 2 })).status).toBe(400)
    expect((await sendF({ ...BASE, temperature: 1.5 })).status).toBe(200)
    expect((await sendF({ ...BASE, top_logprobs: 20, include: logprobs.include })).status).toBe(400)
    expect((await sendF({ ...BASE, safety_identifier: 'x'.repeat(64) })).status).toBe(400)
    await faulty.app.close()
  })
})
