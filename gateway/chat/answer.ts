/**
 * What a simulated chat model answers: text, or a call of one of the request's tools. Both come out of one
 * budget, max_completion_tokens, which also pays for hidden reasoning first (Part 1 sections 2.5, 4.5 rule 7,
 * 4.7: it maps to max_output_tokens). When the budget runs out the answer is cut and finish_reason is
 * `length` (section 2.6).
 *
 * Tool choice, where the reference is silent (section 4.7 names tools only): `required` and a named function
 * always call a tool; `auto` calls the first tool whose name the last user message mentions; after a tool
 * result the model answers in text. Arguments are built from the tool's JSON Schema so that they parse and
 * carry every required property.
 */
import { randomBytes } from 'node:crypto'
import type { CatalogueModel } from '../models/catalogue.ts'
import { generate } from '../simulate/generate.ts'
import { countTokens, tokenPieces } from '../simulate/tokenizer.ts'
import type { ChatRequest, ChatTool } from './request.ts'
import type { ChatRules } from './rules.ts'
import { valueForSchema } from './schema-value.ts'

export interface ToolCall {
  id: string
  name: string
  /** JSON text, possibly cut short by the budget. */
  arguments: string
}

export interface ChatAnswer {
  /** Visible text; null when the answer is a tool call. */
  content: string | null
  toolCall: ToolCall | undefined
  /** The visible output (text or tool arguments) as token pieces, for streaming. */
  pieces: string[]
  promptTokens: number
  /** Visible plus reasoning tokens (section 2.5: reasoning is inside output and billed as output). */
  completionTokens: number
  reasoningTokens: number
  finish: 'stop' | 'length' | 'tool_calls'
}

/** The rules the answer reads: which tool is called, what is counted. */
type AnswerRules = Pick<ChatRules, 'honourToolChoice' | 'countInstructions' | 'completionWithinBudget'>

export function answerChat(model: CatalogueModel, chat: ChatRequest, rules: AnswerRules): ChatAnswer {
  const full = generate({
    model: model.id,
    reasoning: model.reasoning === true,
    instructions: chat.instructions,
    input: chat.input,
    temperature: chat.temperature,
  })
  const budget = chat.maxCompletionTokens ?? Number.POSITIVE_INFINITY
  const reasoningTokens = Math.min(full.reasoningTokens, budget)
  const tool = rules.honourToolChoice ? chosenTool(chat) : undefined
  const visible = tool ? JSON.stringify(argumentsFor(tool.parameters)) : structured(chat, full.text)
  const allPieces = tokenPieces(visible)
  const pieces = allPieces.slice(0, Math.max(0, budget - reasoningTokens))
  const cut = pieces.length < allPieces.length || reasoningTokens < full.reasoningTokens
  const text = pieces.join('')
  const instructionTokens = rules.countInstructions ? countTokens(chat.instructions ?? '') : 0
  let completionTokens = countTokens(text) + reasoningTokens
  if (cut && !rules.completionWithinBudget) completionTokens = budget + 1
  return {
    content: tool ? null : text,
    toolCall: tool ? { id: `call_${randomBytes(12).toString('hex')}`, name: tool.name, arguments: text } : undefined,
    pieces,
    promptTokens: instructionTokens + countTokens(chat.input) + chat.extraInputTokens,
    completionTokens,
    reasoningTokens,
    finish: cut ? 'length' : tool ? 'tool_calls' : 'stop',
  }
}

/** The visible text: plain, a JSON object, or a value of the caller's JSON Schema (response_format). */
function structured(chat: ChatRequest, text: string): string {
  const format = chat.jsonOutput
  if (format === undefined) return text
  if (format.kind === 'object') return JSON.stringify({ answer: text })
  return JSON.stringify(valueForSchema(format.schema, text.split(/\s+/).filter(Boolean).slice(0, 16)))
}

function chosenTool(chat: ChatRequest): ChatTool | undefined {
  const { tools, toolChoice } = chat
  if (tools.length === 0 || toolChoice.kind === 'none' || chat.afterToolResult) return undefined
  if (toolChoice.kind === 'function') return tools.find((tool) => tool.name === toolChoice.name)
  if (toolChoice.kind === 'required') return tools[0]
  const said = chat.lastUserText.toLowerCase()
  return tools.find((tool) => said.includes(tool.name.toLowerCase()))
}

type Schema = Record<string, unknown>

/** A value that satisfies a (simple) JSON Schema: every required property, the first enum value, a typed default. */
export function argumentsFor(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 8) return {}
  const s = schema as Schema
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0]
  if ('const' in s) return s.const
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type
  switch (type) {
    case 'string':
      return 'example'
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1
    case 'boolean':
      return true
    case 'array':
      return []
    case 'null':
      return null
    default: {
      const properties =
        typeof s.properties === 'object' && s.properties !== null ? (s.properties as Record<string, unknown>) : {}
      const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []
      return Object.fromEntries(required.map((name) => [name, argumentsFor(properties[name], depth + 1)]))
    }
  }
}

/** Inline moderation (Part 2 section 4.7): results for input and output. The reference gives only `flagged`. */
export function moderate(
  model: string,
  input: string,
  output: string,
): { input: { flagged: boolean; model: string }; output: { flagged: boolean; model: string } } {
  // A fixed marker makes flagging deterministic and testable; real moderation is out of the simulator's scope.
  const flagged = (text: string): boolean => /\bgc-flag-me\b/i.test(text)
  return { input: { flagged: flagged(input), model }, output: { flagged: flagged(output), model } }
}
