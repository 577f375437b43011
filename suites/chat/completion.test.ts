/** Chat completions (Part 1 §1.5, §2.5, §2.6, §4.7, §5.1, §7): the answer's shape, usage, budget and instructions. */
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe } from 'vitest'
import {
  expectSchema,
  expectStatus,
  expectSuccess,
  expectThat,
  is2xx,
  notObserved,
  precondition,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo, randomSuffix } from '../../harness/worker/helpers.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import {
  CAPS,
  catalogueFixture,
  chat,
  completionOf,
  firstChoice,
  LONG_PROMPT,
  modelFor,
  SHORT_PROMPT,
  usageOf,
  userMessage,
} from './fixtures.ts'

const api = target()
const catalogue = catalogueFixture(api)
const chatModel = () => modelFor(catalogue, 'chat')
/** A model that takes system messages (§2.3 supports_system_messages): the instruction checks need one. */
const instructedModel = () => modelFor(catalogue, 'chat', (m) => m.systemMessages)

const INSTRUCTIONS =
  'You are a terse assistant for a network operations team. Answer in one short sentence and never use lists.'

/** One plain completion, read by the shape and usage checks. */
const plain = memo(async () => {
  const model = await chatModel()
  return chat(api, {
    model: model.id,
    messages: [userMessage(SHORT_PROMPT)],
    max_completion_tokens: CAPS.answer,
  })
})

/** One completion cut by its budget. */
const cut = memo(async () => {
  const model = await chatModel()
  return chat(api, {
    model: model.id,
    messages: [userMessage(LONG_PROMPT)],
    max_completion_tokens: CAPS.cut,
  })
})

/** The same user message with the instructions as a system message, as a developer message, and without them. */
const withInstructions = memo(async () => {
  const model = await instructedModel()
  const send = (first: Record<string, unknown>[]) =>
    chat(api, {
      model: model.id,
      messages: [...first, userMessage(SHORT_PROMPT)],
      max_completion_tokens: CAPS.answer,
    })
  const [system, developer, none] = await Promise.all([
    send([{ role: 'system', content: INSTRUCTIONS }]),
    send([{ role: 'developer', content: INSTRUCTIONS }]),
    send([]),
  ])
  return { system, developer, none }
})

describe('the chat completion (Part 1 §2.5, §2.6)', () => {
  check('P1-2.6-chat-completion', 'a chat model and one user message give 200 with the §2.6 shape', async () => {
    const ex = await plain()
    expectSuccess(ex)
    expectSchema(ex, 'chat/completion.json')
    const body = ex.json as Record<string, unknown>
    const choice = firstChoice(body)
    observe(
      'chat completion',
      `model asked ${(await chatModel()).id}, answered ${String(body.model)}; finish_reason ${String(choice.finish_reason)}; fields ${Object.keys(body).join(', ')}`,
    )
  })

  check(
    'P1-2.5-chat-usage',
    'usage has prompt_tokens, completion_tokens, total_tokens and prompt_tokens_details.cached_tokens',
    async () => {
      const ex = await plain()
      const body = completionOf(ex)
      expectSchema(ex, 'chat/usage.json', body.usage, 'usage')
      const usage = body.usage as Record<string, unknown>
      observe(
        'chat usage',
        `fields ${Object.keys(usage).join(', ')}${isObject(usage.completion_tokens_details) ? `; completion_tokens_details ${JSON.stringify(usage.completion_tokens_details)}` : ''}`,
      )
    },
  )

  check('P1-2.5-chat-total-tokens', 'total_tokens is prompt_tokens plus completion_tokens', async () => {
    for (const ex of [await plain(), await cut()]) {
      const usage = usageOf(completionOf(ex))
      expectThat(
        usage.total === usage.prompt + usage.completion,
        `total_tokens ${usage.prompt + usage.completion} (${usage.prompt} + ${usage.completion})`,
        `total_tokens ${usage.total}`,
        ex,
      )
    }
  })

  check(
    'P1-2.6-chat-finish-length',
    `max_completion_tokens ${CAPS.cut} on a long essay ends with finish_reason length`,
    async () => {
      const ex = await cut()
      const completion = completionOf(ex)
      const choice = firstChoice(completion)
      // The rule speaks of a budget that ran out: an answer that ended by itself under the cap does not meet it.
      const usage = usageOf(completion)
      if (usage.completion < CAPS.cut)
        notObserved(
          `the answer ended under the cap (${usage.completion} of ${CAPS.cut} completion tokens, finish_reason ${JSON.stringify(choice.finish_reason)})`,
        )
      expectThat(
        choice.finish_reason === 'length',
        'finish_reason length (the generation budget ran out)',
        `finish_reason ${JSON.stringify(choice.finish_reason)}`,
        ex,
      )
    },
  )

  check(
    'P1-4.7-chat-max-completion-tokens',
    'completion_tokens stays within max_completion_tokens, reasoning included',
    async () => {
      const ex = await cut()
      const usage = usageOf(completionOf(ex))
      expectThat(
        usage.completion <= CAPS.cut,
        `completion_tokens at most ${CAPS.cut}`,
        `completion_tokens ${usage.completion}`,
        ex,
      )
    },
  )
})

/** A schema with the parts a structured answer can get wrong: required keys, an enum, a nested object and an array. */
const WEATHER_REPORT_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rainy'] },
    temperature_c: { type: 'number' },
    wind: {
      type: 'object',
      properties: { speed_kmh: { type: 'integer' }, direction: { type: 'string' } },
      required: ['speed_kmh', 'direction'],
      additionalProperties: false,
    },
    warnings: { type: 'array', items: { type: 'string' } },
  },
  required: ['city', 'conditions', 'temperature_c', 'wind', 'warnings'],
  additionalProperties: false,
} as const

/** Why a structured answer does not match the schema it was asked for; undefined when it does. */
function structuredProblem(content: unknown): string | undefined {
  if (typeof content !== 'string') return `content is ${content === null ? 'null' : typeof content}, not JSON text`
  let value: unknown
  try {
    value = JSON.parse(content)
  } catch (error) {
    return `content is not JSON (${(error as Error).message})`
  }
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(WEATHER_REPORT_SCHEMA)
  if (validate(value)) return undefined
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? ''}`).join('; ')
}

describe('structured output (Part 1 §4.7: the full parameter list is not shown)', () => {
  check(
    'P1-2.6-chat-completion',
    'a request with response_format json_schema, where served, answers the §2.6 shape; whether the content matches the schema is recorded',
    async () => {
      const model = await modelFor(catalogue, 'chat', (m) => m.responseSchema)
      const ex = await chat(api, {
        model: model.id,
        messages: [userMessage('Report the weather in Lisbon right now.')],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'weather_report', strict: true, schema: WEATHER_REPORT_SCHEMA },
        },
        max_completion_tokens: CAPS.toolCall,
      })
      if (!is2xx(ex)) {
        // §4.7 does not show response_format: a refusal is the target's choice, recorded.
        observe('chat structured output', `${model.id}: response_format json_schema answered ${ex.status}`)
        return
      }
      expectSchema(ex, 'chat/completion.json')
      const choice = firstChoice(ex.json as Record<string, unknown>)
      const content = isObject(choice.message) ? choice.message.content : undefined
      const problem = structuredProblem(content)
      observe(
        'chat structured output',
        `${model.id}: finish_reason ${String(choice.finish_reason)}; ${problem === undefined ? 'the content matches the sent schema' : `the content does not match the sent schema: ${problem.slice(0, 300)}`}`,
      )
    },
  )
})

describe('instructions: the first system or developer message (Part 1 §4.7)', () => {
  check(
    'P1-4.7-chat-instruction-roles',
    'a first message with role system, and one with role developer, are accepted',
    async () => {
      const { system, developer } = await withInstructions()
      // The shape itself is P1-2.6-chat-completion's to judge: here a completion of any shape is an acceptance.
      for (const ex of [system, developer]) {
        expectSuccess(ex)
        completionOf(ex)
      }
    },
  )

  check(
    'P1-4.7-chat-instructions-counted',
    'the instruction message adds to prompt_tokens, equally as system or developer',
    async () => {
      const { system, developer, none } = await withInstructions()
      const refused = Object.entries({ system, developer }).filter(([, ex]) => !is2xx(ex))
      precondition(
        refused.length === 0,
        'P1-4.7-chat-instruction-roles',
        refused.map(([role, ex]) => `the call with a ${role} message answered ${ex.status}`).join('; '),
      )
      const [s, d, n] = [system, developer, none].map((ex) => usageOf(completionOf(ex)).prompt) as [
        number,
        number,
        number,
      ]
      expectThat(s > n, `more prompt_tokens with the system message than the ${n} without it`, `${s} with it`, system)
      expectThat(
        d === s,
        `the same prompt_tokens with the instructions as developer as with them as system (${s})`,
        `${d} as developer`,
        developer,
      )
    },
  )
})

describe('invalid and unknown (Part 1 §1.5, §5.1, §7)', () => {
  check(
    'P1-5.1-key-required',
    'POST /v1/chat/completions without a key, or with an unknown key, is refused with 401',
    async () => {
      const model = await chatModel()
      const body = { model: model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAPS.answer }
      expectStatus(await chat(api, body, { key: null }), 401)
      expectStatus(await chat(api, body, { key: 'invalid' }), 401)
    },
  )

  check(
    'P1-7-chat-invalid-request',
    'no model, no messages, or an empty messages array is refused with 400',
    async () => {
      const model = await chatModel()
      const cases: Array<[string, Record<string, unknown>]> = [
        ['without model', { messages: [userMessage(SHORT_PROMPT)] }],
        ['without messages', { model: model.id }],
        ['with an empty messages array', { model: model.id, messages: [] }],
      ]
      for (const [what, body] of cases)
        expectStatus(await chat(api, { ...body, max_completion_tokens: CAPS.answer }), 400, `a chat request ${what}`)
    },
  )

  check('P1-7-chat-unknown-model', 'a model id that does not exist is refused with 400 or 404', async () => {
    const ex = await chat(api, {
      model: `gc-no-such-model-${randomSuffix()}`,
      messages: [userMessage(SHORT_PROMPT)],
      max_completion_tokens: CAPS.answer,
    })
    observe(
      'chat unknown model',
      `status ${ex.status}${isObject(ex.json) && isObject(ex.json.error) ? `, error code ${String(ex.json.error.code)}` : ''}`,
    )
    expectStatus(ex, [400, 404])
  })

  check('P1-1.5-chat-min-tier', "a chat model above the caller's tier is refused with a client error", async () => {
    const { all, tier } = await catalogue()
    const chatModels = all.filter((m) => m.mode === 'chat')
    // The main key at its tier, else the tier-0 key (whose tier is 0 by definition), against a model above it.
    const candidates: Array<{ key: 'main' | 'tier0'; tier: number | undefined }> = [
      { key: 'main', tier },
      ...(api.hasKey('tier0') ? [{ key: 'tier0' as const, tier: 0 }] : []),
    ]
    const pick = candidates.flatMap((c) => {
      const above = c.tier === undefined ? undefined : chatModels.find((m) => m.minTier > (c.tier as number))
      return above ? [{ ...c, model: above }] : []
    })[0]
    // Where every chat model is open to the keys given, no call can meet the rule: not observed, never a pass.
    if (!pick)
      notObserved(
        `no chat model has a min_tier above the tier of the keys given (${candidates.map((c) => `${c.key}: ${String(c.tier)}`).join(', ')}): nothing to refuse`,
      )
    const ex = await chat(
      api,
      { model: pick.model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAPS.answer },
      { key: pick.key },
    )
    observe(
      'chat min_tier',
      `${pick.model.id} (min_tier ${pick.model.minTier}) with the ${pick.key} key (tier ${String(pick.tier)}): status ${ex.status}`,
    )
    // A 429 that outlasted the retries says the call was throttled, not whether the tier would have let it through.
    if (ex.status === 429) skipTest(`${pick.model.id} answered 429 after retries: the tier rule was not reached`)
    // §1.5 says the tier sets which models can be used, not which status refuses one: any client error does.
    expectThat(
      ex.status >= 400 && ex.status < 500,
      `a client error (4xx): min_tier ${pick.model.minTier} is above tier ${String(pick.tier)}`,
      `status ${ex.status}`,
      ex,
    )
  })
})
