/**
 * Inline moderation (Part 1 §2.7, §4.5, §4.7; Part 2 §4.7): the request's moderation object {model} asks for
 * results covering input and output, and a result "can contain an error object instead of scores". Where the
 * results go is not shown in detail; this gateway puts them in a top-level `moderation` member, on a response
 * object (as §2.7 lists it) and on a chat completion alike:
 *
 *   moderation: { model, input: <result>, output: <result> }          (responses)
 *   moderation: { input: <result>, output: <result> }                 (chat completions)
 *
 * where a result is either a moderation result of §2.4 (flagged, categories, category_scores,
 * category_applied_input_types; chat completions keep only flagged) with the model's id, or
 * { model, error: { code, message } } when the moderation model could not moderate that side: here, when a
 * text-only moderation model is asked to moderate an input that holds an image (§4.7: images only with the omni
 * model), the input result is that error while the output is still moderated, and the call itself succeeds.
 * Tool names, descriptions and schemas are never moderated (§4.7): only the conversation's text is.
 */
import { findModel } from '../models/catalogue.ts'
import { isObject } from '../../common/json.ts'

export interface InlineError {
  model: string
  error: { code: string; message: string }
}

/** Whether the moderation model takes images (the omni models: supports_vision in the catalogue). */
export function moderatesImages(modelId: string): boolean {
  return findModel(modelId)?.supports.supports_vision === true
}

export function imageNotModerated(modelId: string): InlineError {
  return {
    model: modelId,
    error: {
      code: 'image_input_not_supported',
      message: `The moderation model '${modelId}' takes text only; the input holds an image, so it was not moderated.`,
    },
  }
}

/** Whether chat messages carry an image part ({type image_url}). */
export function messagesHaveImage(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false
  return messages.some(
    (message) =>
      isObject(message) &&
      Array.isArray(message.content) &&
      message.content.some((part) => isObject(part) && part.type === 'image_url'),
  )
}
