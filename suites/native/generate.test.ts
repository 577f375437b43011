/** generateContent on the native interface: the §2.5 answer and the body rules of §4.8. */
import { describe } from 'vitest'
import { expectSchema, expectStatus, expectSuccess, expectThat, expectRefused } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { namedModel } from '../shared/named-models.ts'
import { isObject } from '../../common/json.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target, spend } from '../../harness/worker/suite.ts'
import {
  generatePath,
  MAX_OUTPUT,
  nativeModels,
  nativePost,
  textBody,
  textCostUsd,
  userTurn,
  withRoomForText,
  type ListedModel,
} from './fixtures.ts'
import { rangeOf, valuesOf } from '../../common/request-schemas.ts'

const api = target()
const models = nativeModels(api)

/** Enough to reach every native model of a target, few enough to bound the cost of a value no model takes. */
const MAX_THINKING_TRIES = 6

const TOOL = {
  name: 'get_time',
  description: 'The current time.',
  parameters: { type: 'object', properties: {} },
}

/** A 1x1 PNG: the smallest real image. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

async function generate(body: Record<string, unknown>, model?: ListedModel) {
  const m = model ?? (await models.generation())
  spend(textCostUsd(m, body), `native generateContent with ${m.id}`)
  return nativePost(api, generatePath(m.id), body)
}

function withConfig(config: Record<string, unknown>): Record<string, unknown> {
  return textBody({}, config)
}

/** The model the user names for the native interface, or else the generation model first and the other chat models. */
async function thinkingModels(): Promise<ListedModel[]> {
  const first = await models.generation()
  if (namedModel('native') !== undefined) return [first]
  const others = (await models.usable()).filter((m) => m.mode === 'chat' && m.id !== first.id)
  return [first, ...others].slice(0, MAX_THINKING_TRIES)
}

/**
 * §4.8 names the fields of the interface, not that every model takes each: `body` is judged on the model the user
 * names, or else on any native generation model that serves it.
 */
async function expectAcceptedBySome(body: Record<string, unknown>, what: string): Promise<void> {
  const answers: Exchange[] = []
  for (const model of await thinkingModels()) {
    const ex = await generate(body, model)
    if (ex.status >= 200 && ex.status < 300) return
    answers.push(ex)
  }
  expectThat(
    false,
    `${what} accepted (2xx) by ${namedModel('native') ?? 'some native generation model'}`,
    answers.map((ex) => `${ex.excerpt.path}: ${ex.status}`),
    answers[0],
  )
}

describe('the generation response (Part 2 §2.5, §4.8)', () => {
  check(
    'P2-2.5-native-response',
    'generateContent answers candidates, usageMetadata, modelVersion and responseId',
    async () => {
      const model = await models.generation()
      const { ex, body } = await withRoomForText((b) => generate(b, model))
      observe('native response set-up', JSON.stringify(body.generationConfig))
      expectSuccess(ex)
      expectSchema(ex, 'native/generate-response.json')
    },
  )

  check(
    'P2-4.8-system-instruction',
    'system_instruction {parts} is accepted by the named model, or by some native model',
    async () => {
      await expectAcceptedBySome(
        textBody({ system_instruction: { parts: [{ text: 'Answer like a lighthouse keeper.' }] } }),
        'system_instruction {parts}',
      )
    },
  )

  check('P2-4.8-inline-image', 'an image part with inline_data {mime_type, data} is accepted', async () => {
    const contents = [
      {
        role: 'user',
        parts: [{ text: 'What colour is this pixel?' }, { inline_data: { mime_type: 'image/png', data: PNG_1X1 } }],
      },
    ]
    // §4.8 states how images are sent, not that every model takes them: the named model, or any that does.
    const answers: Exchange[] = []
    for (const model of await thinkingModels()) {
      const ex = await generate(textBody({ contents }), model)
      if (ex.status >= 200 && ex.status < 300) {
        observe('native inline image', `accepted by ${model.id}`)
        return
      }
      answers.push(ex)
    }
    expectThat(
      false,
      `an inline_data image accepted (200) by ${namedModel('native') ?? 'some native generation model'}`,
      answers.map((ex) => `${ex.excerpt.path}: ${ex.status}`),
      answers[0],
    )
  })
})

describe('contents and roles (§4.8)', () => {
  check('P2-4.8-contents-required', 'a body without contents is refused with 400', async () => {
    const { contents: _dropped, ...body } = textBody()
    expectStatus(await generate(body), 400)
  })

  check('P2-4.8-contents-role', 'user and model turns are accepted', async () => {
    const contents = [
      userTurn('Hello.'),
      { role: 'model', parts: [{ text: 'Hello! How can I help?' }] },
      userTurn('Tell me a short fact.'),
    ]
    expectSuccess(await generate(textBody({ contents })))
  })

  for (const role of ['system', 'assistant']) {
    check('P2-4.8-contents-role-refused', `a contents item with role ${role} is refused (a 4xx)`, async () => {
      expectRefused(
        await generate(textBody({ contents: [{ role, parts: [{ text: 'Be brief.' }] }, userTurn('Hello.')] })),
        'a role other than user or model',
      )
    })
  }

  check('P2-4.8-contents-role', 'a contents item without role is refused with 400', async () => {
    expectStatus(await generate(textBody({ contents: [{ parts: [{ text: 'Hello.' }] }] })), 400)
  })
})

/** The stated range, read from the request schema the reference gateway enforces too; 0.01 past each edge. */
const TEMPERATURE = rangeOf('POST /v1beta/models/{model}:generateContent', 'body', 'generationConfig.temperature')
const THINKING_LEVELS = valuesOf(
  'POST /v1beta/models/{model}:generateContent',
  'body',
  'generationConfig.thinkingConfig.thinkingLevel',
)

describe('generationConfig ranges (§4.8)', () => {
  const { min, max } = TEMPERATURE
  for (const temperature of [min, max]) {
    check(
      'P2-4.8-temperature-range',
      `temperature ${temperature.toFixed(1)} is accepted by the named model, or by some native model`,
      async () => {
        await expectAcceptedBySome(withConfig({ temperature }), `temperature ${temperature.toFixed(1)}`)
      },
    )
  }
  for (const temperature of [min - 0.01, max + 0.01]) {
    check('P2-4.8-temperature-refused', `temperature ${temperature} is refused (a 4xx)`, async () => {
      expectRefused(await generate(withConfig({ temperature })), `past ${min.toFixed(1)} to ${max.toFixed(1)}`)
    })
  }

  // The optional fields of §4.8 with a value each, one at a time so that a refusal names the field.
  const options: Array<[string, Record<string, unknown>]> = [
    ['generationConfig.topP 0.9', withConfig({ topP: 0.9 })],
    ['generationConfig.topK 40', withConfig({ topK: 40 })],
    ['generationConfig.stopSequences ["STOP"]', withConfig({ stopSequences: ['STOP'] })],
    ['safetySettings (an empty array)', textBody({ safetySettings: [] })],
    ['tools (one function declaration)', textBody({ tools: [{ functionDeclarations: [TOOL] }] })],
  ]
  for (const [what, body] of options) {
    // Like thinkingConfig: judged on the named model, or on any native generation model that takes it.
    check('P2-4.8-generation-options', `${what} is accepted by the named model, or by some native model`, async () => {
      await expectAcceptedBySome(body, what)
    })
  }

  check('P2-4.8-max-output-tokens', `an integer maxOutputTokens (1 and ${MAX_OUTPUT}) is accepted`, async () => {
    for (const maxOutputTokens of [1, MAX_OUTPUT]) expectSuccess(await generate(withConfig({ maxOutputTokens })))
  })
  check('P2-4.8-max-output-tokens-refused', 'maxOutputTokens 1.5 is refused (a 4xx)', async () => {
    expectRefused(await generate(withConfig({ maxOutputTokens: 1.5 })), 'a fraction where the field is an integer')
  })
  // The provider's JSON mapping may read "16" as the integer 16: the answer is recorded, not judged.
  check('P2-4.8-max-output-tokens', 'how maxOutputTokens "16" (a string) is answered is recorded', async () => {
    const ex = await generate(withConfig({ maxOutputTokens: '16' }))
    observe('native maxOutputTokens "16"', `answered ${ex.status}`)
  })

  // §4.8 documents the values, not that one model takes them all: each is judged on the model the user names, or
  // else on any native generation model that serves it.
  const accepted: Array<[string, Record<string, unknown>]> = [
    ...THINKING_LEVELS.map((thinkingLevel): [string, Record<string, unknown>] => [
      `thinkingLevel ${thinkingLevel}`,
      { thinkingLevel },
    ]),
    ...[0, 128].map((thinkingBudget): [string, Record<string, unknown>] => [
      `thinkingBudget ${thinkingBudget}`,
      { thinkingBudget },
    ]),
  ]
  for (const [what, thinkingConfig] of accepted) {
    check('P2-4.8-thinking-config', `${what} is accepted by the named model, or by some native model`, async () => {
      const answers: Exchange[] = []
      for (const model of await thinkingModels()) {
        const ex = await generate(withConfig({ thinkingConfig }), model)
        if (ex.status >= 200 && ex.status < 300) {
          observe(`native ${what}`, `accepted by ${model.id}`)
          return
        }
        answers.push(ex)
      }
      expectThat(
        false,
        `${what} accepted (200) by ${namedModel('native') ?? 'some native generation model'}`,
        answers.map((ex) => `${ex.excerpt.path}: ${ex.status}`),
        answers[0],
      )
    })
  }
  check('P2-4.8-thinking-config-refused', 'thinkingLevel "extreme" is refused (a 4xx)', async () => {
    expectRefused(
      await generate(withConfig({ thinkingConfig: { thinkingLevel: 'extreme' } })),
      'a level other than low, medium or high',
    )
  })
  check('P2-4.8-thinking-config-refused', 'thinkingBudget 1.5 is refused (a 4xx)', async () => {
    expectRefused(
      await generate(withConfig({ thinkingConfig: { thinkingBudget: 1.5 } })),
      'a fraction where the budget is an integer',
    )
  })
})

describe("the provider's own models and the other methods (§4.8)", () => {
  check('P2-4.8-own-models', 'a usable chat model of another owner is refused with a 4xx status', async () => {
    const native = await models.generation()
    const other = (await models.usable()).find((m) => m.mode === 'chat' && m.ownedBy !== native.ownedBy)
    if (other === undefined) skipTest('no usable chat model of another owner in GET /v1/models to try')
    const ex = await generate(textBody(), other)
    expectThat(
      ex.status >= 400 && ex.status < 500,
      `a 4xx status for ${other.id} (owned_by ${other.ownedBy}; the native models are ${native.ownedBy}'s)`,
      String(ex.status),
      ex,
    )
  })

  const bodies: Record<string, (model: string) => Record<string, unknown>> = {
    countTokens: () => ({ contents: [userTurn('Count these words.')] }),
    embedContent: () => ({ content: { parts: [{ text: 'Embed this.' }] } }),
    batchEmbedContents: (model) => ({
      requests: [{ model: `models/${model}`, content: { parts: [{ text: 'Embed this.' }] } }],
    }),
    predict: () => ({ instances: [{ prompt: 'A lighthouse at dusk.' }] }),
  }
  for (const [method, body] of Object.entries(bodies)) {
    check('P2-4.8-other-methods', `${method} answers JSON with a status below 500 (recorded, not judged)`, async () => {
      const model = await models.generation()
      spend(textCostUsd(model, { contents: body(model.id) }), `native ${method} with ${model.id}`)
      const ex = await nativePost(api, generatePath(model.id, method), body(model.id))
      // The shapes are not shown (§4.8): the answer is recorded, and only a server error is judged.
      const json = ex.json
      observe(
        `native ${method}`,
        `${ex.status} ${ex.header('content-type') ?? '(no content-type)'}; ${isObject(json) ? `keys ${Object.keys(json).join(', ')}` : 'not a JSON object'}`,
      )
      expectThat(ex.status < 500, 'a status below 500', String(ex.status), ex)
    })
  }
})
