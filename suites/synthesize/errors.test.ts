/**
 * text:synthesize refusals (Part 2 §4.9, §5.3, §7): required fields, Bearer only, the size ceiling and the error
 * body {error: {code, message, status}}.
 */
import { describe } from 'vitest'
import {
  expectJson,
  expectSchema,
  expectSetup,
  expectStatus,
  expectSuccess,
  expectThat,
  precondition,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { schemas } from '../../harness/schema-registry.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target, runConfig } from '../../harness/worker/suite.ts'
import { SYNTHESIZE_PATH, synthesisBody, synthesisModels, synthesize } from './fixtures.ts'

const api = target()
const models = synthesisModels(api)

async function body(options: { text?: string } = {}): Promise<Record<string, unknown>> {
  return synthesisBody({ model: (await models.first()).id, encoding: 'MP3', ...options })
}

/** The body without one field, named by its dotted path. */
function without(source: Record<string, unknown>, path: string): Record<string, unknown> {
  const copy = structuredClone(source)
  const keys = path.split('.')
  let node: Record<string, unknown> = copy
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>
  delete node[keys[keys.length - 1] as string]
  return copy
}

const REQUIRED = ['input.text', 'voice.languageCode', 'voice.model_name', 'audioConfig.audioEncoding']
/**
 * Far over the ceiling: ten times the "about 4000 bytes" of §4.9, so that no reading of "about" (nor the 900 of
 * §7's sample text, nor a looser one) puts it within.
 */
const FAR_OVER = 40_000

/** The refusals whose bodies the error-body checks read, each with the requirement that owns its status. */
const refusals: Record<string, { make: () => Promise<Exchange>; owner: string }> = {
  '400 (input.text missing)': {
    make: async () => synthesize(api, without(await body(), 'input.text')),
    owner: 'P2-4.9-required-fields',
  },
  '401 (no key)': {
    make: async () => api.post(SYNTHESIZE_PATH, await body(), { key: null }),
    owner: 'P1-5.1-key-required',
  },
  '401 (unknown key)': {
    make: async () => api.post(SYNTHESIZE_PATH, await body(), { key: 'invalid' }),
    owner: 'P1-5.1-key-required',
  },
  [`413 (${FAR_OVER} bytes of text)`]: {
    make: async () => synthesize(api, await body({ text: 'a'.repeat(FAR_OVER) })),
    owner: 'P2-7-synthesis-413',
  },
}

/** The refusal, or a skip when its status is wrong: the body of another status is not what is judged here. */
async function refusal(name: string): Promise<Exchange> {
  const { make, owner } = refusals[name] as { make: () => Promise<Exchange>; owner: string }
  const ex = await make()
  const status = Number(name.slice(0, 3))
  precondition(
    ex.status === status,
    owner,
    `${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status}, not ${status}`,
  )
  return ex
}

describe('required fields (Part 2 §4.9)', () => {
  for (const field of REQUIRED) {
    check('P2-4.9-required-fields', `a body without ${field} is refused with 400`, async () => {
      expectStatus(await synthesize(api, without(await body(), field)), 400)
    })
  }
})

describe('Bearer only (§5.3)', () => {
  check('P2-5.3-bearer-only', 'Authorization: Bearer is accepted', async () => {
    const ex = await synthesize(api, await body())
    expectThat(
      ex.status >= 200 && ex.status < 300,
      'a 2xx with the key as Authorization: Bearer',
      String(ex.status),
      ex,
    )
  })
  check(
    'P2-5.3-bearer-only',
    'the key in the native key header, without Authorization, is refused with 401',
    async () => {
      expectStatus(
        await synthesize(api, await body(), {
          key: null,
          headers: { [runConfig().nativeKeyHeader]: api.keyOrSkip('main') },
        }),
        401,
      )
    },
  )
})

describe('text size (§4.9, §7)', () => {
  check(
    'P2-7-synthesis-413',
    `input.text of ${FAR_OVER} bytes, ten times the stated 4000, is refused with 413`,
    async () => {
      expectStatus(await synthesize(api, await body({ text: 'a'.repeat(FAR_OVER) })), 413)
    },
  )
  const within: Array<[string, string]> = [
    ['4000 ASCII bytes', 'a'.repeat(4000)],
    ['4000 bytes as 2000 two-byte characters', 'é'.repeat(2000)],
  ]
  for (const [what, text] of within) {
    check('P2-4.9-text-ceiling', `input.text of ${what} is accepted`, async () => {
      expectSuccess(await synthesize(api, await body({ text })))
    })
  }
  // "about 4000 bytes", and §7: "the enforced ceiling is not specified beyond this": the edge is only recorded.
  check('P2-4.9-text-ceiling', 'how input.text of 4001 bytes is answered is recorded', async () => {
    const ex = await synthesize(api, await body({ text: 'a'.repeat(4001) }))
    observe('text:synthesize 4001 bytes', `answered ${ex.status}`)
  })
})

describe('the error body (§7)', () => {
  for (const name of Object.keys(refusals)) {
    check('P2-7-synthesis-error-body', `a ${name} has the body {error: {code, message, status}}`, async () => {
      expectSchema(await refusal(name), 'synthesize/error-body.json')
    })
    check(
      'P2-7-synthesis-error-code',
      `a ${name}: error.code is the HTTP status${name.startsWith('400') ? ', status INVALID_ARGUMENT' : ''}`,
      async () => {
        const ex = await refusal(name)
        precondition(
          schemas().validate('synthesize/error-body.json', ex.json).ok,
          'P2-7-synthesis-error-body',
          'the body is not {error: {code, message, status}}',
        )
        const json = expectJson(ex)
        const error = isObject(json) && isObject(json.error) ? json.error : {}
        expectThat(error.code === ex.status, `error.code ${ex.status}`, `error.code ${JSON.stringify(error.code)}`, ex)
        if (ex.status === 400)
          expectThat(
            error.status === 'INVALID_ARGUMENT',
            'error.status INVALID_ARGUMENT',
            `error.status ${JSON.stringify(error.status)}`,
            ex,
          )
        observe('text:synthesize error status', `${ex.status}: ${JSON.stringify(error.status)}`)
      },
    )
  }

  check(
    'P2-7-synthesis-error-body',
    'a 429, where the target shows one to a tier-0 key, has the body {error: {code, message, status}}',
    async () => {
      api.keyOrSkip('tier0')
      const model = (await models.all()).find((m) => m.minTier === 0)
      if (model === undefined) skipTest('no synthesis model that a tier-0 key may use')
      // Per-model limits are small at tier 0 (Part 1 §8.3): a short burst reaches one on most targets.
      for (let i = 0; i < 8; i += 1) {
        const ex = await synthesize(api, synthesisBody({ model: model.id, encoding: 'MP3' }), {
          key: 'tier0',
          retry429: false,
        })
        if (ex.status === 429) {
          expectSchema(ex, 'synthesize/error-body.json')
          return
        }
        // Only the 429's body is this check's: a burst call that fails is a set-up failure, judged elsewhere.
        expectSetup(ex, '2xx', 'a tier-0 synthesis call of the burst')
      }
      skipTest('no 429 within 8 calls with the tier-0 key')
    },
  )
})
