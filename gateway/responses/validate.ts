/**
 * The request body of POST /v1/responses (Part 1 §4.5, limits of §8.5), read into a typed request. What its request
 * schema states (types, required members, listed values) the validator has judged before (../request-validation.ts);
 * this reader keeps what a fault bends and what the schema cannot say. Every refusal is a 400 naming the parameter
 * (§7). Where the reference names a parameter without rules (top_p, max_output_tokens' minimum), the checks are the
 * usual ones, marked so. Unknown fields are ignored: new optional parameters may appear (§9.2).
 */
import { invalidParameter } from '../errors.ts'
import type { ResponseRules } from './rules.ts'
import { normalizeInput, type InputItem } from './input.ts'
import { isObject } from '../../common/json.ts'
import { RESPONSE_EDGES } from './limits.ts'

export interface FunctionTool {
  name: string
  description?: string
  parameters?: Record<string, unknown>
  strict: boolean
}

export type ToolChoice = { kind: 'auto' | 'none' | 'required' } | { kind: 'function'; name: string }

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean }

export interface CreateRequest {
  model: string
  input: InputItem[]
  instructions?: string
  maxOutputTokens?: number
  metadata: Record<string, string>
  /** Undefined: the default of 1, which is not deterministic. */
  temperature?: number
  topP?: number
  topLogprobs: number
  include: string[]
  safetyIdentifier?: string
  store: boolean
  stream: boolean
  background: boolean
  previousResponseId?: string
  truncation: 'auto' | 'disabled'
  serviceTier: 'default' | 'flex'
  format: TextFormat
  verbosity?: string
  tools: FunctionTool[]
  toolChoice: ToolChoice
  parallelToolCalls: boolean
  moderationModel?: string
  reasoningEffort?: string
  user?: string
  /** Only under the fault n-parameter-honoured: rule 1 says there is no n. */
  candidates: number
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/
const EFFORTS = new Set(['minimal', 'low', 'medium', 'high'])
const VERBOSITY = new Set(['low', 'medium', 'high'])

/**
 * A field that may be absent or null (the default applies) or of one JSON type, checked here where the schema states
 * no type or a fault lifts it.
 */
function optional<T>(
  body: Record<string, unknown>,
  name: string,
  check: (value: unknown) => value is T,
  what: string,
): T | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (!check(value)) throw invalidParameter(name, `${name} must be ${what}`)
  return value
}

/** A field whose type the validator judged: its value, or undefined for absent or null. */
function given<T>(body: Record<string, unknown>, name: string): T | undefined {
  const value = body[name]
  return value === undefined || value === null ? undefined : (value as T)
}

const isString = (v: unknown): v is string => typeof v === 'string'
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isInteger = (v: unknown): v is number => Number.isInteger(v)

function inRange(name: string, value: number | undefined, min: number, max: number): number | undefined {
  if (value !== undefined && (value < min || value > max))
    throw invalidParameter(name, `${name} must be from ${min} to ${max}; got ${value}`)
  return value
}

/** `body` is the JSON object whose model the route has read and resolved already. */
export function parseCreateRequest(body: Record<string, unknown>, rules: ResponseRules): CreateRequest {
  const model = body.model as string
  const { stream, previousResponseId } = checkShape(body, rules)
  const limits = RESPONSE_EDGES
  const temperature = inRange(
    'temperature',
    optional(body, 'temperature', isNumber, 'a number'),
    limits.temperature.min,
    rules.temperatureMax,
  )
  const topLogprobs =
    inRange(
      'top_logprobs',
      optional(body, 'top_logprobs', isInteger, 'an integer'),
      limits.topLogprobs.min,
      rules.topLogprobsMax,
    ) ?? 0
  const safetyIdentifier = optional(body, 'safety_identifier', isString, 'a string')
  if (safetyIdentifier !== undefined && safetyIdentifier.length > rules.safetyIdentifierMaxChars) {
    throw invalidParameter(
      'safety_identifier',
      `safety_identifier must be at most ${limits.safetyIdentifierChars} characters; got ${safetyIdentifier.length}`,
    )
  }
  const tools = parseTools(body.tools)
  if (body.prompt_cache_key !== undefined && !rules.takesPromptCacheKey)
    throw invalidParameter('prompt_cache_key', 'prompt_cache_key is not a parameter of this endpoint')
  return {
    model,
    input: normalizeInput(body.input ?? '', rules),
    instructions: given<string>(body, 'instructions'),
    // The reference gives no minimum; one token is the least that can be generated.
    maxOutputTokens: inRange('max_output_tokens', given<number>(body, 'max_output_tokens'), 1, Number.MAX_SAFE_INTEGER),
    metadata: parseMetadata(body.metadata, rules),
    temperature,
    // top_p has no stated range; a probability mass is 0 to 1.
    topP: inRange('top_p', given<number>(body, 'top_p'), 0, 1),
    topLogprobs,
    include: given<string[]>(body, 'include') ?? [],
    safetyIdentifier,
    store: given<boolean>(body, 'store') ?? true,
    stream,
    background: given<boolean>(body, 'background') ?? false,
    previousResponseId,
    truncation: parseEnum(body, 'truncation', ['auto', 'disabled']) ?? 'disabled',
    serviceTier: parseServiceTier(body, rules),
    ...parseText(body.text, rules),
    tools,
    toolChoice: parseToolChoice(body.tool_choice, tools),
    parallelToolCalls: given<boolean>(body, 'parallel_tool_calls') ?? true,
    moderationModel: parseModeration(body.moderation),
    reasoningEffort: parseReasoning(body.reasoning),
    user: given<string>(body, 'user'),
    candidates: rules.refuseN ? 1 : (inRange('n', optional(body, 'n', isInteger, 'an integer'), 1, 8) ?? 1),
  }
}

/**
 * The rules on which fields a request may carry and with what (section 4.5's rules 1 and 2, conversation), checked
 * before any value is read; gives the two fields they depend on.
 */
function checkShape(
  body: Record<string, unknown>,
  rules: ResponseRules,
): { stream: boolean; previousResponseId: string | undefined } {
  // Rule 1: several candidates need separate requests.
  if (body.n !== undefined && rules.refuseN)
    throw invalidParameter('n', 'There is no n parameter; send separate requests for several candidates.')
  // Rule 2: structured output schemas go in text.format.
  if (body.response_format !== undefined)
    throw invalidParameter(
      'response_format',
      'response_format is not a parameter of this endpoint; put the format in text.format.',
    )
  const stream = given<boolean>(body, 'stream') ?? false
  const previousResponseId = given<string>(body, 'previous_response_id')
  // Refused beside previous_response_id here too: variation conversations-not-found lifts the schema's refusal.
  if (
    body.conversation !== undefined &&
    body.conversation !== null &&
    (!previousResponseId || rules.refuseConversationWithPrevious)
  ) {
    if (previousResponseId !== undefined)
      throw invalidParameter('conversation', 'conversation must not be combined with previous_response_id')
    // Section 4.5: only where persistent conversations are enabled; they are not, here.
    throw invalidParameter('conversation', 'Persistent conversations are not enabled for this account.')
  }
  return { stream, previousResponseId }
}

function parseEnum<T extends string>(body: Record<string, unknown>, name: string, values: readonly T[]): T | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value))
    throw invalidParameter(name, `${name} must be one of ${values.join(', ')}`)
  return value as T
}

function parseServiceTier(body: Record<string, unknown>, rules: ResponseRules): 'default' | 'flex' {
  if (body.service_tier === 'priority')
    throw invalidParameter('service_tier', 'service_tier priority is not enabled for this account')
  const tier = parseEnum(body, 'service_tier', ['default', 'flex'] as const)
  if (tier === 'default' && !rules.takesDefaultServiceTier)
    throw invalidParameter('service_tier', 'service_tier default is not available')
  if (tier === 'flex' && !rules.takesFlexServiceTier)
    throw invalidParameter('service_tier', 'service_tier flex is not available')
  return tier ?? 'default'
}

function parseMetadata(raw: unknown, rules: ResponseRules): Record<string, string> {
  if (raw === undefined || raw === null) return {}
  if (!isObject(raw)) throw invalidParameter('metadata', 'metadata must be an object of string values')
  const limits = RESPONSE_EDGES
  const entries = Object.entries(raw)
  if (entries.length > rules.metadataMaxPairs)
    throw invalidParameter('metadata', `metadata holds at most ${limits.metadataPairs} pairs; got ${entries.length}`)
  for (const [key, value] of entries) {
    if (key.length > limits.metadataKeyChars)
      throw invalidParameter(
        'metadata',
        `metadata keys are at most ${limits.metadataKeyChars} characters; got ${key.length}`,
      )
    if (typeof value !== 'string') throw invalidParameter('metadata', `metadata values must be strings (key '${key}')`)
    if (value.length > limits.metadataValueChars)
      throw invalidParameter(
        'metadata',
        `metadata values are at most ${limits.metadataValueChars} characters; got ${value.length} (key '${key}')`,
      )
  }
  return raw as Record<string, string>
}

function parseText(raw: unknown, rules: ResponseRules): { format: TextFormat; verbosity?: string } {
  if (raw === undefined || raw === null) return { format: { type: 'text' } }
  const text = raw as Record<string, unknown>
  const verbosity = text.verbosity
  if (verbosity !== undefined && verbosity !== null && !(typeof verbosity === 'string' && VERBOSITY.has(verbosity)))
    throw invalidParameter('text.verbosity', 'text.verbosity must be low, medium or high')
  const format = (text.format ?? { type: 'text' }) as Record<string, unknown>
  const v = typeof verbosity === 'string' ? { verbosity } : {}
  if (format.type === 'json_object' && !rules.takesJsonObjectFormat)
    throw invalidParameter('text.format', 'json_object is not supported')
  if (format.type === 'text' || format.type === 'json_object') return { format: { type: format.type }, ...v }
  if (format.type === 'json_schema') {
    if (!rules.takesJsonSchemaFormat) throw invalidParameter('text.format', 'json_schema is not supported')
    if (typeof format.name !== 'string' || !TOOL_NAME.test(format.name))
      throw invalidParameter('text.format.name', 'text.format.name must be 1 to 64 letters, digits, _ or -')
    if (!isObject(format.schema))
      throw invalidParameter('text.format.schema', 'text.format.schema must be a JSON Schema object')
    if (format.strict !== undefined && format.strict !== null && typeof format.strict !== 'boolean')
      throw invalidParameter('text.format.strict', 'text.format.strict must be a boolean')
    return {
      format: { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict === true },
      ...v,
    }
  }
  throw invalidParameter('text.format.type', 'text.format.type must be text, json_object or json_schema')
}

function parseTools(raw: unknown): FunctionTool[] {
  if (raw === undefined || raw === null) return []
  return (raw as Record<string, unknown>[]).map((tool, i) => {
    // Built-in, custom and MCP tools exist only where the route supports them (section 4.5); this one does not.
    if (tool.type !== 'function')
      throw invalidParameter(
        'tools',
        `tools[${i}].type '${String(tool.type)}' is not supported on this route; use function tools`,
      )
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      throw invalidParameter('tools', `tools[${i}].name must be 1 to 64 letters, digits, _ or -`)
    if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters))
      throw invalidParameter('tools', `tools[${i}].parameters must be a JSON Schema object`)
    return {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      ...(isObject(tool.parameters) ? { parameters: tool.parameters } : {}),
      strict: tool.strict === true,
    }
  })
}

function parseToolChoice(raw: unknown, tools: readonly FunctionTool[]): ToolChoice {
  if (raw === undefined || raw === null || raw === 'auto') return { kind: 'auto' }
  if (raw === 'none') return { kind: 'none' }
  if (raw === 'required') {
    if (tools.length === 0) throw invalidParameter('tool_choice', 'tool_choice required needs at least one tool')
    return { kind: 'required' }
  }
  if (isObject(raw) && raw.type === 'function' && typeof raw.name === 'string') {
    if (!tools.some((tool) => tool.name === raw.name))
      throw invalidParameter('tool_choice', `tool_choice names '${raw.name}', which is not in tools`)
    return { kind: 'function', name: raw.name }
  }
  throw invalidParameter('tool_choice', 'tool_choice must be auto, required, none or {"type":"function","name":...}')
}

function parseModeration(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined
  // The schema does not require model in the object; inline moderation cannot run without one.
  const { model } = raw as Record<string, unknown>
  if (typeof model !== 'string')
    throw invalidParameter('moderation', 'moderation must be {"model": "<moderation model id>"}')
  return model
}

function parseReasoning(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined
  const effort = (raw as Record<string, unknown>).effort
  if (effort === undefined || effort === null) return undefined
  if (typeof effort !== 'string' || !EFFORTS.has(effort))
    throw invalidParameter('reasoning.effort', 'reasoning.effort must be minimal, low, medium or high')
  return effort
}
