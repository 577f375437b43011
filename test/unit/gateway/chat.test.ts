/** Chat completions of the reference gateway (Part 1 sections 1.5, 2.2, 2.5, 2.6, 4.7, 6). */
import { Ajv2020 } from 'ajv/dist/2020.js'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { argumentsFor } from '../../../gateway/chat/answer.ts'
import { valueForSchema } from '../../../gateway/chat/schema-value.ts'
import { startEmbeddedGateway } from '../../../gateway/embedded.ts'
import { countTokens } from '../../../gateway/simulate/tokenizer.ts'
import { testGateway } from './helpers.ts'

const gw = testGateway()
const PATH = '/v1/chat/completions'
const user = (content: string) => ({ role: 'user', content })
const post = (body: unknown, options: Parameters<typeof gw.call>[1] = {}) =>
  gw.call(PATH, { method: 'POST', body, ...options })

/** The data lines of an SSE body, in order. */
function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length))
}

describe('POST /v1/chat/completions (sections 2.5, 2.6)', () => {
  it('answers the §2.6 shape with usage that adds up, the same at temperature 0', async () => {
    const body = { model: 'gw-chat-mini', messages: [user('Hello there, gateway')], temperature: 0 }
    const [a, b] = await Promise.all([post(body), post(body)])
    expect(a.status).toBe(200)
    expect(a.body).toMatchObject({
      object: 'chat.completion',
      model: 'gw-chat-mini',
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
    })
    expect(a.body.id).toMatch(/^chatcmpl-/)
    expect(Number.isInteger(a.body.created)).toBe(true)
    const usage = a.body.usage
    expect(usage.prompt_tokens).toBe(countTokens('Hello there, gateway'))
    expect(usage.completion_tokens).toBe(countTokens(a.body.choices[0].message.content))
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens)
    expect(usage.prompt_tokens_details).toEqual({ cached_tokens: 0 })
    expect(b.body.choices[0].message.content).toBe(a.body.choices[0].message.content)
  })

  it('counts the first system or developer message as instructions, the same for both roles', async () => {
    const instructions = 'Answer in one sentence.'
    const [none, system, developer, later] = await Promise.all([
      post({ model: 'gw-chat-mini', messages: [user('Hi')] }),
      post({ model: 'gw-chat-mini', messages: [{ role: 'system', content: instructions }, user('Hi')] }),
      post({ model: 'gw-chat-mini', messages: [{ role: 'developer', content: instructions }, user('Hi')] }),
      post({ model: 'gw-chat-mini', messages: [user('Hi'), { role: 'system', content: instructions }] }),
    ])
    expect(system.body.usage.prompt_tokens).toBe(none.body.usage.prompt_tokens + countTokens(instructions))
    expect(developer.body.usage.prompt_tokens).toBe(system.body.usage.prompt_tokens)
    expect(later.body.usage.prompt_tokens).toBe(system.body.usage.prompt_tokens)
  })

  it('ends with length when max_completion_tokens runs out, reasoning included in the budget', async () => {
    const plain = await post({ model: 'gw-chat-mini', messages: [user('Write an essay')], max_completion_tokens: 3 })
    expect(plain.body.choices[0].finish_reason).toBe('length')
    expect(plain.body.usage.completion_tokens).toBe(3)
    const reasoner = await post({ model: 'gw-reasoner', messages: [user('Write an essay')], max_completion_tokens: 5 })
    expect(reasoner.body.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: '' } })
    expect(reasoner.body.usage).toMatchObject({
      completion_tokens: 5,
      completion_tokens_details: { reasoning_tokens: 5 },
    })
  })

  it('records the transaction with the model, stream flag, identifier and tokens', async () => {
    const response = await post({ model: 'gw-chat-mini', messages: [user('Hi')], safety_identifier: 'gc-user-1' })
    const record = gw.state.transactions.findById(response.id)?.record
    expect(record).toMatchObject({
      model: 'gw-chat-mini',
      provider: 'atlas-ai',
      stream: false,
      safety_identifier: 'gc-user-1',
      status_code: 200,
    })
    expect(record?.tokens).toMatchObject({
      prompt: response.body.usage.prompt_tokens,
      completion: response.body.usage.completion_tokens,
      total: response.body.usage.total_tokens,
    })
  })
})

describe('refusals (sections 1.5, 5.1, 7)', () => {
  it.each([
    ['no model', { messages: [user('Hi')] }, 400],
    ['an unknown model', { model: 'gw-nope', messages: [user('Hi')] }, 404],
    ['a model of another mode', { model: 'gw-embed-1', messages: [user('Hi')] }, 400],
    [
      'a model above the tier (gw-chat-pro, min_tier 3, for tier 2)',
      { model: 'gw-chat-pro', messages: [user('Hi')] },
      403,
    ],
    ['no messages', { model: 'gw-chat-mini' }, 400],
    ['empty messages', { model: 'gw-chat-mini', messages: [] }, 400],
    ['an unknown role', { model: 'gw-chat-mini', messages: [{ role: 'robot', content: 'Hi' }] }, 400],
    ['n of 2', { model: 'gw-chat-mini', messages: [user('Hi')], n: 2 }, 400],
    ['max_completion_tokens 0', { model: 'gw-chat-mini', messages: [user('Hi')], max_completion_tokens: 0 }, 400],
    [
      'stream_options without stream',
      { model: 'gw-chat-mini', messages: [user('Hi')], stream_options: { include_usage: true } },
      400,
    ],
    ['tool_choice without tools', { model: 'gw-chat-mini', messages: [user('Hi')], tool_choice: 'auto' }, 400],
    ['audio output', { model: 'gw-chat-mini', messages: [user('Hi')], modalities: ['text', 'audio'] }, 400],
    [
      'an image for a model without vision',
      {
        model: 'gw-chat-mini',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }],
      },
      400,
    ],
    [
      'a moderation object naming a chat model',
      { model: 'gw-chat-mini', messages: [user('Hi')], moderation: { model: 'gw-chat' } },
      400,
    ],
  ])('refuses %s', async (_what, body, status) => {
    const response = await post(body)
    expect(response.status).toBe(status)
    expect(response.body.error).toMatchObject({
      message: expect.any(String),
      type: expect.any(String),
      code: expect.any(String),
    })
  })

  it('needs a key (401) and serves gw-chat-pro to tier 3', async () => {
    expect((await post({ model: 'gw-chat-mini', messages: [user('Hi')] }, { key: null })).status).toBe(401)
    expect((await post({ model: 'gw-chat-pro', messages: [user('Hi')] }, { key: 'tier3' })).status).toBe(200)
  })
})

describe('tools and moderation (section 4.7)', () => {
  const tool = {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] }, days: { type: 'integer', minimum: 1 } },
        required: ['city', 'unit', 'days'],
      },
    },
  }

  it('calls the tool when required, with arguments that satisfy its schema', async () => {
    const response = await post({
      model: 'gw-chat',
      messages: [user('Weather?')],
      tools: [tool],
      tool_choice: 'required',
    })
    const choice = response.body.choices[0]
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message.content).toBeNull()
    expect(choice.message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } })
    expect(JSON.parse(choice.message.tool_calls[0].function.arguments)).toEqual({ city: 'example', unit: 'c', days: 1 })
  })

  it('with auto, calls a tool the user names, and answers in text after a tool result', async () => {
    const named = await post({ model: 'gw-chat', messages: [user('use get_weather please')], tools: [tool] })
    expect(named.body.choices[0].finish_reason).toBe('tool_calls')
    const plain = await post({ model: 'gw-chat', messages: [user('Hello')], tools: [tool] })
    expect(plain.body.choices[0].finish_reason).toBe('stop')
    const call = named.body.choices[0].message
    const after = await post({
      model: 'gw-chat',
      tools: [tool],
      tool_choice: 'required',
      messages: [
        user('use get_weather please'),
        call,
        { role: 'tool', tool_call_id: call.tool_calls[0].id, content: '21 C' },
      ],
    })
    expect(after.body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: expect.any(String) } })
  })

  it('builds arguments for nested and typed schemas', () => {
    expect(
      argumentsFor({
        type: 'object',
        required: ['a', 'b'],
        properties: {
          a: { type: 'array' },
          b: { type: 'object', required: ['c'], properties: { c: { type: ['null', 'boolean'] } } },
        },
      }),
    ).toEqual({ a: [], b: { c: true } })
  })

  it('adds the inline moderation result for input and output', async () => {
    const response = await post({
      model: 'gw-chat-mini',
      messages: [user('gc-flag-me now')],
      moderation: { model: 'omni-moderation-latest' },
    })
    expect(response.body.moderation).toEqual({
      input: { flagged: true, model: 'omni-moderation-latest' },
      output: { flagged: true, model: 'omni-moderation-latest' },
    })
  })
})

describe('streaming (sections 6.3, 6.4)', () => {
  it('sends chunks, one finish_reason in the last choice chunk, a usage chunk, then [DONE]', async () => {
    const response = await post({
      model: 'gw-chat-mini',
      messages: [user('Hi')],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 4,
      moderation: { model: 'omni-moderation-latest' },
    })
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/)
    const data = sseData(response.body)
    expect(data.at(-1)).toBe('[DONE]')
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d))
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1)
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true)
    const finishes = chunks.flatMap((c, i) =>
      c.choices.filter((ch: { finish_reason: string | null }) => ch.finish_reason !== null).map(() => i),
    )
    const lastWithChoice = chunks
      .map((c, i) => (c.choices.length > 0 ? i : -1))
      .filter((i) => i >= 0)
      .at(-1)
    expect(finishes).toEqual([lastWithChoice])
    expect(chunks[lastWithChoice as number].choices[0].finish_reason).toBe('length')
    expect(chunks.at(-2).moderation).toBeDefined()
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 4 } })
    const text = chunks
      .flatMap((c) => c.choices.map((ch: { delta: { content?: string } }) => ch.delta.content ?? ''))
      .join('')
    expect(countTokens(text)).toBe(4)
    expect(gw.state.transactions.findById(response.id)?.record).toMatchObject({
      stream: true,
      tokens: { completion: 4 },
    })
  })

  it('streams a tool call as argument deltas', async () => {
    const tool = {
      type: 'function',
      function: {
        name: 'lookup',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    }
    const response = await post({
      model: 'gw-chat',
      messages: [user('Hi')],
      tools: [tool],
      tool_choice: 'required',
      stream: true,
    })
    const chunks = sseData(response.body)
      .slice(0, -1)
      .map((d) => JSON.parse(d))
    expect(chunks[0].choices[0].delta.tool_calls[0]).toMatchObject({
      index: 0,
      type: 'function',
      function: { name: 'lookup', arguments: '' },
    })
    const args = chunks
      .slice(1)
      .flatMap((c) =>
        c.choices.map(
          (ch: { delta: { tool_calls?: Array<{ function: { arguments: string } }> } }) =>
            ch.delta.tool_calls?.[0]?.function.arguments ?? '',
        ),
      )
      .join('')
    expect(JSON.parse(args)).toEqual({ q: 'example' })
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls')
  })

  it('chat-stream-cut: the stream ends inside its second event', async () => {
    const faulty = testGateway({ faults: ['chat-stream-cut'] })
    const response = await faulty.call(PATH, {
      method: 'POST',
      body: { model: 'gw-chat-mini', messages: [user('Hi')], stream: true },
    })
    expect(response.body.endsWith('\n\n')).toBe(false)
    expect(response.body.split('\n\n')).toHaveLength(2)
  })
})

/** A schema with what structured outputs use: nesting, enums, arrays, bounds, unions and references. */
const REPORT_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 12 },
    conditions: { type: 'string', enum: ['sunny', 'cloudy'] },
    celsius: { type: 'number', minimum: -40, maximum: 60 },
    hours: { type: 'integer', exclusiveMinimum: 0, multipleOf: 3 },
    wind: { $ref: '#/$defs/wind' },
    warnings: { type: 'array', items: { type: 'string' }, minItems: 2 },
    note: { anyOf: [{ type: 'null' }, { type: 'string', maxLength: 3 }] },
    kind: { const: 'report' },
    updated: { type: 'string', format: 'date-time' },
  },
  required: ['city', 'conditions', 'celsius', 'hours', 'wind', 'warnings', 'note', 'kind', 'updated'],
  additionalProperties: false,
  $defs: {
    wind: {
      type: 'object',
      properties: { kmh: { type: ['integer', 'null'] }, from: { type: 'string' } },
      required: ['kmh', 'from'],
      additionalProperties: false,
    },
  },
} as const

/** The ajv errors of a value against a schema: none when it validates. */
function schemaErrors(schema: object, value: unknown): unknown[] {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema)
  return validate(value) ? [] : (validate.errors ?? [])
}

describe('response_format (section 4.7: the full parameter list is not shown)', () => {
  it('builds a value of the schema for every construct it names', () => {
    expect(schemaErrors(REPORT_SCHEMA, valueForSchema(REPORT_SCHEMA, ['Lisbon', 'is', 'warm']))).toEqual([])
  })

  it('json_schema: the content is JSON text that validates against the sent schema', async () => {
    const response = await post({
      model: 'gw-chat-mini',
      messages: [user('Report the weather in Lisbon.')],
      response_format: { type: 'json_schema', json_schema: { name: 'report', strict: true, schema: REPORT_SCHEMA } },
    })
    expect(response.status).toBe(200)
    expect(schemaErrors(REPORT_SCHEMA, JSON.parse(response.body.choices[0].message.content))).toEqual([])
  })

  it('json_schema: the openai client parses the answer into the schema', async () => {
    const gateway = await startEmbeddedGateway()
    try {
      const client = new OpenAI({ apiKey: gateway.keys.main, baseURL: `${gateway.url}/v1`, timeout: 15_000 })
      const completion = await client.chat.completions.parse({
        model: 'gw-chat-mini',
        messages: [{ role: 'user', content: 'Report the weather in Lisbon.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'report', strict: true, schema: REPORT_SCHEMA } },
      })
      const parsed = completion.choices[0]?.message.parsed
      expect(schemaErrors(REPORT_SCHEMA, parsed)).toEqual([])
      expect(parsed).toMatchObject({ kind: 'report', conditions: 'sunny' })
    } finally {
      await gateway.close()
    }
  })

  it('json_schema without an object schema is refused, naming the parameter', async () => {
    const response = await post({
      model: 'gw-chat-mini',
      messages: [user('Hi')],
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: 'not a schema' } },
    })
    expect(response.status).toBe(400)
    expect(response.body.error.param).toBe('response_format.json_schema')
  })
})

describe('variations (gateway/variations.ts)', () => {
  it('system-messages-flag: a model flagged without system messages refuses them; the others take them', async () => {
    const varied = testGateway({ variations: ['system-messages-flag'] })
    const list = await varied.call('/v1/models')
    const flags = Object.fromEntries(
      list.body.data.map((m: { id: string; supports_system_messages?: boolean }) => [m.id, m.supports_system_messages]),
    )
    expect(flags['gw-chat-mini']).toBe(false)
    expect(flags['gw-chat']).toBe(true)
    const retrieved = await varied.call('/v1/models/gw-chat-mini')
    expect(retrieved.body.extra.metadata.supports_system_messages).toBe(false)
    const ask = (model: string) =>
      varied.call(PATH, {
        method: 'POST',
        body: { model, messages: [{ role: 'system', content: 'Be brief.' }, user('Hi')] },
      })
    expect((await ask('gw-chat-mini')).status).toBe(400)
    expect((await ask('gw-chat')).status).toBe(200)
  })

  it('model-snapshot-names: the completion names a dated snapshot of the model asked for (§9.3)', async () => {
    const varied = testGateway({ variations: ['model-snapshot-names'] })
    const response = await varied.call(PATH, {
      method: 'POST',
      body: { model: 'gw-chat-mini', messages: [user('Hi')] },
    })
    expect(response.status).toBe(200)
    expect(response.body.model).toMatch(/^gw-chat-mini-\d{4}-\d{2}-\d{2}$/)
  })

  it('default-temperature-only: another temperature is refused with 400, the default and none are served', async () => {
    const varied = testGateway({ variations: ['default-temperature-only'] })
    const ask = (extra: Record<string, unknown>) =>
      varied.call(PATH, { method: 'POST', body: { model: 'gw-chat-mini', messages: [user('Hi')], ...extra } })
    const refused = await ask({ temperature: 0 })
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe('temperature')
    expect((await ask({ temperature: 1 })).status).toBe(200)
    expect((await ask({})).status).toBe(200)
  })
})

describe('the audio-capable fields on the audio model (section 4.7)', () => {
  const wav = Buffer.from('RIFF0000WAVEfmt ').toString('base64')
  const spoken = { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }

  it('gw-chat takes input_audio, answers in audio and takes that audio back by id', async () => {
    const content = [{ type: 'input_audio', input_audio: { data: wav, format: 'wav' } }]
    expect((await post({ model: 'gw-chat', messages: [{ role: 'user', content }] })).status).toBe(200)
    const answer = await post({ model: 'gw-chat', messages: [user('Hi')], ...spoken })
    expect(answer.status).toBe(200)
    const audio = answer.body.choices[0].message.audio
    expect(audio).toMatchObject({ id: expect.any(String), data: expect.any(String), transcript: expect.any(String) })
    const again = [user('Hi'), { role: 'assistant', audio: { id: audio.id } }, user('Bye')]
    expect((await post({ model: 'gw-chat', messages: again, ...spoken })).status).toBe(200)
  })

  it('refuses audio output without its audio object; input_audio under chat-audio-refused, output under its fault', async () => {
    expect((await post({ model: 'gw-chat', messages: [user('Hi')], modalities: ['audio'] })).status).toBe(400)
    const heard = [
      user('Hi'),
      { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'wav' } }] },
    ]
    const deaf = testGateway({ faults: ['chat-audio-refused'] })
    const refusedInput = await deaf.call('/v1/chat/completions', {
      method: 'POST',
      body: { model: 'gw-chat', messages: heard },
    })
    expect(refusedInput.status).toBe(400)
    const mute = testGateway({ faults: ['chat-audio-output-refused'] })
    const refusedOutput = await mute.call('/v1/chat/completions', {
      method: 'POST',
      body: { model: 'gw-chat', messages: [user('Hi')], ...spoken },
    })
    expect(refusedOutput.status).toBe(400)
  })
})
