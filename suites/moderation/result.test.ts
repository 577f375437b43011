/**
 * The moderation result (Part 2 §2.4): its shape, the thirteen categories (further ones recorded), scores from 0
 * to 1, and which input types each category was applied to (image only for the six categories that take images),
 * judged over the thirteen. Whether a clearly violent text is flagged, and in which category, is recorded, never
 * judged: the reference states no classifier.
 */
import { describe } from 'vitest'
import { expectSchema, expectSuccess, expectThat, fail, is2xx, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/worker/suite.ts'
import {
  BENIGN_TEXT,
  CATEGORIES,
  catalogueFixture,
  moderateOrSkip,
  IMAGE_CATEGORIES,
  mapOf,
  OMNI_MODELS,
  resultsOf,
  moderateImage,
  VIOLENT_TEXT,
} from './fixtures.ts'

const api = target()
const catalogue = catalogueFixture(api)

/** An answer of the omni model; every test reading it skips where the model is above the key's tier. */
function omni(input: unknown) {
  return moderateOrSkip(api, catalogue, { model: OMNI_MODELS[0], input })
}

/** Two text inputs, one benign and one clearly violent, so that scores are not all near zero. */
const textAnswer = memo(() => omni([BENIGN_TEXT, VIOLENT_TEXT]))
/** Content items with a text and an image, by data URL or, where that is not served, by https URL. */
const imageAnswer = memo(async () => {
  const { ex, refused } = await moderateImage(api, catalogue, OMNI_MODELS[0])
  if (refused !== undefined) skipTest(refused)
  return ex
})

/** The results of the image answer; skips when the omni model refused the image (P2-4.7-input-forms reports it). */
async function imageResults(): Promise<Record<string, unknown>[]> {
  const ex = await imageAnswer()
  precondition(
    is2xx(ex),
    'P2-4.7-input-forms',
    `${OMNI_MODELS[0]} answered ${ex.status} to content items with an image`,
  )
  return resultsOf(ex, 'a moderation answer whose results are judged')
}

/** The entries of a category map for the thirteen categories of §2.4; further ones are not judged. */
function thirteen(map: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(map).filter(([category]) => CATEGORIES.includes(category))
}

function trueCategories(result: Record<string, unknown>): string[] {
  const categories = isObject(result.categories) ? result.categories : {}
  return Object.keys(categories).filter((name) => categories[name] === true)
}

describe('the result shape (Part 2 §2.4)', () => {
  check(
    'P2-2.4-result-shape',
    'POST /v1/moderations answers id, model and results with flagged, categories, scores and applied input types',
    async () => {
      const ex = await textAnswer()
      expectSuccess(ex, `${OMNI_MODELS[0]} given two texts`)
      expectSchema(ex, 'moderation/moderation.json')
      const body = ex.json as Record<string, unknown>
      observe('moderation result model', `asked ${OMNI_MODELS[0]}, the result names ${JSON.stringify(body.model)}`)
      const [benign, violent] = body.results as Record<string, unknown>[]
      if (benign && violent)
        observe(
          'moderation of a clearly violent text',
          `flagged ${String(violent.flagged)} (${trueCategories(violent).join(', ') || 'no category'}); the benign text: flagged ${String(benign.flagged)}`,
        )
      const image = await imageAnswer()
      if (is2xx(image))
        expectSchema(image, 'moderation/moderation.json', image.json, 'the answer to content items with an image')
    },
  )

  check(
    'P2-2.4-categories',
    'categories, category_scores and category_applied_input_types each name at least the thirteen categories',
    async () => {
      const answers = [await textAnswer(), ...(is2xx(await imageAnswer()) ? [await imageAnswer()] : [])]
      for (const ex of answers) {
        const problems: string[] = []
        resultsOf(ex, 'a moderation answer whose results are judged').forEach((result, i) => {
          for (const name of ['categories', 'category_scores', 'category_applied_input_types'] as const) {
            const map = mapOf(result, name)
            const missing = CATEGORIES.filter((category) => !(category in map))
            const extra = Object.keys(map).filter((key) => !CATEGORIES.includes(key))
            if (missing.length > 0) problems.push(`/results/${i}/${name}: missing ${missing.join(', ')}`)
            // §9.2 lets new fields appear: a further category is recorded, not judged.
            if (extra.length > 0)
              observe('moderation categories beyond the thirteen of §2.4', `/results/${i}/${name}: ${extra.join(', ')}`)
          }
        })
        expectThat(
          problems.length === 0,
          `the thirteen categories of §2.4 (${CATEGORIES.join(', ')}) in every map`,
          problems,
          ex,
        )
      }
    },
  )

  check('P2-2.4-score-range', 'every category score is a number from 0 to 1', async () => {
    for (const ex of [await textAnswer(), ...(is2xx(await imageAnswer()) ? [await imageAnswer()] : [])]) {
      const problems: string[] = []
      resultsOf(ex, 'a moderation answer whose results are judged').forEach((result, i) => {
        const outcome = schemas().validate('moderation/scores.json', mapOf(result, 'category_scores'))
        problems.push(...outcome.errors.map((e) => `/results/${i}/category_scores${e.slice(1)}`))
      })
      expectThat(problems.length === 0, 'scores from 0 to 1', problems, ex)
    }
  })

  check('P2-2.4-flagged-consistent', 'flagged is true exactly when some category is true', async () => {
    const ex = await textAnswer()
    resultsOf(ex, 'a moderation answer whose results are judged').forEach((result, i) => {
      const any = trueCategories(result).length > 0
      expectThat(
        result.flagged === any,
        `/results/${i}/flagged ${any} (${any ? 'some' : 'no'} category is true)`,
        `flagged ${JSON.stringify(result.flagged)} with true categories: ${trueCategories(result).join(', ') || 'none'}`,
        ex,
      )
    })
  })
})

describe('input types per category (Part 2 §2.4)', () => {
  check('P2-2.4-applied-text', 'after a text-only input every category lists text and none image', async () => {
    const problems: string[] = []
    const text = await textAnswer()
    resultsOf(text, 'a moderation answer to a text input').forEach((result, i) => {
      for (const [category, types] of thirteen(mapOf(result, 'category_applied_input_types')))
        if (!Array.isArray(types) || !types.includes('text') || types.includes('image'))
          problems.push(`/results/${i}/category_applied_input_types/${category}: ${JSON.stringify(types)}`)
    })
    expectThat(
      problems.length === 0,
      'text, and no image, listed under every category after a text-only input',
      problems,
      text,
    )
  })

  check(
    'P2-2.4-applied-input-types',
    'image only under the six image categories, never under the seven text-only ones',
    async () => {
      const problems: string[] = []
      const text = await textAnswer()
      resultsOf(text, 'a moderation answer to a text input').forEach((result, i) => {
        for (const [category, types] of thirteen(mapOf(result, 'category_applied_input_types'))) {
          if (Array.isArray(types) && types.includes('image') && !IMAGE_CATEGORIES.has(category))
            problems.push(
              `/results/${i}/category_applied_input_types/${category}: ${JSON.stringify(types)}, but ${category} applies to text only`,
            )
        }
      })
      expectThat(problems.length === 0, 'no text-only category lists image', problems, text)
      const image = await imageAnswer()
      if (!is2xx(image)) return // the image half is P2-4.7-input-forms's to report
      resultsOf(image, 'a moderation answer to an input with an image').forEach((result, i) => {
        for (const [category, types] of thirteen(mapOf(result, 'category_applied_input_types'))) {
          if (Array.isArray(types) && types.includes('image') && !IMAGE_CATEGORIES.has(category))
            problems.push(
              `/results/${i}/category_applied_input_types/${category}: ${JSON.stringify(types)}, but ${category} applies to text only`,
            )
        }
      })
      expectThat(problems.length === 0, `image only under ${[...IMAGE_CATEGORIES].join(', ')}`, problems, image)
    },
  )

  check(
    'P2-2.4-image-applies',
    'after an input with an image, each of the six image categories lists image',
    async () => {
      const ex = await imageAnswer()
      const results = await imageResults()
      if (results.length === 0) fail('at least one result for content items with an image', 'no results', ex)
      const problems: string[] = []
      results.forEach((result, i) => {
        const applied = mapOf(result, 'category_applied_input_types')
        for (const category of IMAGE_CATEGORIES) {
          const types = applied[category]
          if (!Array.isArray(types) || !types.includes('image'))
            problems.push(`/results/${i}/category_applied_input_types/${category}: ${JSON.stringify(types)}`)
        }
      })
      expectThat(
        problems.length === 0,
        'image listed under sexual, self-harm, self-harm/intent, self-harm/instructions, violence and violence/graphic',
        problems,
        ex,
      )
    },
  )
})
