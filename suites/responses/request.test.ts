/**
 * The request body of POST /v1/responses (Part 1 §4.5, §8.5, §7): field limits at both edges (the largest valid
 * value accepted, the next one refused with 400), required fields, rules 1, 2 and 5, conversation, service_tier
 * and the context window with truncation disabled. Requests are small, and nothing is stored but the one
 * response a chain needs.
 */
import { describe } from 'vitest'
import { expectSchema, expectStatus, expectThat, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo, randomSuffix } from '../../harness/helpers.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { observe, skipTest } from '../../harness/recorder.ts'
import { responseTags } from '../../harness/run-tag.ts'
import { check, target, runConfig } from '../../harness/suite.ts'
import {
  CAPS,
  create,
  firstChat,
  modelsFixture,
  outputItems,
  responseOf,
  WEATHER_PROMPT,
  WEATHER_TOOL,
} from './fixtures.ts'

const api = target()
const models = modelsFixture(api)

async function base(): Promise<Record<string, unknown>> {
  const model = await firstChat(models)
  return { model: model.id, input: 'Say hi.', max_output_tokens: CAPS.cut, store: false }
}

async function send(extra: Record<string, unknown>): Promise<Exchange> {
  return create(api, { ...(await base()), ...extra })
}

type Case = [label: string, extra: Record<string, unknown>]

/** Accepted values first, then the refused ones, each judged on its own exchange and named in a failure. */
async function edges(accepted: Case[], refused: Case[]): Promise<void> {
  for (const [label, extra] of accepted) expectStatus(await send(extra), 200, `${label} is valid and accepted`)
  for (const [label, extra] of refused)
    expectStatus(await send(extra), 400, `${label} is one past the limit and refused`)
}

function text(length: number, tag: string): string {
  return `${tag}-${randomSuffix()}`.padEnd(length, 'x').slice(0, length)
}

function metadata(pairs: number, keyLength = 8, valueLength = 8): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: pairs }, (_, i) => [text(keyLength, `k${i}`), text(valueLength, `v${i}`)]),
  )
}

describe('required fields (Part 1 §4.5)', () => {
  check('P1-4.5-required-fields', 'a body without input, or without model, is refused with 400', async () => {
    const { model } = await base()
    expectStatus(await create(api, { model, max_output_tokens: CAPS.cut, store: false }), 400, 'input is required')
    expectStatus(
      await create(api, { input: 'Say hi.', max_output_tokens: CAPS.cut, store: false }),
      400,
      'model is required',
    )
  })
})

describe('field limits at both edges (Part 1 §4.5, §8.5)', () => {
  check(
    'P1-4.5-metadata-limits',
    'metadata: 16 pairs, keys of 64 and values of 512 characters; one more of each is refused',
    async () => {
      await edges(
        [['metadata of 16 pairs, 64-character keys, 512-character values', { metadata: metadata(16, 64, 512) }]],
        [
          ['metadata of 17 pairs', { metadata: metadata(17) }],
          ['a metadata key of 65 characters', { metadata: { [text(65, 'key')]: 'v' } }],
          ['a metadata value of 513 characters', { metadata: { k: text(513, 'value') } }],
        ],
      )
    },
  )

  check('P1-4.5-temperature-range', 'temperature 0 and 2 are accepted; -0.01 and 2.01 are refused', async () => {
    await edges(
      [
        ['temperature 0', { temperature: 0 }],
        ['temperature 2', { temperature: 2 }],
      ],
      [
        ['temperature -0.01', { temperature: -0.01 }],
        ['temperature 2.01', { temperature: 2.01 }],
      ],
    )
  })

  check('P1-4.5-top-logprobs-range', 'top_logprobs 0 and 20 are accepted; -1 and 21 are refused', async () => {
    const include = ['message.output_text.logprobs']
    await edges(
      [
        ['top_logprobs 0', { top_logprobs: 0, include }],
        ['top_logprobs 20', { top_logprobs: 20, include }],
      ],
      [
        ['top_logprobs -1', { top_logprobs: -1, include }],
        ['top_logprobs 21', { top_logprobs: 21, include }],
      ],
    )
  })

  check(
    'P1-4.5-safety-identifier-length',
    'a safety_identifier of 64 characters is accepted; 65 is refused',
    async () => {
      await edges(
        [['a safety_identifier of 64 characters', { safety_identifier: text(64, 'gc-safety') }]],
        [['a safety_identifier of 65 characters', { safety_identifier: text(65, 'gc-safety') }]],
      )
    },
  )
})

describe('refusals (Part 1 §4.5, §7)', () => {
  check('P1-7-responses-error-body', 'a 400 has a JSON body with an error member', async () => {
    // A refusal no limit fault touches: a temperature that is not a number.
    const ex = await send({ temperature: 'hot' })
    expectStatus(ex, 400)
    expectSchema(ex, 'responses/error-body.json')
  })

  check('P1-4.5-stream-options-need-stream', 'stream_options without stream true is refused with 400', async () => {
    expectStatus(
      await send({ stream_options: { include_obfuscation: false } }),
      400,
      'stream_options is only for stream true',
    )
  })
})

const REVIEW_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    rating: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['title', 'rating', 'tags'],
  additionalProperties: false,
}
const STRUCTURED_BUDGET = 256 // room for a small JSON object

const formats = memo(async () => {
  const model = await firstChat(models, (m) => m.responseSchema)
  const ask = (format: Record<string, unknown>, input: string) =>
    create(api, { model: model.id, input, text: { format }, max_output_tokens: STRUCTURED_BUDGET, store: false })
  return {
    text: await ask({ type: 'text' }, 'Say hi.'),
    jsonObject: await ask({ type: 'json_object' }, 'Answer in JSON: an object with a greeting.'),
    jsonSchema: await ask(
      { type: 'json_schema', name: 'review', schema: REVIEW_SCHEMA, strict: true },
      'Review a fictional book in JSON.',
    ),
  }
})

const toolCall = memo(async () => {
  const model = await firstChat(models, (m) => m.functionCalling)
  return create(api, {
    model: model.id,
    input: WEATHER_PROMPT,
    tools: [WEATHER_TOOL],
    tool_choice: 'required',
    max_output_tokens: CAPS.answer,
    store: false,
  })
})

/** The completed output_text as JSON; skips when the answer was cut (rule 6: cut output may not parse). */
function parsedOutput(ex: Exchange): unknown {
  const body = responseOf(ex)
  if (body.status !== 'completed')
    skipTest(`the structured answer has status ${String(body.status)}; rule 6: only a completed one must parse`)
  try {
    return JSON.parse(String(body.output_text))
  } catch (error) {
    return expectThat(
      false,
      'output_text that parses as JSON',
      `${(error as Error).message}: ${String(body.output_text).slice(0, 200)}`,
      ex,
    )
  }
}

describe('rules 1, 2 and 5 (Part 1 §4.5)', () => {
  check('P1-4.5-no-n-parameter', 'rule 1: n 2 is refused, or answered with a single candidate', async () => {
    const model = await firstChat(models)
    const ex = await create(api, { model: model.id, input: 'Say hi.', n: 2, max_output_tokens: CAPS.cut, store: false })
    if (ex.status === 400) return
    const body = responseOf(ex)
    const messages = outputItems(body).filter((item) => item.type === 'message').length
    expectThat(
      messages <= 1,
      'status 400, or one candidate: at most one message item',
      `status 200 with ${messages} message items`,
      ex,
    )
  })

  check(
    'P1-4.5-text-format',
    'rule 2: text.format text, json_object and json_schema (strict) are each accepted',
    async () => {
      const { text, jsonObject, jsonSchema } = await formats()
      expectStatus(text, 200, 'text.format text')
      expectStatus(jsonObject, 200, 'text.format json_object')
      expectStatus(jsonSchema, 200, 'text.format json_schema with strict and schema')
    },
  )

  check(
    'P1-4.5-structured-output',
    'a completed json_object answer parses as an object; a strict json_schema answer fits the schema',
    async () => {
      const { jsonObject, jsonSchema } = await formats()
      for (const ex of [jsonObject, jsonSchema])
        precondition(ex.status === 200, 'P1-4.5-text-format', `the format was refused with ${ex.status}`)
      const object = parsedOutput(jsonObject)
      expectThat(isObject(object), 'a JSON object', JSON.stringify(object).slice(0, 200), jsonObject)
      const review = parsedOutput(jsonSchema)
      const fits =
        isObject(review) &&
        typeof review.title === 'string' &&
        Number.isInteger(review.rating) &&
        Array.isArray(review.tags) &&
        review.tags.every((t) => typeof t === 'string')
      const extra = isObject(review) ? Object.keys(review).filter((k) => !(k in REVIEW_SCHEMA.properties)) : []
      expectThat(
        fits && extra.length === 0,
        'an object with title (string), rating (integer) and tags (strings) and nothing else',
        JSON.stringify(review).slice(0, 300),
        jsonSchema,
      )
    },
  )

  check('P1-4.5-function-tool-call', 'with tool_choice required, output holds a call of the function', async () => {
    const ex = await toolCall()
    const body = responseOf(ex)
    const calls = outputItems(body).filter((item) => item.name === WEATHER_TOOL.name)
    expectThat(
      calls.length > 0,
      `an output item naming ${WEATHER_TOOL.name}`,
      `output item types: ${
        outputItems(body)
          .map((i) => String(i.type))
          .join(', ') || 'none'
      }`,
      ex,
    )
  })

  check(
    'P1-4.5-function-call-item',
    'the call is a function_call item whose arguments fit the strict schema',
    async () => {
      const ex = await toolCall()
      const body = responseOf(ex)
      const call = outputItems(body).find((item) => item.name === WEATHER_TOOL.name)
      precondition(call !== undefined, 'P1-4.5-function-tool-call', 'no output item names the tool')
      expectSchema(ex, 'responses/function-call-item.json', call, 'the tool call item')
      let args: unknown
      try {
        args = JSON.parse(String(call.arguments))
      } catch (error) {
        expectThat(false, 'arguments that parse as JSON', `${(error as Error).message}: ${String(call.arguments)}`, ex)
      }
      const fits =
        isObject(args) &&
        typeof args.city === 'string' &&
        (args.unit === 'celsius' || args.unit === 'fahrenheit') &&
        Object.keys(args).length === 2
      expectThat(
        fits,
        'arguments with exactly city (string) and unit (celsius or fahrenheit)',
        String(call.arguments),
        ex,
      )
    },
  )
})

describe('conversation, truncation and service tier (Part 1 §4.5, §7)', () => {
  check('P1-4.5-conversation-exclusive', 'conversation with previous_response_id is refused with 400', async () => {
    const model = await firstChat(models)
    const first = await create(api, {
      model: model.id,
      input: 'Say hi.',
      max_output_tokens: CAPS.cut,
      ...responseTags(runConfig().runId, 'chain-head'),
    })
    const id = responseOf(first).id
    const ex = await create(api, {
      model: model.id,
      input: 'Again.',
      previous_response_id: id,
      conversation: `conv_gc_${randomSuffix()}`,
      max_output_tokens: CAPS.cut,
      store: false,
    })
    expectStatus(ex, 400, 'conversation must not be combined with previous_response_id')
  })

  check(
    'P1-7-truncation-disabled',
    'an input over max_input_tokens is refused with 400 when truncation is disabled',
    async () => {
      const { chat } = await models()
      const windows = chat
        .filter((m) => m.maxInputTokens !== undefined)
        .sort((a, b) => (a.maxInputTokens as number) - (b.maxInputTokens as number))
      const model = windows[0]
      if (!model) skipTest('no usable chat model gives max_input_tokens')
      const window = model.maxInputTokens as number
      if (window > 4_000_000)
        skipTest(`the smallest window (${window} tokens, ${model.id}) is too large to overflow cheaply`)
      // One word per token or more with any tokenizer; a thousand over the window leaves no doubt.
      const input = 'a '.repeat(window + 1_000)
      const note = `${window + 1_000} words (model ${model.id}, max_input_tokens ${window})`
      for (const extra of [{}, { truncation: 'disabled' }]) {
        const ex = await api.post(
          '/v1/responses',
          { model: model.id, input, max_output_tokens: CAPS.cut, store: false, ...extra },
          { bodyNote: `input of ${note}${'truncation' in extra ? ', truncation disabled' : ''}` },
        )
        expectStatus(
          ex,
          400,
          `input over the window with truncation ${'truncation' in extra ? 'disabled' : 'left at its default'}`,
        )
      }
    },
  )

  check('P1-4.5-service-tier', 'service_tier default is accepted', async () => {
    const model = await firstChat(models)
    const ex = await create(api, {
      model: model.id,
      input: 'Say hi.',
      service_tier: 'default',
      max_output_tokens: CAPS.cut,
      store: false,
    })
    expectStatus(ex, 200)
    observe(
      'service_tier in the response (not shown)',
      `asked default, the response says ${JSON.stringify((ex.json as Record<string, unknown> | undefined)?.service_tier)}`,
    )
  })

  check('P1-4.5-service-tier-flex', 'service_tier flex is accepted', async () => {
    const model = await firstChat(models)
    const ex = await create(api, {
      model: model.id,
      input: 'Say hi.',
      service_tier: 'flex',
      max_output_tokens: CAPS.cut,
      store: false,
    })
    expectStatus(ex, 200)
    observe(
      'service_tier in the response (not shown)',
      `asked flex, the response says ${JSON.stringify((ex.json as Record<string, unknown> | undefined)?.service_tier)}`,
    )
  })
})
