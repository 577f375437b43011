/**
 * The request body of POST /v1/responses (Part 1 §4.5, §8.5, §7): field limits at both edges (the largest valid
 * value accepted, the next one refused with 400), required fields, rules 1, 2 and 5, conversation, service_tier
 * the context window with truncation disabled, and an input_file's one way to supply data (§4.4). Requests are
 * small, and nothing is stored but the one response a chain needs and one small user_data file, deleted after.
 */
import { afterAll, describe } from 'vitest'
import { expectSetup, expectStatus, expectThat, notObserved, precondition } from '../../harness/assert.ts'
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
  messageText,
  modelsFixture,
  outputItems,
  responseOf,
  visibleOutputOrSkip,
  WEATHER_PROMPT,
  withRoomForReasoning,
  WEATHER_TOOL,
} from './fixtures.ts'
import { deleteCreated, upload } from '../files/uploads.ts'

const api = target()
const models = modelsFixture(api)

// The one file this suite uploads (an input_file's file_id) is deleted, whatever its test's verdict.
afterAll(() => deleteCreated(api))

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

const TEMPERATURE_PROBES = 4 // at most this many chat models are tried for one that takes a temperature
const MAX_WINDOW = 4_000_000 // tokens: a larger window is too large to overflow cheaply
const WINDOW_MODELS = 3 // models tried, smallest window first, when a rate limit answers before the window

/**
 * A chat model that takes a temperature other than its default. Which models take one is model dependent (some
 * reasoning models take only the default): a model that refuses 0, 1.5 and 2 alike is passed over, and with none
 * left the rule is not observed.
 */
const temperatureModel = memo(async () => {
  const { chat } = await models()
  const passed: string[] = []
  for (const model of chat.slice(0, TEMPERATURE_PROBES)) {
    const at = (temperature: number) =>
      create(api, { model: model.id, input: 'Say hi.', temperature, max_output_tokens: CAPS.cut, store: false })
    const answers = [await at(0), await at(1.5), await at(2)]
    if (answers.some((ex) => ex.status !== 400)) return model
    passed.push(model.id)
  }
  observe('models that take only their default temperature', passed.join(', ') || 'none')
  if (passed.length === 0) skipTest('no chat model this key may use')
  return notObserved(
    `none of ${passed.join(', ')} takes a temperature other than its default (0, 1.5 and 2 all refused)`,
  )
})

describe('required fields (Part 1 §4.5)', () => {
  check('P1-4.5-required-fields', 'a body without input, or without model, is refused with 400', async () => {
    const { model } = await base()
    const noInput = await create(api, { model, max_output_tokens: CAPS.cut, store: false })
    expectStatus(noInput, 400, 'input is required')
    expectStatus(
      await create(api, { input: 'Say hi.', max_output_tokens: CAPS.cut, store: false }),
      400,
      'model is required',
    )
    // The 400 body of compatible endpoints is not shown (§7): recorded, not judged.
    const body = noInput.json
    observe(
      'the body of a 400 from POST /v1/responses (not shown, §7)',
      isObject(body) && isObject(body.error)
        ? `an error member with ${Object.keys(body.error).join(', ')}`
        : `no error member: ${noInput.text.slice(0, 200)}`,
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
    const model = await temperatureModel()
    const sendTo = (extra: Record<string, unknown>) =>
      create(api, { model: model.id, input: 'Say hi.', max_output_tokens: CAPS.cut, store: false, ...extra })
    for (const temperature of [0, 2])
      expectStatus(await sendTo({ temperature }), 200, `temperature ${temperature} is valid and accepted`)
    for (const temperature of [-0.01, 2.01])
      expectStatus(await sendTo({ temperature }), 400, `temperature ${temperature} is one past the range and refused`)
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
  return withRoomForReasoning((budget) =>
    create(api, {
      model: model.id,
      input: WEATHER_PROMPT,
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
      max_output_tokens: budget,
      store: false,
    }),
  )
})

/** The completed output_text as JSON; skips when the answer was cut (rule 6: cut output may not parse). */
function parsedOutput(ex: Exchange): unknown {
  const body = responseOf(ex)
  if (body.status !== 'completed')
    skipTest(`the structured answer has status ${String(body.status)}; rule 6: only a completed one must parse`)
  // output_text is a convenience (§2.7): without it, the text of the message items is what a client parses.
  const text = typeof body.output_text === 'string' ? body.output_text : messageText(body)
  if (text === '') skipTest('the structured answer has no output_text and no message text to parse')
  try {
    return JSON.parse(text)
  } catch (error) {
    return expectThat(
      false,
      'the answer text parsing as JSON',
      `${(error as Error).message}: ${text.slice(0, 200)}`,
      ex,
    )
  }
}

/** The tool call item's shape is not shown (§2.7): what it holds is recorded, not judged. */
function observeCallItem(body: Record<string, unknown>): void {
  const call = outputItems(body).find((item) => item.name === WEATHER_TOOL.name)
  if (call === undefined) return
  let args = 'arguments not JSON'
  try {
    const parsed = JSON.parse(String(call.arguments))
    args = isObject(parsed) ? `arguments with ${Object.keys(parsed).join(', ')}` : 'arguments JSON but not an object'
  } catch {
    // recorded below as not JSON
  }
  observe(
    'the tool call item (shape not shown, §2.7)',
    `type ${String(call.type)}, call_id ${typeof call.call_id === 'string' ? 'given' : 'absent'}, ${args}`,
  )
}

describe('rules 1, 2 and 5 (Part 1 §4.5)', () => {
  check('P1-4.5-no-n-parameter', 'rule 1: n 2 is refused, or answered with a single candidate', async () => {
    const model = await firstChat(models)
    const ex = await create(api, { model: model.id, input: 'Say hi.', n: 2, max_output_tokens: CAPS.cut, store: false })
    if (ex.status === 400) return
    expectStatus(ex, [200, 400], 'a request with n is refused or answered')
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
    visibleOutputOrSkip(body, 'the tool call')
    observeCallItem(body)
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
})

describe('conversation, truncation and service tier (Part 1 §4.5, §7)', () => {
  check(
    'P1-4.5-conversation-exclusive',
    'conversation with previous_response_id is refused with 400 or 404',
    async () => {
      const model = await firstChat(models)
      const first = await create(api, {
        model: model.id,
        input: 'Say hi.',
        max_output_tokens: CAPS.cut,
        ...responseTags(runConfig().runId, 'chain-head'),
      })
      const id = responseOf(first, 'a stored response to continue').id
      const ex = await create(api, {
        model: model.id,
        input: 'Again.',
        previous_response_id: id,
        conversation: `conv_gc_${randomSuffix()}`,
        max_output_tokens: CAPS.cut,
        store: false,
      })
      // 404 where persistent conversations are not enabled, so that the conversation names nothing.
      expectStatus(ex, [400, 404], 'conversation must not be combined with previous_response_id')
    },
  )

  check(
    'P1-7-truncation-disabled',
    'an input over max_input_tokens is refused with 400 when truncation is disabled',
    async () => {
      const { chat } = await models()
      const windows = chat
        .filter((m) => m.maxInputTokens !== undefined && (m.maxInputTokens as number) <= MAX_WINDOW)
        .sort((a, b) => (a.maxInputTokens as number) - (b.maxInputTokens as number))
      if (windows.length === 0)
        skipTest(`no usable chat model gives max_input_tokens of at most ${MAX_WINDOW} (too large to overflow cheaply)`)
      const limited: string[] = []
      for (const model of windows.slice(0, WINDOW_MODELS)) {
        const window = model.maxInputTokens as number
        // One word per token or more with any tokenizer; a thousand over the window leaves no doubt.
        const input = 'a '.repeat(window + 1_000)
        const note = `${window + 1_000} words (model ${model.id}, max_input_tokens ${window})`
        const answers: Exchange[] = []
        for (const extra of [{}, { truncation: 'disabled' }]) {
          answers.push(
            await api.post(
              '/v1/responses',
              { model: model.id, input, max_output_tokens: CAPS.cut, store: false, ...extra },
              { bodyNote: `input of ${note}${'truncation' in extra ? ', truncation disabled' : ''}`, retry429: false },
            ),
          )
        }
        // §8.3: whichever limit is hit first applies, so a tokens-per-minute limit below the window answers 429.
        if (answers.some((ex) => ex.status === 429)) {
          limited.push(`${model.id} (window ${window})`)
          continue
        }
        for (const [i, ex] of answers.entries())
          expectStatus(ex, 400, `input over the window with truncation ${i === 1 ? 'disabled' : 'left at its default'}`)
        return
      }
      notObserved(
        `a rate limit answered 429 before the window was exceeded for ${limited.join(', ')} (§8.3: whichever is hit first applies)`,
      )
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

/** A small text file's bytes as a Base64 data URL, the form §4.4 gives file_data. */
const FILE_TEXT = 'Gateway conformance note: the harbour tour starts at ten.\n'
const FILE_DATA = `data:text/plain;base64,${Buffer.from(FILE_TEXT).toString('base64')}`

function withFile(model: string, part: Record<string, unknown>): Record<string, unknown> {
  return {
    model,
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What does the file say?' },
          { type: 'input_file', filename: 'note.txt', ...part },
        ],
      },
    ],
    max_output_tokens: CAPS.cut,
    store: false,
  }
}

describe('input files (Part 1 §4.4)', () => {
  check(
    'P1-4.4-input-file-one-source',
    'an input_file with file_id and file_data together is refused; each alone is accepted',
    async () => {
      const model = await firstChat(models)
      const file = await upload(api, {
        label: 'input-file',
        purpose: 'user_data',
        file: { ext: 'txt', contentType: 'text/plain', content: FILE_TEXT },
      })
      expectSetup(file.ex, [200, 201], 'an uploaded user_data file to name by file_id')
      precondition(file.id !== undefined, 'P1-2.4-file-object', 'the upload answered no file id')
      expectSetup(
        await create(api, withFile(model.id, { file_id: file.id })),
        200,
        'an input_file given by file_id alone',
      )
      expectSetup(
        await create(api, withFile(model.id, { file_data: FILE_DATA })),
        200,
        'an input_file given by file_data alone',
      )
      const both = await create(api, withFile(model.id, { file_id: file.id, file_data: FILE_DATA }))
      expectStatus(both, 400, 'an input_file has exactly one way to supply its data (§4.4)')
    },
  )
})
