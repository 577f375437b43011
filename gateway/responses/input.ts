/**
 * The input of POST /v1/responses (Part 1 §4.5): a string, or an array of items (messages with text, image or
 * file parts, and replayed tool calls and their outputs). Normalised once, then read as text for the simulated
 * model and listed by GET /v1/responses/{id}/input_items.
 */
import { randomBytes } from 'node:crypto'
import { invalidParameter } from '../errors.ts'
import type { ResponseRules } from './rules.ts'
import { isObject } from '../../common/json.ts'

export type Role = 'user' | 'assistant' | 'system' | 'developer'

export type Part =
  | { type: 'input_text' | 'output_text'; text: string }
  | { type: 'input_image'; source: string }
  | { type: 'input_file'; source: string }

export type InputItem =
  | { type: 'message'; role: Role; parts: Part[] }
  | { type: 'function_call'; callId: string; name: string; arguments: string }
  | { type: 'function_call_output'; callId: string; output: string }
  | { type: 'reasoning' }

/** What the simulated model charges for a part it cannot read as text; the reference does not say. */
export const MEDIA_TOKENS = { image: 85, file: 256 } as const

const ROLES = new Set<string>(['user', 'assistant', 'system', 'developer'])

export function normalizeInput(
  raw: unknown,
  rules: Pick<ResponseRules, 'oneFileSource' | 'refusedFileSources'>,
): InputItem[] {
  if (typeof raw === 'string') return [{ type: 'message', role: 'user', parts: [{ type: 'input_text', text: raw }] }]
  // Else an array: the validator judged input's type.
  return (raw as unknown[]).map((item, i) => normalizeItem(item, `input[${i}]`, rules))
}

function normalizeItem(
  item: unknown,
  where: string,
  rules: Pick<ResponseRules, 'oneFileSource' | 'refusedFileSources'>,
): InputItem {
  if (!isObject(item)) throw invalidParameter('input', `${where} must be an object`)
  const type = item.type ?? 'message'
  if (type === 'message') {
    if (typeof item.role !== 'string' || !ROLES.has(item.role))
      throw invalidParameter('input', `${where}.role must be one of user, assistant, system, developer`)
    return { type: 'message', role: item.role as Role, parts: normalizeContent(item.content, where, rules) }
  }
  if (type === 'function_call') {
    if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string') {
      throw invalidParameter('input', `${where}: a function_call item needs call_id, name and arguments strings`)
    }
    return { type: 'function_call', callId: item.call_id, name: item.name, arguments: item.arguments }
  }
  if (type === 'function_call_output') {
    if (typeof item.call_id !== 'string' || typeof item.output !== 'string')
      throw invalidParameter('input', `${where}: a function_call_output item needs call_id and output strings`)
    return { type: 'function_call_output', callId: item.call_id, output: item.output }
  }
  // Reasoning items replayed statelessly (rule 3) carry nothing the simulated model reads.
  if (type === 'reasoning') return { type: 'reasoning' }
  throw invalidParameter('input', `${where}.type '${String(type)}' is not an input item type this gateway knows`)
}

function normalizeContent(
  content: unknown,
  where: string,
  rules: Pick<ResponseRules, 'oneFileSource' | 'refusedFileSources'>,
): Part[] {
  if (typeof content === 'string') return [{ type: 'input_text', text: content }]
  if (!Array.isArray(content)) throw invalidParameter('input', `${where}.content must be a string or an array of parts`)
  return content.map((part, j): Part => {
    const at = `${where}.content[${j}]`
    if (!isObject(part)) throw invalidParameter('input', `${at} must be an object`)
    if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string')
      return { type: part.type, text: part.text }
    if (part.type === 'input_image') {
      const source = part.image_url ?? part.file_id
      if (typeof source !== 'string') throw invalidParameter('input', `${at}: input_image needs image_url or file_id`)
      return { type: 'input_image', source }
    }
    if (part.type === 'input_file') {
      // Section 4.4: exactly one way to supply the data.
      const sources = ['file_id', 'file_url', 'file_data'].filter((key) => typeof part[key] === 'string')
      const allowed = rules.oneFileSource ? sources.length === 1 : sources.length >= 1
      const refused = sources.find((source) => rules.refusedFileSources.includes(source))
      if (refused !== undefined) throw invalidParameter('input', `${at}: input_file by ${refused} is not supported`)
      if (!allowed)
        throw invalidParameter('input', `${at}: input_file needs exactly one of file_id, file_url, file_data`)
      return { type: 'input_file', source: String(part[sources[0] as string]) }
    }
    throw invalidParameter('input', `${at} must be input_text, input_image or input_file`)
  })
}

/** The text the model reads, oldest first: message text and tool traffic, one item a line. */
export function inputText(items: readonly InputItem[]): string {
  const lines: string[] = []
  for (const item of items) {
    if (item.type === 'message') {
      for (const part of item.parts)
        if (part.type === 'input_text' || part.type === 'output_text') lines.push(part.text)
    } else if (item.type === 'function_call') {
      lines.push(item.arguments)
    } else if (item.type === 'function_call_output') {
      lines.push(item.output)
    }
  }
  return lines.join('\n')
}

/** Tokens charged for images and files, which the simulated model does not read. */
export function mediaTokens(items: readonly InputItem[]): number {
  let tokens = 0
  for (const item of items) {
    if (item.type !== 'message') continue
    for (const part of item.parts)
      tokens += part.type === 'input_image' ? MEDIA_TOKENS.image : part.type === 'input_file' ? MEDIA_TOKENS.file : 0
  }
  return tokens
}

/** The text of the newest user message: what decides whether `auto` calls a tool. */
export function latestUserText(items: readonly InputItem[]): string {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item = items[i] as InputItem
    if (item.type === 'function_call_output') return ''
    if (item.type === 'message' && item.role === 'user') return inputText([item])
  }
  return ''
}

/** True when the newest item answers a tool call: the model then replies in text instead of calling again. */
export function endsWithToolOutput(items: readonly InputItem[]): boolean {
  return items[items.length - 1]?.type === 'function_call_output'
}

/** The items as GET /v1/responses/{id}/input_items lists them (the convention; the shape is not shown). */
export function inputItemViews(items: readonly InputItem[]): Record<string, unknown>[] {
  const id = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`
  return items.flatMap((item): Record<string, unknown>[] => {
    if (item.type === 'message') {
      const content = item.parts.map((part) =>
        part.type === 'input_image'
          ? { type: 'input_image', image_url: part.source }
          : part.type === 'input_file'
            ? { type: 'input_file', file_id: part.source }
            : { type: part.type, text: part.text },
      )
      return [{ id: id('msg'), type: 'message', role: item.role, status: 'completed', content }]
    }
    if (item.type === 'function_call')
      return [
        {
          id: id('fc'),
          type: 'function_call',
          call_id: item.callId,
          name: item.name,
          arguments: item.arguments,
          status: 'completed',
        },
      ]
    if (item.type === 'function_call_output')
      return [{ id: id('fco'), type: 'function_call_output', call_id: item.callId, output: item.output }]
    return []
  })
}
