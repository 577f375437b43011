/**
 * Inline moderation of a response (Part 1 §2.7, §4.5 moderation {model}; Part 2 §2.4, §4.7): one result for the
 * input and one for the output, each a §2.4 result from the shared simulated classifier (../moderation/), or an
 * error object when the moderation model cannot moderate that side (an image for a text-only model). Placement
 * and the error case are described in ../moderation/inline.ts.
 */
import { findModel } from '../models/catalogue.ts'
import { invalidParameter } from '../errors.ts'
import { classify } from '../moderation/classifier.ts'
import { imageNotModerated, moderatesImages } from '../moderation/inline.ts'

export { MODERATION_CATEGORIES } from '../moderation/categories.ts'

/** The moderation object must name a moderation model of the catalogue. */
export function checkModerationModel(id: string): void {
  const model = findModel(id)
  if (model?.mode !== 'moderation')
    throw invalidParameter('moderation', `moderation.model '${id}' is not a moderation model`)
}

function result(text: string, model: string): Record<string, unknown> {
  return { model, ...classify({ texts: [text], images: [] }) }
}

/** `inputImages`: the input's image URLs; a text-only moderation model answers an error for that side. */
export function inlineModeration(
  model: string,
  text: { input: string; output: string },
  inputImages: readonly string[] = [],
): Record<string, unknown> {
  const input =
    inputImages.length === 0
      ? result(text.input, model)
      : moderatesImages(model)
        ? { model, ...classify({ texts: [text.input], images: [...inputImages] }) }
        : imageNotModerated(model)
  return {
    model,
    input,
    output: result(text.output, model),
  }
}
