/**
 * The body of POST /v1/moderations (Part 2 §4.7): input as a string, an array of strings, or an array of
 * content items ({type text, text} and {type image_url, image_url {url}}); model optional.
 *
 * Where the reference is silent, this gateway follows the widely used convention: an array of strings is one
 * input per string (one result each, §2.4 "one per input"), while an array of content items is one input made of
 * those items (one result for the whole array, as a message with several parts is one message); an empty array,
 * an array mixing strings and items, or an item of another type (an audio part: "the omni model takes text and
 * images, not audio") is refused with 400. When model is omitted the gateway uses omni-moderation-latest (the
 * reference does not show the default).
 */
import { invalidParameter } from '../errors.ts'
import type { ModerationInput } from './classifier.ts'
import { isObject } from '../../common/json.ts'

export const DEFAULT_MODERATION_MODEL = 'omni-moderation-latest'

/** An image URL the gateway would fetch, or a Base64 data URL of an image. */
const IMAGE_URL = /^(https?:\/\/\S+|data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=]+)$/i

export interface ModerationRequest {
  /** The model id named, or undefined when omitted (or null). */
  model: string | undefined
  inputs: ModerationInput[]
  /** Whether a content item carries an image: only the omni models take one. */
  hasImage: boolean
}

export function parseModerationRequest(body: Record<string, unknown>): ModerationRequest {
  const model = body.model
  const inputs = readInput(body.input)
  return {
    model: typeof model === 'string' ? model : undefined,
    inputs,
    hasImage: inputs.some((input) => input.images.length > 0),
  }
}

/**
 * The validator has judged that input is given and of a listed form; the checks of the form stay for the fault that
 * lifts it (moderation-input-type-unchecked), which still refuses null and any item not listed.
 */
function readInput(input: unknown): ModerationInput[] {
  if (typeof input === 'string') return [{ texts: [input], images: [] }]
  if (!Array.isArray(input))
    throw invalidParameter('input', 'input must be a string, an array of strings, or an array of content items.')
  if (input.length === 0) throw invalidParameter('input', 'input must not be an empty array.')
  if (input.every((item) => typeof item === 'string'))
    return input.map((text: string) => ({ texts: [text], images: [] }))
  if (!input.every(isObject))
    throw invalidParameter('input', 'input must be all strings or all content items, not a mix.')
  const combined: ModerationInput = { texts: [], images: [] }
  input.forEach((item, i) => {
    readItem(item, `input[${i}]`, combined)
  })
  return [combined]
}

function readItem(item: Record<string, unknown>, where: string, into: ModerationInput): void {
  if (item.type === 'text') {
    if (typeof item.text !== 'string') throw invalidParameter(where, `${where}: a text item needs a text string.`)
    into.texts.push(item.text)
    return
  }
  if (item.type === 'image_url') {
    const url = isObject(item.image_url) ? item.image_url.url : undefined
    if (typeof url !== 'string' || !IMAGE_URL.test(url))
      throw invalidParameter(
        where,
        `${where}: an image_url item needs image_url.url, an http(s) URL or a Base64 image data URL.`,
      )
    into.images.push(url)
    return
  }
  throw invalidParameter(
    where,
    `${where}.type must be text or image_url; moderation takes text and images, not ${typeName(item.type)}.`,
  )
}

/** The type a caller sent, for a message: never String() of the value, which recurses through a deeply nested array. */
function typeName(type: unknown): string {
  if (typeof type === 'string') return type
  return type === null ? 'null' : Array.isArray(type) ? 'an array' : `a ${typeof type}`
}
