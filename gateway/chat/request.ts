/**
 * Reading a chat completion request (Part 1 section 4.7). The reference names what the endpoint accepts but
 * not the full parameter list; this gateway reads the fields of the widely used convention and refuses with
 * 400 what it cannot serve, naming the parameter. Unknown fields are ignored (section 9.2).
 *
 * The first system or developer message is the call's instructions (section 4.7: "equivalent to
 * instructions"); every other message is the conversation, flattened oldest first, as the simulated models
 * read it. Instructions and conversation both count as prompt tokens.
 */
import type { CatalogueModel } from '../models/catalogue.ts'
import { invalidParameter } from '../errors.ts'
import { isObject } from '../../common/json.ts'

export const CHAT_LIMITS = {
  maxTools: 128, // the widely used convention's cap, the same as the planned assistants' (section 4.9)
  toolName: /^[A-Za-z0-9_-]{1,64}$/,
  imageTokens: 85, // what an image part costs in prompt tokens; the reference gives no figure
  fileTokens: 120,
  audioTokens: 50, // an input_audio part, likewise
}

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const
type Role = (typeof ROLES)[number]

export interface ChatTool {
  name: string
  parameters: unknown
}

export type ToolChoice = { kind: 'none' | 'auto' | 'required' } | { kind: 'function'; name: string }

export interface ChatRequest {
  instructions: string | undefined
  /** The conversation without the instructions, flattened to text. */
  input: string
  /** Text of the last user message: what `auto` tool choice reads. */
  lastUserText: string
  /** True when the last message is a tool result: the model then answers in text. */
  afterToolResult: boolean
  /** Prompt tokens of image and file parts, which have no text to count. */
  extraInputTokens: number
  maxCompletionTokens: number | undefined
  temperature: number | undefined
  stream: boolean
  includeUsage: boolean
  tools: ChatTool[]
  toolChoice: ToolChoice
  /** response_format: plain text (undefined), any JSON object, or a value of the sent JSON Schema. */
  jsonOutput: { kind: 'object' } | { kind: 'schema'; schema: Record<string, unknown> } | undefined
  moderationModel: string | undefined
  safetyIdentifier: string | undefined
  /** modalities with audio: the answer carries message.audio in this format. */
  audioOut?: { voice: string; format: string }
}

export function parseChatRequest(
  body: Record<string, unknown>,
  model: CatalogueModel,
  options: { emptyMessagesAllowed?: boolean; takesAudio?: boolean; answersAudio?: boolean } = {},
): ChatRequest {
  const audio = options.takesAudio === true
  const audioOut = options.answersAudio === true
  const messages = body.messages
  // An array where given, as the validator judged; required by the convention, not by the schema.
  if (!Array.isArray(messages))
    throw invalidParameter('messages', 'messages is required: an array of { role, content } items.')
  if (messages.length === 0 && !options.emptyMessagesAllowed)
    throw invalidParameter('messages', 'messages must hold at least one message.')

  let instructions: string | undefined
  const lines: string[] = []
  let lastUserText = ''
  let extraInputTokens = 0
  // Each message is an object, as the validator judged.
  messages.forEach((message, i) => {
    const param = `messages[${i}]`
    const role = message.role
    if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
      throw invalidParameter(`${param}.role`, `${param}.role must be one of ${ROLES.join(', ')}.`)
    }
    // Section 4.7: an assistant message may carry the audio of an earlier answer (message.audio) instead of text.
    const priorAudio =
      role === 'assistant' && audioOut && isObject(message.audio) && typeof message.audio.id === 'string'
    const content = readContent(
      message.content,
      `${param}.content`,
      role as Role,
      message.tool_calls !== undefined || priorAudio,
      { model, audio },
    )
    extraInputTokens += content.extraTokens
    if (role === 'tool' && typeof message.tool_call_id !== 'string') {
      throw invalidParameter(`${param}.tool_call_id`, `${param}.tool_call_id is required on a tool message.`)
    }
    if ((role === 'system' || role === 'developer') && instructions === undefined) instructions = content.text
    else lines.push(content.text)
    if (role === 'user') lastUserText = content.text
  })

  const last = messages[messages.length - 1] as Record<string, unknown> | undefined
  const tools = readTools(body.tools)
  return {
    instructions,
    input: lines.filter(Boolean).join('\n'),
    lastUserText,
    afterToolResult: last?.role === 'tool',
    extraInputTokens,
    maxCompletionTokens: readMaxTokens(body, model),
    temperature: readNumber(body, 'temperature', 0, 2),
    ...readStream(body),
    tools,
    toolChoice: readToolChoice(body.tool_choice, tools),
    jsonOutput: readJsonOutput(body.response_format),
    moderationModel: readModeration(body.moderation),
    safetyIdentifier: typeof body.safety_identifier === 'string' ? body.safety_identifier : undefined,
    ...readAudio(body, model, audioOut),
  }
}

function readContent(
  content: unknown,
  param: string,
  role: Role,
  withoutText: boolean,
  { model, audio }: { model: CatalogueModel; audio: boolean },
): { text: string; extraTokens: number } {
  if (typeof content === 'string') return { text: content, extraTokens: 0 }
  if ((content === null || content === undefined) && role === 'assistant' && withoutText)
    return { text: '', extraTokens: 0 }
  if (!Array.isArray(content)) throw invalidParameter(param, `${param} must be a string or an array of content parts.`)
  const texts: string[] = []
  let extraTokens = 0
  content.forEach((part, j) => {
    const where = `${param}[${j}]`
    const type = isObject(part) ? part.type : undefined
    if (type === 'text' && isObject(part) && typeof part.text === 'string') texts.push(part.text)
    else if (type === 'refusal' && role === 'assistant' && isObject(part) && typeof part.refusal === 'string')
      texts.push(part.refusal)
    else if (type === 'image_url') {
      if (model.supports.supports_vision !== true)
        throw invalidParameter(where, `The model '${model.id}' does not take image input.`)
      extraTokens += CHAT_LIMITS.imageTokens
    } else if (type === 'file') {
      if (model.supports.supports_pdf_input !== true)
        throw invalidParameter(where, `The model '${model.id}' does not take file input.`)
      extraTokens += CHAT_LIMITS.fileTokens
    } else if (type === 'input_audio') {
      if (!audio) throw invalidParameter(where, `The model '${model.id}' does not take audio input.`)
      const input = isObject(part) ? part.input_audio : undefined
      if (!isObject(input) || typeof input.data !== 'string' || typeof input.format !== 'string')
        throw invalidParameter(`${where}.input_audio`, `${where}.input_audio must be { data, format }.`)
      extraTokens += CHAT_LIMITS.audioTokens
    } else {
      throw invalidParameter(where, `${where} must be a content part: text, image_url, file or input_audio.`)
    }
  })
  return { text: texts.join('\n'), extraTokens }
}

function readMaxTokens(body: Record<string, unknown>, model: CatalogueModel): number | undefined {
  // max_tokens is the convention's older name; max_completion_tokens wins when both are sent.
  const name =
    body.max_completion_tokens !== undefined && body.max_completion_tokens !== null
      ? 'max_completion_tokens'
      : 'max_tokens'
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > model.maxOutputTokens) {
    throw invalidParameter(name, `${name} must be an integer from 1 to ${model.maxOutputTokens} for '${model.id}'.`)
  }
  return value as number
}

function readNumber(body: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw invalidParameter(name, `${name} must be a number from ${min} to ${max}.`)
  return value
}

function readStream(body: Record<string, unknown>): { stream: boolean; includeUsage: boolean } {
  const stream = body.stream ?? false
  if (typeof stream !== 'boolean') throw invalidParameter('stream', 'stream must be a boolean.')
  const options = body.stream_options
  if (options === undefined || options === null) return { stream, includeUsage: false }
  if (!stream) throw invalidParameter('stream_options', 'stream_options is only allowed with stream true.')
  if (!isObject(options)) throw invalidParameter('stream_options', 'stream_options must be an object.')
  return { stream, includeUsage: options.include_usage === true }
}

function readTools(tools: unknown): ChatTool[] {
  if (tools === undefined || tools === null) return []
  // An array: the validator judged that; the cap is the convention's.
  if ((tools as unknown[]).length > CHAT_LIMITS.maxTools)
    throw invalidParameter('tools', `tools must be an array of at most ${CHAT_LIMITS.maxTools} function tools.`)
  return (tools as unknown[]).map((tool, i) => {
    const fn = isObject(tool) && tool.type === 'function' && isObject(tool.function) ? tool.function : undefined
    if (!fn || typeof fn.name !== 'string' || !CHAT_LIMITS.toolName.test(fn.name)) {
      throw invalidParameter(
        `tools[${i}]`,
        `tools[${i}] must be { type: "function", function: { name, description?, parameters? } } with a name of 1 to 64 letters, digits, _ or -.`,
      )
    }
    if (fn.parameters !== undefined && !isObject(fn.parameters))
      throw invalidParameter(`tools[${i}].function.parameters`, 'parameters must be a JSON Schema object.')
    return { name: fn.name, parameters: fn.parameters }
  })
}

function readToolChoice(choice: unknown, tools: readonly ChatTool[]): ToolChoice {
  if (choice === undefined || choice === null) return { kind: tools.length > 0 ? 'auto' : 'none' }
  if (tools.length === 0) throw invalidParameter('tool_choice', 'tool_choice is only allowed with tools.')
  if (choice === 'none' || choice === 'auto' || choice === 'required') return { kind: choice }
  const name =
    isObject(choice) && choice.type === 'function' && isObject(choice.function) ? choice.function.name : undefined
  if (typeof name !== 'string' || !tools.some((tool) => tool.name === name)) {
    throw invalidParameter(
      'tool_choice',
      'tool_choice must be none, auto, required or { type: "function", function: { name } } naming one of the tools.',
    )
  }
  return { kind: 'function', name }
}

function readJsonOutput(format: unknown): ChatRequest['jsonOutput'] {
  if (format === undefined || format === null) return undefined
  const type = isObject(format) ? format.type : undefined
  if (type === 'text') return undefined
  if (type === 'json_object') return { kind: 'object' }
  if (type === 'json_schema') {
    const spec = isObject(format) ? format.json_schema : undefined
    if (!isObject(spec) || (spec.schema !== undefined && !isObject(spec.schema)))
      throw invalidParameter(
        'response_format.json_schema',
        'response_format.json_schema must be an object { name, schema, strict? } whose schema is a JSON Schema object.',
      )
    return isObject(spec.schema) ? { kind: 'schema', schema: spec.schema } : { kind: 'object' }
  }
  throw invalidParameter('response_format', 'response_format.type must be text, json_object or json_schema.')
}

function readModeration(moderation: unknown): string | undefined {
  if (moderation === undefined || moderation === null) return undefined
  // Part 2 section 4.7: inline moderation is the object { model } (an object, as the validator judged); model is not
  // required by the schema, but there is nothing to run without it.
  const { model } = moderation as Record<string, unknown>
  if (typeof model !== 'string')
    throw invalidParameter('moderation', 'moderation must be { model }, naming a moderation model.')
  return model
}

/** Audio output needs an audio model and the audio object of the convention; it is refused, never ignored, elsewhere. */
function readAudio(
  body: Record<string, unknown>,
  model: CatalogueModel,
  audio: boolean,
): Pick<ChatRequest, 'audioOut'> {
  const modalities = body.modalities
  if (modalities === undefined || modalities === null) return {}
  if (!Array.isArray(modalities) || !modalities.every((m) => m === 'text' || m === 'audio')) {
    throw invalidParameter('modalities', 'modalities must be an array of "text" and "audio".')
  }
  if (!modalities.includes('audio')) return {}
  if (!audio) throw invalidParameter('modalities', `The model '${model.id}' does not answer in audio.`)
  const out = body.audio
  if (!isObject(out) || typeof out.voice !== 'string' || typeof out.format !== 'string')
    throw invalidParameter('audio', 'audio must be { voice, format } when modalities holds audio.')
  return { audioOut: { voice: out.voice, format: out.format } }
}
