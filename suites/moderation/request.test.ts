/**
 * The request of POST /v1/moderations (Part 2 §4.7, §7): the input forms, the named models, the guard model,
 * the default model (recorded, not judged: not shown), images only with the omni models, and the error statuses.
 * The 400, 403 and 404 bodies are not shown (Part 1 §7), so only statuses are judged and bodies are recorded.
 */
import { describe } from 'vitest'
import {
  expectRefused,
  expectStatus,
  expectSuccess,
  expectThat,
  is2xx,
  precondition,
} from '../../harness/worker/assert.ts'
import { memo, randomSuffix } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { isClientError } from '../shared/status.ts'
import {
  BENIGN_TEXT,
  type ListedModel,
  moderateOrSkip,
  moderateWithinTier,
  catalogueFixture,
  moderate,
  NAMED_MODELS,
  needServed,
  OMNI_MODELS,
  PATH,
  resultsOf,
  servedFixture,
  spendOnGuard,
  moderateImage,
  textAndImage,
  TEXT_ITEMS,
  TEXT_MODELS,
} from './fixtures.ts'

const api = target()
const catalogue = catalogueFixture(api)
const served = servedFixture(api, catalogue)

function excerpt(ex: Exchange): string {
  return `${ex.status} ${ex.text.slice(0, 200)}`
}

/**
 * Content items with an image sent to each text-only model (and the listed guard model, at its price) that first
 * served a plain text: a model the target lacks or refuses to this key shows nothing of images, and is left out.
 */
const imageToTextModels = memo(async () => {
  const guard = (await catalogue()).guards[0]
  const models = [...TEXT_MODELS, ...(guard ? [guard.id] : [])]
  const answers: Array<{ model: string; ex: Exchange }> = []
  const unserved: string[] = []
  for (const model of models) {
    if (guard && model === guard.id) spendOnGuard(guard, BENIGN_TEXT)
    const text = await moderateWithinTier(api, catalogue, { model, input: BENIGN_TEXT })
    if (text.refused !== undefined || !is2xx(text.ex)) {
      unserved.push(text.refused ?? `${model} answered ${text.ex.status} to a plain text`)
      continue
    }
    if (guard && model === guard.id) spendOnGuard(guard, BENIGN_TEXT)
    // The image in the form the omni model took, so that a refusal is of the image, not of its form.
    const input = textAndImage((await omniItems()).form)
    const { ex, refused } = await moderateWithinTier(api, catalogue, { model, input })
    if (refused === undefined) answers.push({ model, ex })
    else unserved.push(refused)
  }
  if (unserved.length > 0) observe('moderation model not judged', unserved.join('; '))
  precondition(
    answers.length > 0,
    'P2-4.7-named-models',
    `no text-only moderation model served a plain text with the keys given (${unserved.join('; ')})`,
  )
  return answers
})

/** Content items holding a text and an image, sent to omni-moderation-latest: the input form that takes images. */
const omniItems = memo(() => moderateImage(api, catalogue, OMNI_MODELS[0]))

/** Each model answered with this key, leaving out (and recording) those above its tier; skips when none is left. */
async function withinTier(
  models: readonly string[],
  body: Record<string, unknown>,
): Promise<Array<{ model: string; ex: Exchange }>> {
  const answers: Array<{ model: string; ex: Exchange }> = []
  for (const model of models) {
    const { ex, refused } = await moderateWithinTier(api, catalogue, { model, ...body })
    if (refused === undefined) answers.push({ model, ex })
    else observe('moderation model not judged', refused)
  }
  if (answers.length === 0) skipTest(`none of ${models.join(', ')} is within the keys' tiers`)
  return answers
}

/** A keyed call without model (model is optional): the route is served when it answers anything but 404. */
const withoutModel = memo(() => moderate(api, { input: BENIGN_TEXT }))

/** A call with an unknown key: the key checks below presume keys are checked at all. */
const unknownKey = memo(() => moderate(api, { input: BENIGN_TEXT }, { key: 'invalid' }))

describe('input (Part 2 §4.7)', () => {
  check(
    'P2-4.7-input-forms',
    'a string gives one result, an array of three strings three, content items (text only; text and image) at least one',
    async () => {
      const {
        ex: single,
        refused: above,
        key,
      } = await moderateWithinTier(api, catalogue, {
        model: OMNI_MODELS[0],
        input: BENIGN_TEXT,
      })
      if (above !== undefined) skipTest(above)
      const spec = key === undefined ? {} : { key }
      expectThat(
        resultsOf(single).length === 1,
        'one result for a string input',
        `${resultsOf(single).length} results`,
        single,
      )
      const inputs = [BENIGN_TEXT, 'Please water the plants on Tuesday.', 'The train to the coast leaves at noon.']
      const several = await moderate(api, { model: OMNI_MODELS[0], input: inputs }, spec)
      expectThat(
        resultsOf(several).length === inputs.length,
        `${inputs.length} results for an array of ${inputs.length} strings (one per input)`,
        `${resultsOf(several).length} results`,
        several,
      )
      const textItems = await moderate(api, { model: OMNI_MODELS[0], input: TEXT_ITEMS }, spec)
      expectSuccess(textItems, `${OMNI_MODELS[0]} given content items {type text} only`)
      const texts = resultsOf(textItems).length
      expectThat(texts >= 1, 'at least one result for an array of text items', `${texts} results`, textItems)
      // Content items of both types go to the omni model: images only with the omni model (§4.7).
      const { ex: items, refused, form } = await omniItems()
      if (refused !== undefined) skipTest(refused)
      expectSuccess(
        items,
        `${OMNI_MODELS[0]} given content items {type text} and {type image_url}, by data or https URL`,
      )
      const count = resultsOf(items).length
      expectThat(count >= 1, 'at least one result for an array of content items', `${count} results`, items)
      observe(
        'moderation content items',
        `two text items: ${texts} result(s); a text and an image: ${count} result(s), the image taken by ${form}`,
      )
    },
  )

  check(
    'P2-4.7-audio-refused',
    'an audio content item is refused with a client error, also by the omni model',
    async () => {
      const spec = await needServed(served)
      const audio = {
        type: 'input_audio',
        input_audio: { data: Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVE').toString('base64'), format: 'wav' },
      }
      const input = [{ type: 'text', text: BENIGN_TEXT }, audio]
      const ex = await moderate(api, { model: OMNI_MODELS[0], input }, spec)
      expectRefused(ex, 'an audio item (the omni model takes text and images, not audio)')
    },
  )
})

describe('models (Part 2 §4.7)', () => {
  check('P2-4.7-named-models', 'each of the four named models moderates a text input', async () => {
    for (const { model, ex } of await withinTier(NAMED_MODELS, { input: BENIGN_TEXT })) {
      expectSuccess(ex, `${model} given a text`)
      expectThat(resultsOf(ex).length === 1, `one result from ${model}`, `${resultsOf(ex).length} results`, ex)
    }
  })

  check(
    'P2-4.7-model-optional',
    'a request without model is answered; the model the target picks is recorded',
    async () => {
      const ex = await withoutModel()
      expectSuccess(ex, 'model is optional')
      expectThat(resultsOf(ex).length === 1, 'one result', `${resultsOf(ex).length} results`, ex)
      const body = ex.json as Record<string, unknown>
      observe('moderation default model', `without model the result names ${JSON.stringify(body.model)}`)
    },
  )

  check('P2-4.7-guard-model', 'the hosted guard model of the model list moderates a text input', async () => {
    const { guards } = await catalogue()
    observe(
      'moderation models beyond the four named',
      guards.length === 0
        ? 'none listed'
        : guards.map((g) => `${g.id} (min_tier ${g.minTier}, pricing ${JSON.stringify(g.pricing)})`).join('; '),
    )
    if (guards.length === 0)
      skipTest('the model list has no moderation model beyond the four named ones: no hosted guard model to call')
    const guard = guards[0] as ListedModel
    spendOnGuard(guard, BENIGN_TEXT)
    const ex = await moderateOrSkip(api, catalogue, { model: guard.id, input: BENIGN_TEXT })
    expectSuccess(ex, `${guard.id} given a text`)
    expectThat(resultsOf(ex).length === 1, 'one result', `${resultsOf(ex).length} results`, ex)
  })

  check('P2-4.7-free-models', 'the named models, where listed with pricing, are priced at zero', async () => {
    const { all } = await catalogue()
    const listed = all.filter((m) => NAMED_MODELS.includes(m.id))
    observe(
      'named moderation models in GET /v1/models',
      listed.length === 0 ? 'none listed' : listed.map((m) => m.id).join(', '),
    )
    const priced = listed.filter((m) => m.pricing !== undefined)
    const notFree = priced.filter((m) =>
      Object.values(m.pricing as Record<string, unknown>).some((v) => typeof v === 'number' && v !== 0),
    )
    expectThat(
      notFree.length === 0,
      'pricing numbers all 0 for the free named models',
      notFree.map((m) => `${m.id}: ${JSON.stringify(m.pricing)}`),
    )
  })

  check('P2-4.7-unknown-model', 'a model id that is not a moderation model is refused, not served', async () => {
    const spec = await needServed(served)
    const { chat } = await catalogue()
    for (const model of [`gc-no-such-moderation-${randomSuffix()}`, ...(chat[0] ? [chat[0].id] : [])]) {
      const ex = await moderate(api, { model, input: BENIGN_TEXT }, spec)
      // 403 as well: a model the key may not use is refused as "no permission" before its mode is looked at.
      expectStatus(ex, [400, 403, 404], `${model} is not a moderation model`)
      observe('moderation refusal of a model', `${model}: ${excerpt(ex)}`)
    }
  })
})

describe('images only with the omni model (Part 2 §4.7)', () => {
  check('P2-4.7-image-omni', 'both omni models accept content items holding a text and an image', async () => {
    // An omni model that refuses every image is P2-4.7-input-forms's to report, once.
    const first = await omniItems()
    precondition(
      first.refused !== undefined || is2xx(first.ex),
      'P2-4.7-input-forms',
      `${OMNI_MODELS[0]} answered ${first.ex.status} to content items holding an image`,
    )
    let judged = 0
    for (const model of OMNI_MODELS) {
      const { ex, refused, form } =
        model === OMNI_MODELS[0] ? await omniItems() : await moderateImage(api, catalogue, model)
      if (refused !== undefined) {
        observe('moderation model not judged', refused)
        continue
      }
      expectSuccess(ex, `${model} given a text and an image, by data or https URL`)
      expectThat(resultsOf(ex).length >= 1, 'at least one result', 'no results', ex)
      observe('moderation of a text and an image', `${model}: ${resultsOf(ex).length} result(s), image by ${form}`)
      judged += 1
    }
    if (judged === 0) skipTest(`none of ${OMNI_MODELS.join(', ')} is within the keys' tiers`)
  })

  check('P2-4.7-image-text-model-refused', 'text-only models refuse an image with a client error', async () => {
    for (const { model, ex } of await imageToTextModels()) {
      expectRefused(ex, `an image sent to ${model} (images only with the omni model)`)
      observe('moderation refusal of an image', `${model}: ${excerpt(ex)}`)
    }
  })

  check('P2-7-image-refusal-400', 'the refusal of an image by a text-only model is 400', async () => {
    for (const { model, ex } of await imageToTextModels()) {
      precondition(
        isClientError(ex.status),
        'P2-4.7-image-text-model-refused',
        `${model} answered ${ex.status} to an image`,
      )
      expectStatus(ex, 400, `${model} given an image`)
    }
  })
})

describe('errors (Part 2 §7)', () => {
  check('P2-7-moderation-400', 'a request without input: 400', async () => {
    const spec = await needServed(served)
    const ex = await moderate(api, { model: OMNI_MODELS[0] }, spec)
    expectStatus(ex, 400, 'input is required')
    observe('moderation 400 body', `no input: ${ex.text.slice(0, 200)}`)
    const empty = await moderate(api, { model: OMNI_MODELS[0], input: [] }, spec)
    observe('moderation of an empty input array', excerpt(empty))
  })

  check(
    'P2-7-moderation-input-type-refused',
    'a number or an object as input is refused with a client error',
    async () => {
      const spec = await needServed(served)
      for (const input of [42, { text: BENIGN_TEXT }]) {
        const ex = await moderate(api, { model: OMNI_MODELS[0], input }, spec)
        expectRefused(ex, `input ${JSON.stringify(input)} (a string, an array or content items)`)
        observe('moderation refusal of an input type', `${JSON.stringify(input)}: ${excerpt(ex)}`)
      }
    },
  )

  check('P2-7-moderation-401', 'no key, or an unknown key: 401', async () => {
    // A keyless call needs no model (model is optional): only the route, missing when a keyed call without model
    // answers 404 as well; any other keyless answer, a 2xx above all, is judged.
    for (const [ex, what] of [
      [await moderate(api, { input: BENIGN_TEXT }, { key: null }), 'no key'],
      [await unknownKey(), 'an unknown key'],
    ] as const) {
      if (ex.status === 404 && (await withoutModel()).status === 404)
        precondition(
          false,
          'P2-4.7-model-optional',
          `POST ${PATH} answered 404 without a valid key and to a keyed call without model: the route is not served`,
        )
      expectStatus(ex, 401, what)
    }
  })

  check('P2-7-moderation-403', 'the key of a suspended account: 403', async () => {
    const unknown = await unknownKey()
    precondition(
      unknown.status === 401,
      'P2-7-moderation-401',
      `an unknown key was answered ${unknown.status}, so keys are not checked here`,
    )
    const ex = await moderate(api, { input: BENIGN_TEXT }, { key: 'suspended' })
    expectStatus(ex, 403)
    observe('moderation 403 body', ex.text.slice(0, 200))
  })
})
