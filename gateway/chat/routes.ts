/**
 * Chat completions (Part 1 sections 2.5, 2.6, 4.7, 6): POST /v1/chat/completions with a chat model of the
 * caller's tier. Answers the §2.6 shape, or with stream true the chunk convention of stream.ts.
 *
 * Where the reference is silent: the response also carries the convention's fields it does not list
 * (message.refusal, logprobs, usage.completion_tokens_details.reasoning_tokens); prompt caching is not
 * simulated, so cached_tokens is 0; `n` other than 1 is refused, as section 4.5 rule 1 does for responses;
 * the inline moderation result sits in a `moderation` field beside choices, as section 2.7 places it on a
 * response.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { CATALOGUE, findModel, type CatalogueModel } from '../models/catalogue.ts'
import { refusesSystemMessages } from '../models/varied.ts'
import { isObject } from '../../common/json.ts'
import { answerChat, moderate, type ChatAnswer } from './answer.ts'
import { imageNotModerated, messagesHaveImage, moderatesImages } from '../moderation/inline.ts'
import { wavFile } from '../audio/wav.ts'
import { parseChatRequest, type ChatRequest } from './request.ts'
import { streamChat, type CompletionHead } from './stream.ts'
import { requireCaller, type RequestContext } from '../context.ts'
import { invalidParameter } from '../errors.ts'
import { parseErrorsAs500 } from '../fallbacks.ts'
import { objectBody, requireModelId, requireTier, resolveModel } from '../models/access.ts'
import type { GatewayState } from '../state.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { CHAT_ANSWER_RESHAPES } from './reshapes.ts'
import { MODERATION_INLINE_ANSWER_RESHAPES } from '../moderation/reshapes.ts'
import { chatRules, type ChatRules } from './rules.ts'

const CHAT_RULES = { modes: ['chat'], endpoint: 'chat completions' } as const

export function registerChatRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, { ...CHAT_ANSWER_RESHAPES, ...MODERATION_INLINE_ANSWER_RESHAPES })
    registerRoutes(scope, state, chatRules(state.faults))
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState, rules: ChatRules): void {
  app.post('/v1/chat/completions', rules.malformedJsonAs400 ? {} : parseErrorsAs500(state), async (request, reply) => {
    const context = state.contexts.of(request)
    const caller = requireCaller(context)
    const body = objectBody(request.body)
    const id = requireModelId(body)
    const model = !rules.refuseUnknownModel && !findModel(id) ? firstChatModel() : resolveModel(id, context, CHAT_RULES)
    if (rules.checkMinTier) requireTier(model, caller, state.tiers)
    if (body.n !== undefined && body.n !== null && body.n !== 1)
      throw invalidParameter('n', 'n must be 1: send separate requests for several candidates.')
    refuseUnsupported(body, rules)
    refuseByVariation(body, model, state)
    const chat = parseChatRequest(body, model, {
      emptyMessagesAllowed: !rules.requireMessages,
      takesAudio: model.audio === true && rules.takesAudio,
      answersAudio: model.audio === true && rules.answersAudio,
    })
    const moderationModel =
      chat.moderationModel === undefined ? undefined : requireModerationModel(chat.moderationModel)

    const answer = answerChat(model, chat, rules)
    const usage = usageOf(answer)
    recordCall(context, model, chat, answer, rules)
    const head: CompletionHead = {
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      created: Math.floor(state.clock.now() / 1000),
      model: answeredModel(model, state),
    }
    const moderation =
      moderationModel === undefined
        ? undefined
        : inlineResults(
            moderate(moderationModel, `${chat.instructions ?? ''}\n${chat.input}`, answer.content ?? ''),
            moderationModel,
            body.messages,
          )
    if (chat.stream) {
      const extras = {
        includeUsage: chat.includeUsage,
        usage,
        moderation,
        promptFilter: state.variations.has('prompt-filter-chunk'),
      }
      await streamChat(reply, head, answer, extras, { faults: state.faults, whole: rules.streamWhole })
      // Reply is a thenable that settles when the response has finished: Fastify then sends nothing more.
      return reply
    }
    return {
      id: head.id,
      object: 'chat.completion',
      created: head.created,
      model: head.model,
      choices: [
        {
          index: 0,
          message: { ...messageOf(answer), ...audioOf(chat, answer, head.created) },
          logprobs: null,
          finish_reason: answer.finish,
        },
      ],
      usage,
      ...(moderation === undefined ? {} : { moderation }),
    }
  })
}

/** The model a completion names: the id asked for, or under model-snapshot-names the dated snapshot behind it. */
function answeredModel(model: CatalogueModel, state: GatewayState): string {
  return state.variations.has('model-snapshot-names') ? `${model.id}-2025-01-15` : model.id
}

function firstChatModel(): CatalogueModel {
  return CATALOGUE.find((model) => model.mode === 'chat') as CatalogueModel
}

/** What a bent rule refuses of a valid request, each with the 400 a strict gateway would give. */
function refuseUnsupported(body: Record<string, unknown>, rules: ChatRules): void {
  const messages = Array.isArray(body.messages) ? body.messages : []
  const roles = messages.map((m) =>
    typeof m === 'object' && m !== null ? (m as Record<string, unknown>).role : undefined,
  )
  if (!rules.takesDeveloperRole && roles.includes('developer'))
    throw invalidParameter('messages', 'The developer role is not supported.')
  if (!rules.takesTools && Array.isArray(body.tools) && body.tools.length > 0)
    throw invalidParameter('tools', 'tools are not supported.')
  if (!rules.takesModeration && body.moderation !== undefined)
    throw invalidParameter('moderation', 'Inline moderation is not supported.')
}

/**
 * Choices the reference leaves open (§4.7 does not show the parameter list), made as some real providers make them:
 * a model that takes only the default temperature refuses another value rather than ignoring it, and one whose
 * supports_system_messages is false refuses a system or developer message.
 */
function refuseByVariation(body: Record<string, unknown>, model: CatalogueModel, state: GatewayState): void {
  const roles = Array.isArray(body.messages) ? body.messages.map((m) => (isObject(m) ? m.role : undefined)) : []
  if (refusesSystemMessages(model, state.variations) && (roles.includes('system') || roles.includes('developer')))
    throw invalidParameter('messages', `The model '${model.id}' does not support system or developer messages.`)
  const temperature = body.temperature
  if (
    state.variations.has('default-temperature-only') &&
    temperature !== undefined &&
    temperature !== null &&
    temperature !== 1
  )
    throw invalidParameter('temperature', 'This model supports only the default temperature (1).')
}

function requireModerationModel(id: string): string {
  if (findModel(id)?.mode !== 'moderation')
    throw invalidParameter('moderation.model', `moderation.model must name a moderation model; '${id}' is not one.`)
  return id
}

/** message.audio of an answer asked for in audio (section 4.7): a short silence, its transcript the text. */
function audioOf(chat: ChatRequest, answer: ChatAnswer, created: number): Record<string, unknown> {
  if (chat.audioOut === undefined) return {}
  return {
    audio: {
      id: `audio_${randomBytes(12).toString('hex')}`,
      data: SILENT_WAV.toString('base64'),
      expires_at: created + 3600,
      transcript: answer.content ?? '',
    },
  }
}

/** 0.1 s of 8 kHz 16-bit mono silence. */
const SILENT_WAV = wavFile({ sampleRate: 8000, channels: 1, bitsPerSample: 16 }, Buffer.alloc(1600))

function messageOf(answer: ChatAnswer): Record<string, unknown> {
  const call = answer.toolCall
  return {
    role: 'assistant',
    content: answer.content,
    refusal: null,
    ...(call
      ? { tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] }
      : {}),
  }
}

function usageOf(answer: ChatAnswer) {
  return {
    prompt_tokens: answer.promptTokens,
    completion_tokens: answer.completionTokens,
    total_tokens: answer.promptTokens + answer.completionTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: answer.reasoningTokens },
  }
}

/** What the transaction of this call records (section 2.2): its model, stream flag, identifier and tokens. */
function recordCall(
  context: RequestContext,
  model: CatalogueModel,
  chat: ChatRequest,
  answer: ChatAnswer,
  rules: ChatRules,
): void {
  context.model = model.id
  context.stream = chat.stream && rules.recordStreamFlag
  if (chat.safetyIdentifier !== undefined) context.safetyIdentifier = chat.safetyIdentifier
  const prompt = answer.promptTokens + (rules.recordUsageTokens ? 0 : 1)
  context.tokens = {
    total: prompt + answer.completionTokens,
    prompt,
    completion: answer.completionTokens,
    reasoning: answer.reasoningTokens,
    cached: 0,
  }
}

/**
 * Part 2 §4.7: a result can be an error object instead of scores. A text-only moderation model cannot moderate
 * an input with an image, so the input side gets the error (see ../moderation/inline.ts); the output side is
 * moderated as before.
 */
function inlineResults(
  results: ReturnType<typeof moderate>,
  model: string,
  messages: unknown,
): Record<string, unknown> {
  const input = messagesHaveImage(messages) && !moderatesImages(model) ? imageNotModerated(model) : results.input
  return { input, output: results.output }
}
