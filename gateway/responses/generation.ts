/**
 * One turn of a simulated model for POST /v1/responses (Part 1 §2.5, §3, §4.5): the context (prior chain plus
 * this input), the context window with truncation, the choice between text, structured JSON and a tool call,
 * the shared output budget of visible text and hidden reasoning, and the output items with the token pieces
 * that a stream sends as deltas.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { CatalogueModel } from '../models/catalogue.ts'
import { GatewayError } from '../errors.ts'
import type { ResponseRules } from './rules.ts'
import { generate } from '../simulate/generate.ts'
import { countTokens, tokenPieces } from '../simulate/tokenizer.ts'
import { endsWithToolOutput, inputText, latestUserText, mediaTokens } from './input.ts'
import { fillerFrom, valueFor } from './structured.ts'
import type { CreateRequest, FunctionTool } from './validate.ts'

/** What a stored response hands to the next turn of its chain (previous_response_id). */
export interface PriorTurn {
  /** The whole conversation so far, inputs and visible outputs, oldest first. */
  contextText: string
  instructions?: string | undefined
}

export interface PlannedItem {
  kind: 'reasoning' | 'message' | 'function_call'
  /** The item as the finished response lists it. */
  item: Record<string, unknown>
  /** The visible text or the arguments, in the token pieces a stream sends as deltas. */
  pieces: string[]
}

export interface Run {
  items: PlannedItem[]
  outputText: string
  usage: { inputTokens: number; outputTokens: number; reasoningTokens: number }
  /** The output budget ran out (status incomplete, reason max_output_tokens). */
  incomplete: boolean
  /** The conversation including this turn's output, for a later turn. */
  contextText: string
  /** The instructions this turn ran with. */
  instructions?: string | undefined
  moderationText: { input: string; output: string }
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`
}

/** Tools and schemas are read by the model, so they count as input (section 4.6 reserves headroom for them). */
function structureTokens(req: CreateRequest): number {
  const tools = req.tools.length === 0 ? 0 : countTokens(JSON.stringify(req.tools))
  const schema = req.format.type === 'json_schema' ? countTokens(JSON.stringify(req.format.schema)) : 0
  return tools + schema
}

function windowExceeded(model: CatalogueModel, tokens: number): GatewayError {
  return new GatewayError(
    400,
    `The input is ${tokens} tokens, over the ${model.maxInputTokens}-token context window of ${model.id}, and truncation is disabled.`,
    { code: 'context_length_exceeded', param: 'input' },
  )
}

/** The last `room` tokens of the context: truncation inside an item. */
function lastTokens(context: string, room: number): string {
  const pieces = tokenPieces(context)
  return pieces.slice(pieces.length - room).join('')
}

/**
 * Truncation by whole items (the whole-item-truncation variation): the prior chain and the oldest items of this
 * turn are dropped until the rest fits; one item alone over the window cannot be made to fit, and is refused.
 */
function keptItems(req: CreateRequest, model: CatalogueModel, room: number): string {
  for (let first = 0; first < req.input.length; first += 1) {
    const text = inputText(req.input.slice(first))
    if (countTokens(text) <= room) return text
  }
  const last = inputText(req.input.slice(-1))
  throw new GatewayError(
    400,
    `The newest input item alone is ${countTokens(last)} tokens, over the ${room} tokens left of the ${model.maxInputTokens}-token context window of ${model.id}: dropping items cannot make it fit.`,
    { code: 'context_length_exceeded', param: 'input' },
  )
}

/**
 * `wholeItems`: truncation auto drops whole items rather than tokens inside one (a variation).
 * `thinkFirst`: hidden reasoning tokens every chat model spends before any text, as reasoning models do (the
 * long-reasoning variation); on top of what the model's own reasoning takes.
 */
export function runModel(
  req: CreateRequest,
  model: CatalogueModel,
  prior: PriorTurn | undefined,
  rules: ResponseRules,
  thinkFirst = 0,
  wholeItems = false,
): Run {
  const turnText = inputText(req.input)
  const instructions = req.instructions ?? (prior && rules.carryInstructions ? prior.instructions : undefined)
  const fixed = countTokens(instructions ?? '') + structureTokens(req) + mediaTokens(req.input)
  let context = prior ? `${prior.contextText}\n${turnText}` : turnText
  let contextTokens = countTokens(context)
  if (fixed + contextTokens > model.maxInputTokens) {
    // Section 4.5: truncation auto drops the oldest items; disabled (the default) fails with 400 (section 7).
    const refused = req.truncation === 'disabled' ? rules.honourTruncationDisabled : !rules.honourTruncationAuto
    if (refused) throw windowExceeded(model, fixed + contextTokens)
    const room = model.maxInputTokens - fixed
    if (room <= 0) throw windowExceeded(model, fixed + contextTokens)
    context = wholeItems ? keptItems(req, model, room) : lastTokens(context, room)
    contextTokens = countTokens(context)
  }
  // Rule 4: the prior chain context counts as input tokens.
  const uncounted = prior && !rules.countChainContext ? Math.min(contextTokens, countTokens(prior.contextText)) : 0
  const inputTokens = fixed + contextTokens - uncounted

  const generated = generate({
    model: model.id,
    reasoning: model.reasoning === true,
    instructions,
    input: context,
    temperature: req.temperature,
  })
  const tool = chosenTool(req, rules)
  const body = outputBody(req, tool, generated.text)
  const budget = applyBudget(body, generated.reasoningTokens + thinkFirst, req.maxOutputTokens, rules)
  const status = budget.cut ? 'incomplete' : 'completed'

  const items: PlannedItem[] = []
  if (model.reasoning || thinkFirst > 0)
    items.push({ kind: 'reasoning', item: reasoningItem(req, context), pieces: [] })
  // Rule 7: a budget eaten by hidden reasoning leaves no output item, a tool call as little as a message.
  if (tool && (budget.visible !== '' || !budget.cut)) {
    items.push({
      kind: 'function_call',
      item: {
        id: newId('fc'),
        type: 'function_call',
        status,
        call_id: newId('call'),
        name: tool.name,
        arguments: budget.visible,
      },
      pieces: budget.pieces,
    })
  } else if (!tool && (budget.visible !== '' || !budget.cut)) {
    for (let n = 0; n < req.candidates; n += 1)
      items.push({
        kind: 'message',
        item: messageItem(req, status, budget.visible, budget.pieces),
        pieces: budget.pieces,
      })
  }
  const outputText = items
    .filter((i) => i.kind === 'message')
    .map(() => budget.visible)
    .join('')
  return {
    items,
    outputText,
    usage: { inputTokens, outputTokens: budget.outputTokens, reasoningTokens: budget.reasoning },
    incomplete: budget.cut,
    contextText: `${context}\n${budget.visible}`,
    instructions,
    moderationText: { input: turnText, output: budget.visible },
  }
}

function chosenTool(req: CreateRequest, rules: ResponseRules): FunctionTool | undefined {
  if (req.tools.length === 0 || endsWithToolOutput(req.input)) return undefined
  const choice =
    req.toolChoice.kind === 'required' && !rules.honourToolChoiceRequired ? { kind: 'auto' as const } : req.toolChoice
  if (choice.kind === 'none') return undefined
  if (choice.kind === 'function') return req.tools.find((tool) => tool.name === choice.name)
  if (choice.kind === 'required') return req.tools[0]
  // auto: the simulated model calls a tool when the newest user message names it.
  const text = latestUserText(req.input).toLowerCase()
  return req.tools.find((tool) => text.includes(tool.name.toLowerCase()))
}

function outputBody(req: CreateRequest, tool: FunctionTool | undefined, text: string): string {
  const filler = fillerFrom(text)
  if (tool) return JSON.stringify(valueFor(tool.parameters ?? { type: 'object', properties: {} }, filler))
  if (req.format.type === 'json_schema') return JSON.stringify(valueFor(req.format.schema, filler))
  if (req.format.type === 'json_object') return JSON.stringify({ answer: text })
  return text
}

interface Budget {
  pieces: string[]
  visible: string
  reasoning: number
  outputTokens: number
  cut: boolean
}

/** Section 4.5: max_output_tokens is one cap for visible output plus reasoning; reasoning is spent first. */
function applyBudget(body: string, reasoningWanted: number, max: number | undefined, rules: ResponseRules): Budget {
  const cap = max ?? Number.POSITIVE_INFINITY
  const outsideBudget = !rules.reasoningInBudget
  const reasoning = outsideBudget ? reasoningWanted : Math.min(reasoningWanted, cap)
  const visibleBudget = outsideBudget ? cap : Math.max(0, cap - reasoning)
  const all = tokenPieces(body)
  const pieces = all.length <= visibleBudget ? all : all.slice(0, visibleBudget)
  const visible = pieces.join('')
  const visibleTokens = countTokens(visible)
  // Section 2.5: reasoning is inside output_tokens and only broken out beside it.
  const outputTokens = rules.reasoningInOutputTokens ? visibleTokens + reasoning : visibleTokens
  return { pieces, visible, reasoning, outputTokens, cut: pieces.length < all.length || reasoning < reasoningWanted }
}

function reasoningItem(req: CreateRequest, context: string): Record<string, unknown> {
  // Rule 3: encrypted reasoning lets a store-false caller replay it; here it is an opaque token of the context.
  const encrypted = req.include.includes('reasoning.encrypted_content')
    ? { encrypted_content: createHash('sha256').update(context).digest('base64') }
    : {}
  return { id: newId('rs'), type: 'reasoning', summary: [], ...encrypted }
}

function messageItem(
  req: CreateRequest,
  status: string,
  text: string,
  pieces: readonly string[],
): Record<string, unknown> {
  const logprobs = req.include.includes('message.output_text.logprobs')
    ? { logprobs: pieces.map((token, i) => tokenLogprob(token, i, req.topLogprobs)) }
    : {}
  return {
    id: newId('msg'),
    type: 'message',
    status,
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [], ...logprobs }],
  }
}

function tokenLogprob(token: string, index: number, top: number): Record<string, unknown> {
  const logprob = -0.001 - (index % 7) * 0.01
  const bytes = [...Buffer.from(token, 'utf8')]
  return {
    token,
    logprob,
    bytes,
    top_logprobs: Array.from({ length: top }, (_, k) => ({
      token: k === 0 ? token : `${token.trim()}${k}`,
      logprob: logprob - k * 0.5,
      bytes,
    })),
  }
}
