/**
 * A local estimate of the input tokens of a responses request (Part 1 §4.6): where the token-counting route is
 * unavailable, a caller takes a lower bound from the text and reserves headroom for what the text does not show
 * (roles, tools, schemas, images, files), then reconciles with the usage object and the usage endpoints.
 *
 * The method, chosen to hold for any tokenizer rather than to be close for one:
 * - lower bound: the whitespace-separated chunks of every text the model reads (instructions, message text,
 *   tool-call traffic). Tokenizers in use split text into pieces before merging (pre-tokenization) and never
 *   merge two words across the whitespace between them, so each chunk is at least one token.
 * - headroom: per message (role markers, separators), a fixed frame, and per tool and schema their JSON at one
 *   token per byte; images and files get fixed reservations, since their cost depends on the model.
 * - ceiling: the text at one token per UTF-8 byte plus the headroom. Byte-level tokenizers cover at least one
 *   byte per token, so no tokenizer of that kind counts more.
 *
 * `estimate` (lower bound plus headroom) is what a preflight would reserve; the ceiling is only for checking.
 * Hidden reasoning is output, not input (§2.5): a preflight reserves it from max_output_tokens, not here.
 */
import { isObject } from '../common/json.ts'

export const ESTIMATE_HEADROOM = {
  frame: 16, // tokens a prompt spends on its frame whatever it holds
  perMessage: 8, // role marker and separators of each message
  perTool: 16, // wrapping of each tool definition, on top of its JSON
  perImage: 1_600, // a generous reservation for one image at high detail
  perFile: 8_192, // a file's text is unknown before the service reads it
}

interface InputEstimate {
  lowerBound: number
  headroom: number
  /** lowerBound + headroom: what a preflight reserves. */
  estimate: number
  /** No byte-level tokenizer counts more than this. */
  ceiling: number
  /** What the estimate was made of, for reports. */
  parts: {
    words: number
    textBytes: number
    messages: number
    tools: number
    schemaBytes: number
    images: number
    files: number
  }
}

export function wordChunks(text: string): number {
  return text.match(/\S+/gu)?.length ?? 0
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

interface Collected {
  texts: string[]
  messages: number
  images: number
  files: number
}

function collectContent(content: unknown, into: Collected): void {
  if (typeof content === 'string') {
    into.texts.push(content)
    return
  }
  if (!Array.isArray(content)) return
  for (const part of content) {
    if (!isObject(part)) continue
    if (typeof part.text === 'string') into.texts.push(part.text)
    else if (part.type === 'input_image') into.images += 1
    else if (part.type === 'input_file') into.files += 1
  }
}

function collectInput(input: unknown, into: Collected): void {
  if (typeof input === 'string') {
    into.messages += 1
    into.texts.push(input)
    return
  }
  if (!Array.isArray(input)) return
  for (const item of input) {
    if (!isObject(item)) continue
    into.messages += 1
    if (item.type === 'function_call' && typeof item.arguments === 'string') into.texts.push(item.arguments)
    else if (item.type === 'function_call_output' && typeof item.output === 'string') into.texts.push(item.output)
    else collectContent(item.content, into)
  }
}

/** Estimates the input tokens of a POST /v1/responses body (the prior chain of previous_response_id is not seen). */
export function estimateInputTokens(body: Record<string, unknown>): InputEstimate {
  const collected: Collected = { texts: [], messages: 0, images: 0, files: 0 }
  if (typeof body.instructions === 'string') {
    collected.messages += 1
    collected.texts.push(body.instructions)
  }
  collectInput(body.input, collected)
  const tools = Array.isArray(body.tools) ? body.tools : []
  const format = isObject(body.text) && isObject(body.text.format) ? body.text.format : undefined
  const schemaBytes = format && isObject(format.schema) ? bytes(JSON.stringify(format.schema)) : 0
  const toolBytes = tools.reduce((sum: number, tool) => sum + bytes(JSON.stringify(tool)), 0)
  const h = ESTIMATE_HEADROOM
  const headroom =
    h.frame +
    h.perMessage * collected.messages +
    h.perTool * tools.length +
    toolBytes +
    schemaBytes +
    h.perImage * collected.images +
    h.perFile * collected.files
  const words = collected.texts.reduce((sum, text) => sum + wordChunks(text), 0)
  const textBytes = collected.texts.reduce((sum, text) => sum + bytes(text), 0)
  return {
    lowerBound: words,
    headroom,
    estimate: words + headroom,
    ceiling: textBytes + headroom,
    parts: {
      words,
      textBytes,
      messages: collected.messages,
      tools: tools.length,
      schemaBytes,
      images: collected.images,
      files: collected.files,
    },
  }
}
