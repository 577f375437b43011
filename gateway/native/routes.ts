/**
 * The native interface (Part 2 sections 2.5, 4.8, 5.1, 5.2): POST /v1beta/models/{model}:{method} on the host
 * root, for the provider's own models only (gateway/native/models.ts).
 *
 * The method follows a colon inside the last path segment, which Fastify would read as a parameter; the route
 * takes the whole segment and splits it at its last colon. Keys come as Authorization: Bearer or as
 * x-native-api-key (section 5.2). Errors answer in the native dialect (gateway/native/errors.ts).
 *
 * streamGenerateContent framing, where the reference says only "streamed in chunks": `?alt=sse` gives
 * server-sent events with one chunk per data-only event; without it the answer is one JSON array whose items
 * are the chunks, written as they are made (the provider's own default). The other named methods have no shapes
 * in the reference: countTokens answers { totalTokens }, and embedContent, batchEmbedContents and predict are
 * refused with 400 for these models, none of which embeds or predicts.
 */
import { PassThrough } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { isObject } from '../../common/json.ts'
import { chargeUsd } from '../account/billing.ts'
import { requireCaller, type Caller, type RequestContext } from '../context.ts'
import { GatewayError, invalidParameter, unprocessable } from '../errors.ts'
import { requireTier } from '../models/access.ts'
import { answerNative, type NativeAnswer } from './answer.ts'
import { nativeErrorDialect } from './errors.ts'
import { isSpeechModel, nativeModel } from './models.ts'
import { NATIVE_TEMPERATURE } from './limits.ts'
import { checkSpeechRequest, parseNativeRequest } from './request.ts'
import { type NativeRules, nativeRules } from './rules.ts'
import { countTokens } from '../simulate/tokenizer.ts'
import { startSse, SSE_WRITER_DEFAULTS, writeEvents, type StreamEvent } from '../sse.ts'
import type { GatewayState } from '../state.ts'
import type { VariationName } from '../variations.ts'
import { varyJson } from '../vary.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { reshapeEvents } from '../faults/events.ts'
import { NATIVE_ANSWER_RESHAPES, NATIVE_STREAM_RESHAPES } from './reshapes.ts'

const GENERATE = new Set(['generateContent', 'streamGenerateContent'])
const SHAPELESS = new Set(['embedContent', 'batchEmbedContents', 'predict'])

export function registerNativeRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, NATIVE_ANSWER_RESHAPES)
    registerRoutes(scope, state)
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState): void {
  const rules = nativeRules(state.faults)
  // Without the key rule, valid keys are identified as usual (their calls keep the rate-limit headers) but no one
  // is refused.
  const config = {
    auth: rules.keyRequired ? ('required' as const) : ('optional' as const),
    nativeKeyHeader: rules.nativeKeyHeader,
  }

  app.post<{ Params: { target: string }; Querystring: { alt?: string } }>(
    '/v1beta/models/:target',
    { config, preSerialization: nativeErrorDialect },
    async (request, reply) => {
      const context = state.contexts.of(request)
      const caller = callerOf(state, rules, context)
      const colon = request.params.target.lastIndexOf(':')
      const id = colon < 0 ? request.params.target : request.params.target.slice(0, colon)
      const method = colon < 0 ? '' : request.params.target.slice(colon + 1)
      if (!GENERATE.has(method) && !SHAPELESS.has(method) && method !== 'countTokens') {
        throw new GatewayError(
          404,
          `Unknown method '${method}': the native interface serves generateContent and streamGenerateContent.`,
        )
      }
      context.model = id
      // Variation native-no-alt: a gateway that keeps its one framing and refuses the provider's alt switch.
      if (state.variations.has('native-no-alt') && request.query.alt !== undefined)
        throw invalidParameter('alt', 'alt is not a parameter of this interface.')
      const model = nativeModel(id)
      if (!model)
        throw new GatewayError(
          404,
          `The model '${id}' is not served by the native interface: it serves only the provider's own models.`,
        )
      requireTier(model, caller)
      // Counts the call against the model's own rate limits (Part 1 section 8.3), as resolveModel does on /v1.
      context.admitModel?.(model)
      const body = parseNativeRequest(asChosen(state.variations, model.id, request.body), rules)
      if (isSpeechModel(model)) checkSpeechRequest(body, rules, state.variations.has('lenient-audio-fields'))
      if (method === 'countTokens')
        return { totalTokens: countTokens(body.instructions ?? '') + countTokens(body.input) }
      if (SHAPELESS.has(method)) throw invalidParameter('model', `The model '${id}' does not support ${method}.`)

      const answer = answerNative(model, body, rules, {
        streamingWav: state.variations.has('streaming-wav'),
        thinkFirst: state.variations.has('native-thinking-first') ? THINK_FIRST_TOKENS : 0,
      })
      record(context, answer, method === 'streamGenerateContent')
      // Section 3 of Part 2 and account/billing.ts: charged when the work starts.
      chargeUsd(caller.account, answer.usd)
      if (method === 'generateContent') return answer.response
      const chunks = reshapeEvents(
        answer.chunks.map((data) => ({ data })),
        state.faults,
        NATIVE_STREAM_RESHAPES,
      )
      await (request.query.alt === 'sse' ? streamSse(reply, chunks) : streamJsonArray(reply, chunks, app.gatewayVary))
      return reply
    },
  )
}

function callerOf(state: GatewayState, rules: NativeRules, context: RequestContext): Caller {
  // Without the key rule, a call without a valid key goes through as the main account.
  if (!context.caller && !rules.keyRequired) return { account: state.accounts.main(), keyForm: 'bearer' }
  const caller = requireCaller(context)
  if (!rules.bearerKey && caller.keyForm === 'bearer') throw new GatewayError(401, 'Send the key in x-native-api-key.')
  return caller
}

/** Variation native-thinking-first: the thinking a reasoning model spends before any text, past a 256-token cap. */
const THINK_FIRST_TOKENS = 512

/**
 * The choices real providers make where §4.8 leaves them open (gateway/variations.ts), in one place: integers
 * written as decimal strings read as integers (native-integer-strings), the cheaper model leaving
 * thinkingLevel medium and images to the other (thinking-levels-per-model, native-images-per-model), the cheaper
 * model thinking always (native-thinking-first), a temperature past its range refused with 422
 * (range-refusals-422), and an unknown thinkingLevel ignored (lenient-enums).
 */
function asChosen(variations: ReadonlySet<VariationName>, id: string, raw: unknown): unknown {
  if (variations.has('native-images-per-model') && id === 'nv-gen-flash' && hasInlineData(raw))
    throw invalidParameter('contents', `${id} takes text only; images are served by nv-gen-pro.`)
  const config = isObject(raw) && isObject(raw.generationConfig) ? raw.generationConfig : undefined
  if (config === undefined) return raw
  const thinking = isObject(config.thinkingConfig) ? config.thinkingConfig : {}
  const { temperature } = config
  if (
    variations.has('range-refusals-422') &&
    typeof temperature === 'number' &&
    (temperature < NATIVE_TEMPERATURE.min || temperature > NATIVE_TEMPERATURE.max)
  )
    throw unprocessable(
      'generationConfig.temperature',
      `temperature must be from ${NATIVE_TEMPERATURE.min.toFixed(1)} to ${NATIVE_TEMPERATURE.max.toFixed(1)}.`,
    )
  if (variations.has('native-thinking-first') && id === 'nv-gen-flash' && thinking.thinkingBudget === 0)
    throw invalidParameter(
      'generationConfig.thinkingConfig.thinkingBudget',
      `${id} always thinks: budget 0 is invalid.`,
    )
  if (
    variations.has('lenient-enums') &&
    typeof thinking.thinkingLevel === 'string' &&
    !['low', 'medium', 'high'].includes(thinking.thinkingLevel)
  ) {
    const { thinkingLevel: _ignored, ...rest } = thinking
    return { ...(raw as Record<string, unknown>), generationConfig: { ...config, thinkingConfig: rest } }
  }
  if (variations.has('thinking-levels-per-model') && id === 'nv-gen-flash' && thinking.thinkingLevel === 'medium')
    throw invalidParameter(
      'generationConfig.thinkingConfig.thinkingLevel',
      `${id} takes thinkingLevel low or high; medium is served by nv-gen-pro.`,
    )
  const max = config.maxOutputTokens
  if (variations.has('native-integer-strings') && typeof max === 'string' && /^\d+$/.test(max))
    return { ...(raw as Record<string, unknown>), generationConfig: { ...config, maxOutputTokens: Number(max) } }
  return raw
}

function hasInlineData(raw: unknown): boolean {
  const contents = isObject(raw) && Array.isArray(raw.contents) ? raw.contents : []
  return contents.some(
    (c) => isObject(c) && Array.isArray(c.parts) && c.parts.some((p) => isObject(p) && (p.inline_data ?? p.inlineData)),
  )
}

function record(context: RequestContext, answer: NativeAnswer, stream: boolean): void {
  context.stream = stream
  context.tokens = {
    total: answer.usage.total,
    prompt: answer.usage.prompt,
    completion: answer.usage.candidates + answer.usage.thoughts,
    reasoning: answer.usage.thoughts,
    cached: 0,
  }
}

async function streamSse(reply: FastifyReply, chunks: readonly StreamEvent[]): Promise<void> {
  const sse = startSse(reply)
  await writeEvents(sse, chunks)
  sse.end()
}

/** The provider's default framing: a JSON array written item by item, through reply.send like every answer. */
async function streamJsonArray(reply: FastifyReply, chunks: readonly StreamEvent[], vary: boolean): Promise<void> {
  const stream = new PassThrough()
  reply.header('content-type', 'application/json; charset=utf-8')
  void reply.send(stream)
  for (const [i, { data }] of chunks.entries()) {
    if (i > 0) await sleep(SSE_WRITER_DEFAULTS.pauseMs)
    stream.write(`${i === 0 ? '[' : ',\r\n'}${JSON.stringify(vary ? varyJson(data) : data)}`)
  }
  stream.end(']')
}
