/** Faults of moderation (Part 2 §2.4, §4.7, §7). See ../faults.ts for what a fault is. */
import { isObject } from '../../common/json.ts'
import { IMAGE_CATEGORIES } from '../moderation/categories.ts'
import { eachListed, onRoutes, type AnswerReshapes } from './answers.ts'
import type { FaultDefinition } from './definition.ts'
import { eachEvent, type EventReshapes } from './events.ts'

export const MODERATION_FAULTS = [
  {
    name: 'moderation-id-missing',
    breaks: ['P2-2.4-result-shape'],
    description: 'POST /v1/moderations answers without id.',
  },
  {
    name: 'moderation-category-missing',
    breaks: ['P2-2.4-categories'],
    description:
      'Moderation results lack illicit/violent in categories, category_scores and category_applied_input_types.',
  },
  {
    name: 'moderation-score-percent',
    breaks: ['P2-2.4-score-range'],
    description: 'category_scores are percentages (0 to 100) instead of numbers from 0 to 1.',
  },
  {
    name: 'moderation-image-applies-everywhere',
    breaks: ['P2-2.4-applied-input-types'],
    description: 'For an input with an image, category_applied_input_types lists image under all thirteen categories.',
  },
  {
    name: 'moderation-image-not-applied',
    breaks: ['P2-2.4-image-applies'],
    description: 'For an input with an image, category_applied_input_types lists image under no category.',
  },
  {
    name: 'moderation-text-not-applied',
    breaks: ['P2-2.4-applied-text'],
    description: 'After a text-only input, category_applied_input_types lists no input type under any category.',
  },
  {
    name: 'moderation-one-result-for-array',
    breaks: ['P2-4.7-input-forms'],
    description: 'An array of strings gets one result (for its first string) instead of one per input.',
  },
  {
    name: 'moderation-text-items-refused',
    breaks: ['P2-4.7-input-forms'],
    description: 'An array of content items that are all {type text} is refused with 400 (an image item is required).',
  },
  {
    name: 'moderation-stable-refused',
    breaks: ['P2-4.7-named-models'],
    description: 'text-moderation-stable is refused with 400.',
  },
  {
    name: 'moderation-model-required',
    breaks: ['P2-4.7-model-optional'],
    description: 'A moderation request without model is refused with 400.',
  },
  {
    name: 'moderation-guard-refused',
    breaks: ['P2-4.7-guard-model'],
    description: 'The hosted guard model is listed but refused with 400.',
  },
  {
    name: 'moderation-image-refused',
    breaks: ['P2-4.7-input-forms'],
    description: 'The omni models refuse image input with 400, as the text models do.',
  },
  {
    name: 'moderation-image-refused-dated',
    breaks: ['P2-4.7-image-omni'],
    description: 'omni-moderation-2024-09-26 refuses image input with 400; omni-moderation-latest takes it.',
  },
  {
    name: 'moderation-named-model-charged',
    breaks: ['P2-4.7-named-models-no-charge'],
    description: 'Each call to one of the four named (free) moderation models is charged $0.001.',
  },
  {
    name: 'moderation-missing-input-served',
    breaks: ['P2-7-moderation-400'],
    description: 'A moderation request without input answers 200 with no results instead of 400.',
  },
  {
    name: 'moderation-key-optional',
    breaks: ['P2-7-moderation-401'],
    description: 'POST /v1/moderations serves calls without a key (or with an unknown one) as the main account.',
  },
  {
    name: 'moderation-unknown-model-defaulted',
    breaks: ['P2-4.7-unknown-model'],
    description: 'A moderation request naming a model that does not exist is served by omni-moderation-latest.',
  },
  {
    name: 'moderation-429-usage-body',
    breaks: ['P2-7-moderation-429'],
    description:
      "The moderation model's 429 has the /user/v1 body ({error: rate_limit_exceeded, message}) instead of the compatible error object.",
  },
  {
    name: 'moderation-inline-flagged-string',
    breaks: ['P2-4.7-inline-result-type'],
    description: 'Inline moderation results on chat completions give flagged as the string "true" or "false".',
  },
  // SHOULD requirements: a run with these warns and still exits 0.
  {
    name: 'moderation-input-type-unchecked',
    breaks: ['P2-7-moderation-input-type-refused'],
    description: 'An input that is a number or an object is moderated as its JSON text instead of refused.',
  },
  {
    name: 'moderation-image-any-model',
    breaks: ['P2-4.7-image-text-model-refused'],
    description: 'The text-only moderation models accept image input and answer scores.',
  },
] as const satisfies readonly FaultDefinition[]

const MODERATE = 'POST /v1/moderations'

type CategoryMap = Record<string, unknown>
type Result = Record<string, unknown>

/** Each result of /v1/moderations (inline results on responses and chat completions keep their shape). */
function eachResult(reshape: (result: Result) => Result) {
  return eachListed(MODERATE, reshape, 'results')
}

/** The result with each of its three category maps passed through `reshape`, or only the one named. */
function categoryMaps(result: Result, reshape: (map: CategoryMap) => CategoryMap, only?: string): Result {
  const out = { ...result }
  for (const name of only === undefined ? ['categories', 'category_scores', 'category_applied_input_types'] : [only]) {
    const map = out[name]
    if (isObject(map)) out[name] = reshape(map)
  }
  return out
}

function mapValues(map: CategoryMap, change: (value: unknown, category: string) => unknown): CategoryMap {
  return Object.fromEntries(Object.entries(map).map(([category, value]) => [category, change(value, category)]))
}

const types = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

/** The moderation faults that only reshape an answer (./answers.ts); the others bend what is accepted or charged. */
export const MODERATION_ANSWER_RESHAPES: AnswerReshapes = {
  'moderation-category-missing': eachResult((result) =>
    categoryMaps(result, (map) =>
      Object.fromEntries(Object.entries(map).filter(([category]) => category !== 'illicit/violent')),
    ),
  ),
  'moderation-score-percent': eachResult((result) =>
    categoryMaps(
      result,
      (scores) => mapValues(scores, (score) => Math.round(Number(score) * 10_000) / 100),
      'category_scores',
    ),
  ),
  // Only where the input had an image, which the image categories' applied types show.
  'moderation-image-applies-everywhere': eachResult((result) => {
    const applied = result.category_applied_input_types
    const hasImage = isObject(applied) && Object.values(applied).some((value) => types(value).includes('image'))
    if (!hasImage) return result
    return categoryMaps(
      result,
      (map) =>
        mapValues(map, (value, category) =>
          (IMAGE_CATEGORIES as ReadonlySet<string>).has(category) ? value : [...types(value), 'image'],
        ),
      'category_applied_input_types',
    )
  }),
  'moderation-image-not-applied': eachResult((result) =>
    categoryMaps(
      result,
      (map) => mapValues(map, (value) => types(value).filter((type) => type !== 'image')),
      'category_applied_input_types',
    ),
  ),
  // Only where the input was text alone (no category lists image), so that the image checks are untouched.
  'moderation-text-not-applied': eachResult((result) => {
    const applied = result.category_applied_input_types
    if (isObject(applied) && Object.values(applied).some((value) => types(value).includes('image'))) return result
    return categoryMaps(result, (map) => mapValues(map, () => []), 'category_applied_input_types')
  }),
  'moderation-id-missing': onRoutes([MODERATE], ({ id: _id, ...answer }) => answer),
  'moderation-one-result-for-array': onRoutes([MODERATE], (answer) =>
    Array.isArray(answer.results) ? { ...answer, results: answer.results.slice(0, 1) } : answer,
  ),
}

/** Inline results whose flagged is given as a string; an error object, which has no flagged, is left alone. */
function flaggedAsString(body: Record<string, unknown>): Record<string, unknown> {
  const moderation = body.moderation
  if (!isObject(moderation)) return body
  const side = (result: unknown): unknown =>
    isObject(result) && typeof result.flagged === 'boolean' ? { ...result, flagged: String(result.flagged) } : result
  return { ...body, moderation: { ...moderation, input: side(moderation.input), output: side(moderation.output) } }
}

/** The inline moderation faults, which only reshape a chat completion's answer: the chat routes apply them. */
export const MODERATION_INLINE_ANSWER_RESHAPES: AnswerReshapes = {
  'moderation-inline-flagged-string': onRoutes(['POST /v1/chat/completions'], flaggedAsString),
}

/** The same, on the chunk of a chat completion's stream that carries the inline results. */
export const MODERATION_INLINE_STREAM_RESHAPES: EventReshapes = {
  'moderation-inline-flagged-string': eachEvent((event) => ({ ...event, data: flaggedAsString(event.data) })),
}
