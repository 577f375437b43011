/**
 * What the responses suites share: the models they use, picked from GET /v1/models at run time (never by
 * hard-coded ids), and readers of the response object that skip a test when the shape it builds on is broken
 * (that shape's own requirement reports it). Requests are small, so a run against a paid target stays cheap.
 */
import { reportedTier } from '../shared/tier.ts'
import { WEATHER_FUNCTION } from '../shared/tools.ts'
import { expectSetup, notObserved, precondition, is2xx } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient, RequestSpec } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { modelItems } from '../models/model-list.ts'
import { howToName, namedModel, withNamedModels } from '../shared/named-models.ts'

export const PATH = '/v1/responses'

/** A prompt whose answer runs to a few sentences, and the caps that keep answers short. */
export const PROMPT = 'In three or four sentences, explain what an API gateway does for the services behind it.'
export const CAPS = {
  answer: 96, // room for a short complete answer
  cut: 16, // sure to cut a few sentences short
  roomy: 1024, // room for hidden reasoning before a short answer (rule 7), asked only when 96 ran out first
}

export interface ChatModel {
  id: string
  minTier: number
  maxInputTokens: number | undefined
  functionCalling: boolean
  /** §2.3's supports_parallel_function_calling and supports_tool_choice: false only where a model states false. */
  parallelCalls: boolean
  toolChoice: boolean
  responseSchema: boolean
  pdfInput: boolean
}

export interface Models {
  /** The caller's tier as the target reports it (extra.rate_limits.current), when it does. */
  tier: number | undefined
  /** Chat models the caller may use, lowest min_tier first. */
  chat: ChatModel[]
  /** A moderation model this key may use: a free named one first (§4.7), never one above the caller's tier. */
  moderation: string | undefined
}

/** §4.7's free named moderation models, tried first for inline moderation. */
const FREE_MODERATION = ['omni-moderation-latest', 'omni-moderation-2024-09-26', 'text-moderation-latest']

function chatModel(item: Record<string, unknown>): ChatModel {
  return {
    id: String(item.id),
    minTier: typeof item.min_tier === 'number' ? item.min_tier : 0,
    maxInputTokens: typeof item.max_input_tokens === 'number' ? item.max_input_tokens : undefined,
    functionCalling: item.supports_function_calling !== false,
    parallelCalls: item.supports_parallel_function_calling !== false,
    toolChoice: item.supports_tool_choice !== false,
    // §2.3: a flag is present only when relevant, so only a model that states it takes JSON formats is asked for them.
    responseSchema: item.supports_response_schema === true,
    pdfInput: item.supports_pdf_input === true,
  }
}

/** The model catalogue as these suites read it, once per file. */
export function modelsFixture(api: TargetClient): () => Promise<Models> {
  return memo(async () => {
    const list = await api.get('/v1/models')
    expectSetup(list, '2xx', 'the model list, to choose models from')
    const items = withNamedModels(modelItems(list).filter(isObject), {
      chat: namedModel('responses') ?? namedModel('chat'),
      moderation: namedModel('moderation'),
    })
    const chat = items
      .filter((item) => item.mode === 'chat' && typeof item.id === 'string')
      .map(chatModel)
      .sort((a, b) => a.minTier - b.minTier)
    // The retrieve only: the usage endpoints' per-minute limit is not spent on finding the tier.
    const tier = chat[0] ? await reportedTier(api, chat[0].id) : undefined
    const usable = (item: Record<string, unknown>) =>
      tier === undefined || typeof item.min_tier !== 'number' || item.min_tier <= tier
    const moderationModels = items.filter(
      (item) => item.mode === 'moderation' && typeof item.id === 'string' && usable(item),
    )
    const moderation = (
      moderationModels.find((item) => FREE_MODERATION.includes(item.id as string)) ?? moderationModels[0]
    )?.id as string | undefined
    return { tier, chat: chat.filter((m) => tier === undefined || m.minTier <= tier), moderation }
  })
}

/** The first chat model the caller may use; the test is skipped when there is none. */
export async function firstChat(
  models: () => Promise<Models>,
  want: (m: ChatModel) => boolean = () => true,
): Promise<ChatModel> {
  const { chat, tier } = await models()
  const model = chat.find(want)
  if (!model)
    skipTest(
      `no chat model for this key${tier === undefined ? '' : ` (tier ${tier})`} fits the test; ${howToName('responses')}`,
    )
  return model
}

export function create(
  api: TargetClient,
  body: Record<string, unknown>,
  spec: Omit<RequestSpec, 'path' | 'method' | 'json'> = {},
): Promise<Exchange> {
  return api.post(PATH, body, spec)
}

export function createStream(api: TargetClient, body: Record<string, unknown>): Promise<Exchange> {
  return api.stream({
    method: 'POST',
    path: PATH,
    json: { ...body, stream: true },
    headers: { accept: 'text/event-stream' },
  })
}

function isResponseObject(value: unknown): value is Record<string, unknown> {
  return schemas().validate('responses/response.json', value).ok
}

/**
 * The 2xx body as a response object. The call only sets up what the test judges: another status skips the test
 * naming it, and a body that is not a response object skips it too (P1-2.7-response-object reports that).
 */
export function responseOf(ex: Exchange, what = 'a response to judge'): Record<string, unknown> {
  expectSetup(ex, '2xx', what)
  const body = ex.json
  precondition(
    isResponseObject(body),
    'P1-2.7-response-object',
    `${ex.excerpt.method} ${ex.excerpt.path} did not answer a response object`,
  )
  return body
}

/**
 * Rule 7: hidden reasoning may use the whole budget before any text, leaving a response incomplete with reason
 * max_output_tokens and nothing visible. A check that needs visible output then has nothing to judge: it skips.
 */
export function visibleOutputOrSkip(response: Record<string, unknown>, what: string): void {
  if (spentBeforeOutput(response))
    skipTest(
      `${what}: the answer ran out of max_output_tokens before any visible output (rule 7: hidden reasoning may use the whole budget)`,
    )
}

/** Whether a response ran out of max_output_tokens before any visible output (rule 7); false for anything else. */
export function spentBeforeOutput(response: unknown): boolean {
  if (!isObject(response) || response.status !== 'incomplete') return false
  const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined
  const text = typeof response.output_text === 'string' ? response.output_text : messageText(response)
  return reason === 'max_output_tokens' && text === '' && !hasCall(response)
}

/**
 * Rule 7: a reasoning model may spend a short budget before any text. A check that needs visible output asks once
 * more with room for the reasoning; `send` makes the request with the budget given, `response` reads its response.
 */
export async function withRoomForReasoning(
  send: (maxOutputTokens: number) => Promise<Exchange>,
  response: (ex: Exchange) => unknown = (ex) => ex.json,
): Promise<Exchange> {
  const first = await send(CAPS.answer)
  return is2xx(first) && spentBeforeOutput(response(first)) ? send(CAPS.roomy) : first
}

/** An output item other than a message or reasoning, holding something: a call cut before its arguments is not. */
function hasCall(response: Record<string, unknown>): boolean {
  return outputItems(response).some(
    (item) => item.type !== 'message' && item.type !== 'reasoning' && item.arguments !== '',
  )
}

export interface Usage {
  input: number
  output: number
  reasoning: number
}

export function hasUsage(response: Record<string, unknown>): boolean {
  return schemas().validate('responses/usage.json', response.usage).ok
}

/** The usage counts; skips the test when usage lacks the fields of §2.5 (P1-2.5-usage-fields reports it). */
export function usageOf(response: Record<string, unknown>): Usage {
  precondition(
    hasUsage(response),
    'P1-2.5-usage-fields',
    `response ${String(response.id)} has no usage with the fields of §2.5`,
  )
  const usage = response.usage as {
    input_tokens: number
    output_tokens: number
    output_tokens_details: { reasoning_tokens: number }
  }
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    reasoning: usage.output_tokens_details.reasoning_tokens,
  }
}

export function outputItems(response: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(response.output) ? response.output.filter(isObject) : []
}

/** The text of the output_text parts of message items, joined in order (the convention's reading of output). */
export function messageText(response: Record<string, unknown>): string {
  return outputItems(response)
    .filter((item) => item.type === 'message' && Array.isArray(item.content))
    .flatMap((item) => (item.content as unknown[]).filter(isObject))
    .filter((part) => part.type === 'output_text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('')
}

/** The shared function tool in the responses convention: flat, with strict schemas (rule 5). */
export const WEATHER_TOOL = { type: 'function', ...WEATHER_FUNCTION, strict: true } as const

export const WEATHER_PROMPT = 'What is the weather like in Lisbon right now?'

/**
 * A request with inline moderation by a free named moderation model this key may use (the guard model has a price
 * of its own); skips when there is none. The caller sends it through withRoomForReasoning: the output result needs
 * output to moderate.
 */
export async function moderatedBody(models: () => Promise<Models>): Promise<Record<string, unknown>> {
  const { moderation } = await models()
  if (moderation === undefined)
    skipTest(`the model list has no model of mode moderation to moderate with; ${howToName('moderation')}`)
  const model = await firstChat(models)
  return {
    model: model.id,
    input: PROMPT,
    moderation: { model: moderation },
    max_output_tokens: CAPS.answer,
    store: false,
  }
}

/**
 * Inline moderation is offered where enabled (§4.5) and its member is there "when inline moderation is used"
 * (§2.7): a moderated request refused with 400, or answered without the member, shows a target without it. That is
 * not observed, never a failure; the member, when present, is returned for its shape to be judged.
 */
export function inlineModerationOrNotObserved(ex: Exchange, moderation: unknown, where: string): unknown {
  if (ex.status === 400 || ex.status === 403)
    notObserved(`inline moderation was refused with ${ex.status} (offered where enabled): ${ex.text.slice(0, 200)}`)
  expectSetup(ex, '2xx', 'a moderated response')
  if (moderation === undefined || moderation === null)
    notObserved(`${where} carries no moderation member: inline moderation is not enabled on this target`)
  return moderation
}

/**
 * The inline moderation of a response, ready for its shape to be judged. The output result moderates the output:
 * a response with no output text (rule 7: reasoning may spend the budget first) may carry it as null or leave it
 * out, which is not observed. Results wrapped in a results array (§2.7 shows no shape beyond "each with flagged")
 * are judged inside it.
 */
export function moderationToJudge(response: Record<string, unknown>, moderation: unknown): unknown {
  if (!isObject(moderation)) return moderation
  const text = typeof response.output_text === 'string' ? response.output_text : messageText(response)
  if ((moderation.output === undefined || moderation.output === null) && text === '' && !hasCall(response))
    notObserved('the response has no output, so there was no output to moderate (rule 7 may leave none)')
  return moderation
}
