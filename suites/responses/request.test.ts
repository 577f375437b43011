/**
 * The request body of POST /v1/responses (Part 1 §4.5, §8.5, §7): field limits at both edges (the largest valid
 * value accepted, the next one refused), the listed parameters accepted, required fields and the 400's body, the
 * key, rules 1, 2 and 5, the tool call item, conversation, service_tier, the context window with truncation
 * disabled and auto, and an input_file given each one way and two ways at once (§4.4). Requests are small but for
 * the window's, and nothing is stored but the one response a chain needs and one small user_data PDF, deleted after.
 */
import { afterAll, describe } from 'vitest'
import {
  expectRefused,
  expectSetup,
  expectStatus,
  expectSuccess,
  expectThat,
  notObserved,
  precondition,
  is2xx,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { limitOf, mapEdgesOf, rangeOf } from '../../common/request-schemas.ts'
import { memo, randomSuffix } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { responseTags } from '../../harness/worker/run-tag.ts'
import { check, target, runConfig } from '../../harness/worker/suite.ts'
import {
  CAPS,
  type ChatModel,
  create,
  createStream,
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
import { howToName, namedModel } from '../shared/named-models.ts'
import { buildPdf, pdfDataUrl } from '../ocr/pdf.ts'
import { URL_DOCUMENT } from '../ocr/documents.ts'
import { expectAccepted } from '../shared/refusals.ts'

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

/**
 * The largest valid values are accepted (the limits are stated for the request: a MUST; §7: any 2xx), and the
 * values one past them refused (a 4xx: the natural reading, not stated: a SHOULD of its own). Each is judged on
 * its own exchange.
 */
async function accepted(cases: Case[], to: (extra: Record<string, unknown>) => Promise<Exchange> = send) {
  for (const [label, extra] of cases) expectSuccess(await to(extra), `${label} is valid and accepted`)
}
async function refused(cases: Case[], to: (extra: Record<string, unknown>) => Promise<Exchange> = send) {
  for (const [label, extra] of cases) await refusal(await to(extra), `${label} is one past the limit`)
}

/**
 * A refusal (expectRefused): a 404 shows the route not served only where a plain request to it is not served
 * either; otherwise a 404 refuses the value, as any 4xx does.
 */
async function refusal(ex: Exchange, what: string): Promise<void> {
  const routeMissing = ex.status === 404 && !is2xx(await send({}))
  expectRefused(ex, what, routeMissing ? 'P1-2.7-response-object' : undefined)
}

function text(length: number, tag: string): string {
  return `${tag}-${randomSuffix()}`.padEnd(length, 'x').slice(0, length)
}

function metadata(pairs: number, keyLength = 8, valueLength = 8): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: pairs }, (_, i) => [text(keyLength, `k${i}`), text(valueLength, `v${i}`)]),
  )
}

const FLEX_TIMEOUT_MS = 900_000 // §4.5: flex "may time out up to 900 seconds"
/** An error that says the request timed out. */
const TIMED_OUT = /time[sd]? ?out|timeout/i
const PROBES = 4 // at most this many chat models are tried for one that takes a temperature, or logprobs
const MAX_WINDOW = 1_000_000 // tokens: a larger window is too large to overflow cheaply (and its body may meet a 413)
const WINDOW_MODELS = 3 // models tried, smallest window first, when a rate limit answers before the window

/**
 * The first chat model that answers 200 to a probe. Which models take a temperature above 1, or logprobs, is model
 * dependent (§4.5; some take only the default temperature, some no logprobs): a model answering anything else is
 * passed over, and with none left the rule is not observed.
 */
async function probedModel(what: string, probe: Record<string, unknown>) {
  const { chat } = await models()
  if (chat.length === 0) skipTest(`no chat model this key may use; ${howToName('responses')}`)
  const passed: string[] = []
  for (const model of chat.slice(0, PROBES)) {
    const ex = await create(api, {
      model: model.id,
      input: 'Say hi.',
      max_output_tokens: CAPS.cut,
      store: false,
      ...probe,
    })
    if (is2xx(ex)) return model
    passed.push(`${model.id} (${ex.status})`)
  }
  observe(`models that do not take ${what}`, passed.join(', '))
  return notObserved(`none of ${passed.join(', ')} takes ${what}`)
}

/** temperature 1.5 is inside the table's range but above the 0 to 1 of models with a narrower one. */
const temperatureModel = memo(() => probedModel('temperature 1.5', { temperature: 1.5 }))
const LOGPROBS = ['message.output_text.logprobs']
const logprobsModel = memo(() => probedModel('top_logprobs 0', { top_logprobs: 0, include: LOGPROBS }))
const sendToModel =
  (model: () => Promise<{ id: string }>) =>
  async (extra: Record<string, unknown>): Promise<Exchange> =>
    create(api, { model: (await model()).id, input: 'Say hi.', max_output_tokens: CAPS.cut, store: false, ...extra })

const PROBE_WORDS = 1_000
const MAX_WORDS = 4_000_000 // 8 MB of text: more is no cheap overflow

/**
 * Input tokens per word of the window input's text, as the target counts a small sample of it (its usage, less a
 * one-word input's, so that the fixed overhead of a request drops out); 1 where the target reports no usage.
 */
async function tokensPerWord(model: string): Promise<number> {
  const count = async (words: number) => {
    const ex = await create(api, { model, input: 'a '.repeat(words), max_output_tokens: CAPS.cut, store: false })
    const usage = is2xx(ex) && isObject(ex.json) && isObject(ex.json.usage) ? ex.json.usage : undefined
    return typeof usage?.input_tokens === 'number' ? usage.input_tokens : undefined
  }
  const [many, one] = [await count(PROBE_WORDS), await count(1)]
  if (many === undefined || one === undefined || many <= one) return 1
  return (many - one) / (PROBE_WORDS - 1)
}

/** An item holds at most this share of the window, so the newest items fit once the oldest are dropped. */
const ITEM_SHARE = 8

/**
 * The window input: message items of at most `perItem` words each. Over the window as a whole, while its newest
 * items fit it: truncation auto "drops oldest items", so dropping whole ones must be able to make it fit.
 */
function windowItems(words: number, perItem: number): Array<Record<string, unknown>> {
  return Array.from({ length: Math.ceil(words / perItem) }, (_, i) => ({
    role: 'user',
    content: 'a '.repeat(Math.min(perItem, words - i * perItem)),
  }))
}

interface OverWindow {
  window: number
  note: string
  answers: Record<'default' | 'disabled' | 'auto', Exchange>
}

/**
 * An input over a model's window (max_input_tokens), sent with truncation left at its default, disabled and auto,
 * on the models of the smallest windows first. The input's size comes from the target's own count of a small
 * sample of the same text (tokens per word), so that it is over the window for the target's tokenizer whatever the
 * target then reports (it may truncate). §8.3: whichever limit is hit first applies, so a tokens-per-minute limit
 * below the window answers 429, and an intermediary may refuse a body this large with 413: such a model is passed
 * over, and with none left the rules are not observed.
 */
const overWindow = memo(async (): Promise<OverWindow> => {
  const { chat } = await models()
  const stated = chat.filter((m) => m.maxInputTokens !== undefined)
  if (stated.length === 0)
    skipTest('no usable chat model states max_input_tokens (§2.3), so no input can be known to be over its window')
  const windows = stated
    .filter((m) => (m.maxInputTokens as number) <= MAX_WINDOW)
    .sort((a, b) => (a.maxInputTokens as number) - (b.maxInputTokens as number))
  if (windows.length === 0)
    skipTest(`every stated max_input_tokens is over ${MAX_WINDOW} tokens, too large to overflow cheaply`)
  const limited: string[] = []
  for (const model of windows.slice(0, WINDOW_MODELS)) {
    const window = model.maxInputTokens as number
    const perWord = await tokensPerWord(model.id)
    const words = Math.ceil((window + 1_000) / Math.min(1, perWord))
    if (words > MAX_WORDS) {
      limited.push(`${model.id} (window ${window}: ${words} words needed at ${perWord.toFixed(3)} tokens a word)`)
      continue
    }
    const input = windowItems(words, Math.max(1, Math.floor(window / ITEM_SHARE / Math.max(1, perWord))))
    const note = `${words} words in ${input.length} message items, about ${Math.round(words * perWord)} tokens at ${perWord.toFixed(2)} a word (model ${model.id}, max_input_tokens ${window})`
    const send = (truncation: string | undefined) =>
      api.post(
        '/v1/responses',
        { model: model.id, input, max_output_tokens: CAPS.cut, store: false, ...(truncation ? { truncation } : {}) },
        { bodyNote: `input of ${note}${truncation ? `, truncation ${truncation}` : ''}`, retry429: false },
      )
    const answers = { default: await send(undefined), disabled: await send('disabled'), auto: await send('auto') }
    const all = Object.values(answers)
    if (all.some((ex) => ex.status === 429 || ex.status === 413)) {
      limited.push(`${model.id} (window ${window}: ${all.map((ex) => ex.status).join(', ')})`)
      continue
    }
    return { window, note, answers }
  }
  return notObserved(
    `the window could not be exceeded: a rate limit (429, §8.3: whichever is hit first applies), a body limit (413) or the input's size stood first for ${limited.join(', ')}`,
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
  })

  check('P1-7-responses-error-body', 'a 400 answers a JSON body with an error member', async () => {
    const { model } = await base()
    const ex = await create(api, { model, max_output_tokens: CAPS.cut, store: false })
    precondition(ex.status === 400, 'P1-4.5-required-fields', `a body without input answered ${ex.status}`)
    const body = ex.json
    expectThat(
      isObject(body) && body.error !== undefined && body.error !== null,
      'a JSON object with an error member',
      isObject(body) ? `a JSON object with ${Object.keys(body).join(', ') || 'no member'}` : ex.text.slice(0, 200),
      ex,
    )
    observe(
      'the error member of a 400 (its shape not shown, §7)',
      isObject(body) && isObject(body.error) ? `an object with ${Object.keys(body.error).join(', ')}` : typeof body,
    )
  })
})

/** The stated edges, read from the request schema the reference gateway enforces too. */
const CREATE = 'POST /v1/responses'
const METADATA = mapEdgesOf(CREATE, 'body', 'metadata')
const TEMPERATURE = rangeOf(CREATE, 'body', 'temperature')
const TOP_LOGPROBS = rangeOf(CREATE, 'body', 'top_logprobs')
const SAFETY_ID_CHARS = limitOf(CREATE, 'body', 'safety_identifier', 'maxLength')
/** Just past a real-valued edge. */
const STEP = 0.01

describe('field limits at both edges (Part 1 §4.5, §8.5)', () => {
  const { pairs, keyChars, valueChars } = METADATA
  check(
    'P1-4.5-metadata-limits',
    `metadata of ${pairs} pairs, keys of ${keyChars} and values of ${valueChars} characters is accepted`,
    async () => {
      await accepted([
        [
          `metadata of ${pairs} pairs, ${keyChars}-character keys, ${valueChars}-character values`,
          { metadata: metadata(pairs, keyChars, valueChars) },
        ],
      ])
    },
  )

  check('P1-4.5-metadata-refused', 'metadata one past a limit is refused', async () => {
    await refused([
      [`metadata of ${pairs + 1} pairs`, { metadata: metadata(pairs + 1) }],
      [`a metadata key of ${keyChars + 1} characters`, { metadata: { [text(keyChars + 1, 'key')]: 'v' } }],
      [`a metadata value of ${valueChars + 1} characters`, { metadata: { k: text(valueChars + 1, 'value') } }],
    ])
  })

  const { min: tMin, max: tMax } = TEMPERATURE
  check('P1-4.5-temperature-range', `temperature ${tMin} and ${tMax} are accepted`, async () => {
    const to = sendToModel(temperatureModel)
    await accepted(
      [tMin, tMax].map((temperature) => [`temperature ${temperature}`, { temperature }]),
      to,
    )
  })

  check('P1-4.5-temperature-refused', `temperature ${tMin - STEP} and ${tMax + STEP} are refused`, async () => {
    const to = sendToModel(temperatureModel)
    await refused(
      [tMin - STEP, tMax + STEP].map((temperature) => [`temperature ${temperature}`, { temperature }]),
      to,
    )
  })

  const { min: lMin, max: lMax } = TOP_LOGPROBS
  check('P1-4.5-top-logprobs-range', `top_logprobs ${lMin} and ${lMax} are accepted`, async () => {
    const to = sendToModel(logprobsModel)
    await accepted(
      [lMin, lMax].map((n) => [`top_logprobs ${n}`, { top_logprobs: n, include: LOGPROBS }]),
      to,
    )
  })

  check('P1-4.5-top-logprobs-refused', `top_logprobs ${lMin - 1} and ${lMax + 1} are refused`, async () => {
    const to = sendToModel(logprobsModel)
    await refused(
      [lMin - 1, lMax + 1].map((n) => [`top_logprobs ${n}`, { top_logprobs: n, include: LOGPROBS }]),
      to,
    )
  })

  const sid = SAFETY_ID_CHARS
  check('P1-4.5-safety-identifier-length', `a safety_identifier of ${sid} characters is accepted`, async () => {
    await accepted([[`a safety_identifier of ${sid} characters`, { safety_identifier: text(sid, 'gc-safety') }]])
  })

  check('P1-4.5-safety-identifier-refused', `a safety_identifier of ${sid + 1} characters is refused`, async () => {
    await refused([[`a safety_identifier of ${sid + 1} characters`, { safety_identifier: text(sid + 1, 'gc-safety') }]])
  })
})

const TOOL_CHOICE = (m: ChatModel) => m.functionCalling && m.toolChoice
const TOOL_CHOICE_FLAGS = 'supports_function_calling or supports_tool_choice'

/**
 * The §4.5 parameters the table lists with no "where supported", each given a value its row states (the default,
 * a value named, or any string), each its own exchange. The tool parameters ride with a function tool, on the first
 * model that does not state false for the capability (§2.3: supports_function_calling, and
 * supports_parallel_function_calling or supports_tool_choice); a case no model qualifies for is left out, recorded.
 */
async function listedParameters(): Promise<Array<[string, Exchange]>> {
  const suffix = randomSuffix()
  const tool = { tools: [WEATHER_TOOL] }
  const cases: Case[] = [
    ['top_p 1 (its default)', { top_p: 1 }],
    ['prompt_cache_key', { prompt_cache_key: `gc-cache-${suffix}` }],
    ['user', { user: `gc-user-${suffix}` }],
    ['include message.input_image.image_url', { include: ['message.input_image.image_url'] }],
  ]
  const out: Array<[string, Exchange]> = []
  for (const [label, extra] of cases) out.push([label, await send(extra)])
  const toolCases: Array<[Case, (m: ChatModel) => boolean, string]> = [
    [
      ['parallel_tool_calls false, with a function tool', { ...tool, parallel_tool_calls: false }],
      (m) => m.functionCalling && m.parallelCalls,
      'supports_function_calling or supports_parallel_function_calling',
    ],
    [['tool_choice auto, with a function tool', { ...tool, tool_choice: 'auto' }], TOOL_CHOICE, TOOL_CHOICE_FLAGS],
    [['tool_choice none, with a function tool', { ...tool, tool_choice: 'none' }], TOOL_CHOICE, TOOL_CHOICE_FLAGS],
  ]
  const { chat } = await models()
  const left: string[] = []
  for (const [[label, extra], want, flags] of toolCases) {
    const model = chat.find(want)
    if (model === undefined) left.push(`${label} (every model states ${flags} false)`)
    else out.push([`${label}, on ${model.id}`, await send({ ...extra, model: model.id })])
  }
  if (left.length > 0) observe('listed parameters not sent', left.join('; '))
  out.push(['stream_options with stream true', await createStream(api, { ...(await base()), stream_options: {} })])
  return out
}

describe('listed parameters (Part 1 §4.5)', () => {
  check(
    'P1-4.5-listed-parameters',
    'top_p, parallel_tool_calls, tool_choice, prompt_cache_key, user, include and stream_options are accepted',
    async () => {
      expectAccepted(await listedParameters(), 'each listed parameter, with a value its row states')
    },
  )
})

describe('refusals (Part 1 §4.5, §7)', () => {
  check(
    'P1-5.1-key-required',
    'POST /v1/responses without a key, or with an unknown key, is refused with 401',
    async () => {
      const body = await base()
      expectStatus(await create(api, body, { key: null }), 401, 'no key')
      expectStatus(await create(api, body, { key: 'invalid' }), 401, 'an unknown key')
    },
  )

  check('P1-4.5-stream-options-need-stream', 'stream_options without stream true is refused', async () => {
    await refusal(
      await send({ stream_options: { include_obfuscation: false } }),
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

/**
 * Plain text on the first model. The JSON formats on a model whose supports_response_schema is true (§2.3: it
 * states that it takes response schemas), else on the model named for responses, to which a client may send them
 * (§4.5 lists them); `json` is undefined where there is neither.
 */
const formats = memo(async () => {
  const plain = await firstChat(models)
  const { chat } = await models()
  const flagged = chat.find((m) => m.responseSchema)
  const json = flagged?.id ?? namedModel('responses')
  const ask = (model: string, format: Record<string, unknown>, input: string) =>
    create(api, { model, input, text: { format }, max_output_tokens: STRUCTURED_BUDGET, store: false })
  const text = await ask(plain.id, { type: 'text' }, 'Say hi.')
  if (json === undefined) return { text, json: undefined }
  return {
    text,
    json: {
      model: json,
      flagged: flagged !== undefined,
      object: await ask(json, { type: 'json_object' }, 'Answer in JSON: an object with a greeting.'),
      schema: await ask(
        json,
        { type: 'json_schema', name: 'review', schema: REVIEW_SCHEMA, strict: true },
        'Review a fictional book in JSON.',
      ),
    },
  }
})

const NO_JSON_MODEL = `no chat model this key may use states supports_response_schema true (§2.3) and none is named; ${howToName('responses')}`

const toolCall = memo(async () => {
  const model = await firstChat(models, TOOL_CHOICE)
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
  // Rule 6: a refusal may not match the schema; it is an answer, not structured output.
  const refusal = outputItems(body)
    .flatMap((item) => (Array.isArray(item.content) ? item.content.filter(isObject) : []))
    .find((part) => part.type === 'refusal')
  if (refusal !== undefined)
    skipTest(`the model refused (${String(refusal.refusal).slice(0, 120)}); rule 6: a refusal may not match`)
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

/**
 * What the convention's tool call item lacks: type function_call, a call_id to answer it by, the name, and
 * arguments that are JSON text of an object with the strict schema's required properties (rule 5).
 */
function callItemProblems(call: Record<string, unknown>): string[] {
  const problems: string[] = []
  if (call.type !== 'function_call') problems.push(`type ${JSON.stringify(call.type)}, not function_call`)
  if (typeof call.call_id !== 'string' || call.call_id === '') problems.push('no call_id string')
  let args: unknown
  try {
    args = JSON.parse(String(call.arguments))
  } catch {
    problems.push(`arguments not JSON text: ${JSON.stringify(call.arguments)?.slice(0, 120)}`)
    return problems
  }
  const missing = WEATHER_TOOL.parameters.required.filter((name) => !isObject(args) || !(name in args))
  if (!isObject(args)) problems.push(`arguments not a JSON object: ${String(call.arguments).slice(0, 120)}`)
  else if (missing.length > 0) problems.push(`arguments without ${missing.join(', ')}`)
  return problems
}

describe('rules 1, 2 and 5 (Part 1 §4.5)', () => {
  check('P1-4.5-no-n-parameter', 'rule 1: n 2 is refused, or answered with a single candidate', async () => {
    const model = await firstChat(models)
    const ex = await create(api, { model: model.id, input: 'Say hi.', n: 2, max_output_tokens: CAPS.cut, store: false })
    // No refusal status is stated: any 4xx refuses n (401, 429 and a route not served are judged elsewhere).
    if (!is2xx(ex)) return refusal(ex, 'rule 1: there is no n parameter')
    const body = responseOf(ex)
    const messages = outputItems(body).filter((item) => item.type === 'message').length
    expectThat(
      messages <= 1,
      'a refusal (4xx), or one candidate: at most one message item',
      `status ${ex.status} with ${messages} message items`,
      ex,
    )
  })

  check(
    'P1-4.5-text-format',
    'text.format text is accepted, and json_schema (strict) on a model stating supports_response_schema',
    async () => {
      const { text, json } = await formats()
      expectSuccess(text, 'text.format text')
      if (json?.flagged !== true) {
        observe('text.format json_schema', `not judged here: no model states supports_response_schema true (§2.3)`)
        return
      }
      expectSuccess(json.schema, `text.format json_schema with strict and schema, on ${json.model}`)
    },
  )

  check('P1-4.5-text-format-json', 'text.format json_object, and json_schema where no model states it', async () => {
    const { json } = await formats()
    if (json === undefined) notObserved(NO_JSON_MODEL)
    // One cause, one verdict: on a model stating supports_response_schema, json_schema is P1-4.5-text-format's.
    const asked: Array<[string, Exchange]> = [['json_object', json.object]]
    if (!json.flagged) asked.push(['json_schema with strict and schema', json.schema])
    const refused = asked.filter(([, ex]) => !is2xx(ex))
    expectThat(
      refused.length === 0,
      `text.format ${asked.map(([what]) => what).join(' and ')} accepted (2xx) by ${json.model}`,
      refused.map(([what, ex]) => `${what}: ${ex.status} ${ex.text.slice(0, 160)}`),
      refused[0]?.[1] ?? json.object,
    )
  })

  check(
    'P1-4.5-structured-output',
    'a completed json_object answer parses as an object; a strict json_schema answer fits the schema',
    async () => {
      const { json } = await formats()
      if (json === undefined) return notObserved(NO_JSON_MODEL)
      const { object: jsonObject, schema: jsonSchema } = json
      const judges = (ex: Exchange) =>
        ex === jsonSchema && json.flagged ? 'P1-4.5-text-format' : 'P1-4.5-text-format-json'
      for (const ex of [jsonObject, jsonSchema])
        precondition(is2xx(ex), judges(ex), `the format was refused with ${ex.status}`)
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

describe('the tool call item (Part 1 §4.5, §2.7)', () => {
  check(
    'P1-4.5-function-call-item',
    "the tool call is a function_call item with call_id, name and the schema's arguments as JSON",
    async () => {
      const ex = await toolCall()
      const body = responseOf(ex)
      visibleOutputOrSkip(body, 'the tool call')
      const call = outputItems(body).find((item) => item.name === WEATHER_TOOL.name)
      precondition(call !== undefined, 'P1-4.5-function-tool-call', 'the response holds no call of the tool')
      // A call cut by the budget may hold part of its arguments (rule 6): only a completed one must parse.
      if (body.status !== 'completed') skipTest(`the tool call's response has status ${String(body.status)}`)
      const problems = callItemProblems(call)
      expectThat(
        problems.length === 0,
        `type function_call, a call_id, and arguments: JSON text of an object with ${WEATHER_TOOL.parameters.required.join(' and ')}`,
        problems,
        ex,
      )
    },
  )
})

describe('conversation, truncation and service tier (Part 1 §4.5, §7)', () => {
  check('P1-4.5-conversation-exclusive', 'conversation with previous_response_id is refused', async () => {
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
    // Only a 400 shows the exclusion: a 404 or 403 says the (invented) conversation names nothing, or that
    // persistent conversations are not enabled, which is another matter.
    if (ex.status === 404 || ex.status === 403)
      notObserved(`the conversation was answered ${ex.status}: it names nothing here, so the combination is not seen`)
    await refusal(ex, 'conversation must not be combined with previous_response_id')
  })

  check(
    'P1-7-truncation-disabled',
    'an input over max_input_tokens is refused with 400 when truncation is disabled',
    async () => {
      const over = await overWindow()
      for (const [label, ex] of [
        ['left at its default', over.answers.default],
        ['disabled', over.answers.disabled],
      ] as const)
        expectStatus(ex, 400, `input over the window with truncation ${label}`)
    },
  )

  check('P1-4.5-truncation-auto', 'an input over max_input_tokens is served when truncation is auto', async () => {
    const over = await overWindow()
    const ex = over.answers.auto
    expectSuccess(ex, `input over the window with truncation auto (${over.note})`)
    const usage = isObject(ex.json) && isObject(ex.json.usage) ? ex.json.usage : undefined
    observe(
      'truncation auto',
      `input_tokens ${String(usage?.input_tokens)} against the window of ${over.window} (${over.note})`,
    )
  })

  check('P1-4.5-service-tier', 'service_tier default is accepted', async () => {
    const model = await firstChat(models)
    const ex = await create(api, {
      model: model.id,
      input: 'Say hi.',
      service_tier: 'default',
      max_output_tokens: CAPS.cut,
      store: false,
    })
    expectSuccess(ex, 'service_tier default')
    observe(
      'service_tier in the response (not shown)',
      `asked default, the response says ${JSON.stringify((ex.json as Record<string, unknown> | undefined)?.service_tier)}`,
    )
  })

  check(
    'P1-4.5-service-tier-flex',
    'service_tier flex is accepted',
    async () => {
      const model = await firstChat(models)
      // flex "may time out up to 900 seconds": wait as long, and a timeout of ours is no verdict.
      const ex = await create(
        api,
        { model: model.id, input: 'Say hi.', service_tier: 'flex', max_output_tokens: CAPS.cut, store: false },
        { timeoutMs: FLEX_TIMEOUT_MS },
      ).catch((error: unknown) =>
        notObserved(`flex was not answered within ${FLEX_TIMEOUT_MS / 1000} s (${String(error).slice(0, 120)})`),
      )
      // A timeout the service answers (408, 504, or an error saying so) is what flex may do: no verdict either.
      if (ex.status === 408 || ex.status === 504 || (!is2xx(ex) && TIMED_OUT.test(ex.text)))
        notObserved(`flex timed out at the service (${ex.status}: ${ex.text.slice(0, 120)})`)
      expectSuccess(ex, 'service_tier flex')
      observe(
        'service_tier in the response (not shown)',
        `asked flex, the response says ${JSON.stringify((ex.json as Record<string, unknown> | undefined)?.service_tier)}`,
      )
    },
    { timeout: FLEX_TIMEOUT_MS + 30_000 },
  )
})

/** A one-page PDF, the form of file a model stating supports_pdf_input takes, and its bytes as a Base64 data URL (§4.4). */
const PDF = buildPdf([
  { texts: [{ x: 72, y: 700, text: 'Gateway conformance note: the harbour tour starts at ten.' }] },
])
const FILE_DATA = pdfDataUrl(PDF)
/** A public PDF the target fetches for file_url, the one the OCR suite names. */
const FILE_URL = URL_DOCUMENT.document_url
/** A network failure named in an error: the host down or out of reach, not a refusal of file_url itself. */
const UNREACHABLE =
  /ENOTFOUND|EAI_AGAIN|ECONN[A-Z]+|ETIMEDOUT|getaddrinfo|unreachable|network error|could not (?:resolve|connect|reach)|timed? ?out/i

function withFile(model: string, part: Record<string, unknown>): Record<string, unknown> {
  return {
    model,
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What does the file say?' },
          { type: 'input_file', filename: 'note.pdf', ...part },
        ],
      },
    ],
    max_output_tokens: CAPS.cut,
    store: false,
  }
}

/** A model that states supports_pdf_input (§2.3); not observed where none does. */
const pdfModel = memo(async () => {
  const model = (await models()).chat.find((m) => m.pdfInput)
  if (model === undefined) notObserved('no chat model this key may use states supports_pdf_input true (§2.3)')
  return model
})

/** The input_file given by file_id (of a PDF uploaded as user_data) and by file_data, each alone, to that model. */
const fileInputs = memo(async () => {
  const model = await pdfModel()
  const file = await upload(api, {
    label: 'input-file',
    purpose: 'user_data',
    file: { ext: 'pdf', contentType: 'application/pdf', content: PDF },
  })
  if (file.id === undefined) expectSetup(file.ex, '2xx', 'an uploaded user_data file to name by file_id')
  precondition(file.id !== undefined, 'P1-2.4-file-object', 'the upload answered no file id')
  return {
    model: model.id,
    fileId: file.id,
    byId: await create(api, withFile(model.id, { file_id: file.id })),
    byData: await create(api, withFile(model.id, { file_data: FILE_DATA })),
  }
})

describe('input files (Part 1 §4.4)', () => {
  check(
    'P1-4.4-input-file-sources',
    'an input_file given by file_id, or by file_data, is accepted by a model that takes PDF input',
    async () => {
      const { model, byId, byData } = await fileInputs()
      expectSuccess(byId, `an input_file given by file_id of a user_data PDF, to ${model}`)
      expectSuccess(byData, `an input_file given by file_data (a Base64 data URL), to ${model}`)
    },
  )

  check(
    'P1-4.4-input-file-sources',
    'an input_file given by file_url of a public PDF is accepted by a model that takes PDF input',
    async () => {
      const model = (await pdfModel()).id
      const ex = await create(api, withFile(model, { file_url: FILE_URL }))
      // The public host being down, or out of the target's reach, is no violation by the target.
      if ([408, 502, 504].includes(ex.status) || (!is2xx(ex) && UNREACHABLE.test(ex.text)))
        skipTest(`the target could not reach ${FILE_URL} (it answered ${ex.status}: ${ex.text.slice(0, 160)})`)
      expectSuccess(ex, `an input_file given by file_url ${FILE_URL}, to ${model}`)
    },
  )

  check(
    'P1-4.4-input-file-one-source',
    'an input_file given by file_id and file_data together is refused',
    async () => {
      const { model, fileId, byId, byData } = await fileInputs()
      precondition(
        is2xx(byId) && is2xx(byData),
        'P1-4.4-input-file-sources',
        `an input_file given one way answered ${byId.status} (file_id) and ${byData.status} (file_data)`,
      )
      const both = await create(api, withFile(model, { file_id: fileId, file_data: FILE_DATA }))
      expectThat(
        both.status >= 400 && both.status < 500,
        'a refusal (4xx): an input_file has exactly one way to supply its data (§4.4)',
        `${both.status}${both.status >= 500 ? ' (a server error, not a refusal)' : ''} ${both.text.slice(0, 160)}`,
        both,
      )
    },
  )
})
