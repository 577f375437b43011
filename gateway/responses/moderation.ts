/**
 * Inline moderation of a response (Part 1 §2.7, §4.5 moderation {model}; Part 2 §2.4, §4.7): one result for the
 * input and one for the output, each with flagged, categories and scores. The simulated classifier flags a
 * text that names violence and scores everything else low, deterministically from the text.
 */
import { createHash } from 'node:crypto'
import { findModel } from '../catalogue.ts'
import { invalidParameter } from '../errors.ts'
import type { FaultSet } from '../faults.ts'

/** Part 2 §2.4: the thirteen categories. */
export const MODERATION_CATEGORIES = [
  'sexual', 'sexual/minors', 'hate', 'hate/threatening', 'harassment', 'harassment/threatening', 'illicit',
  'illicit/violent', 'self-harm', 'self-harm/intent', 'self-harm/instructions', 'violence', 'violence/graphic',
] as const

const VIOLENT = /\b(kill|attack|bomb|shoot)\w*/i

/** The moderation object must name a moderation model of the catalogue. */
export function checkModerationModel(id: string): void {
  const model = findModel(id)
  if (!model || model.mode !== 'moderation') throw invalidParameter('moderation', `moderation.model '${id}' is not a moderation model`)
}

function classify(text: string, model: string): Record<string, unknown> {
  const hash = createHash('sha256').update(text).digest()
  const violent = VIOLENT.test(text)
  const scores = Object.fromEntries(MODERATION_CATEGORIES.map((category, i) => {
    const base = (hash[i] as number) / 255 / 100 // below 0.01: nothing to flag
    return [category, category === 'violence' && violent ? 0.92 : base]
  }))
  const categories = Object.fromEntries(MODERATION_CATEGORIES.map((category) => [category, (scores[category] as number) >= 0.5]))
  return { model, flagged: Object.values(categories).some(Boolean), categories, category_scores: scores }
}

export function inlineModeration(model: string, text: { input: string; output: string }, faults: FaultSet): Record<string, unknown> {
  return {
    model,
    input: classify(text.input, model),
    ...(faults.has('moderation-output-missing') ? {} : { output: classify(text.output, model) }),
  }
}
