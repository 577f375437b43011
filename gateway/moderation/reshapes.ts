/** The moderation faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { isObject } from '../../common/json.ts'
import { IMAGE_CATEGORIES } from './categories.ts'
import { eachListed, onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import { eachEvent, type EventReshapes } from '../faults/events.ts'
import type { ModerationFault } from './faults.ts'

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

/**
 * The moderation faults that only reshape an answer (../faults/answers.ts); the others bend what is accepted or
 * charged.
 */
export const MODERATION_ANSWER_RESHAPES: AnswerReshapes<ModerationFault> = {
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
export const MODERATION_INLINE_ANSWER_RESHAPES: AnswerReshapes<ModerationFault> = {
  'moderation-inline-flagged-string': onRoutes(['POST /v1/chat/completions'], flaggedAsString),
}

/** The same, on the chunk of a chat completion's stream that carries the inline results. */
export const MODERATION_INLINE_STREAM_RESHAPES: EventReshapes<ModerationFault> = {
  'moderation-inline-flagged-string': eachEvent((event) => ({ ...event, data: flaggedAsString(event.data) })),
}
