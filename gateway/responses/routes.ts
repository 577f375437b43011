/**
 * The responses endpoint (Part 1 §2.5, §2.7, §3, §4.5, §6.2-6.4, §7): POST /v1/responses, plain or streamed,
 * in the foreground or the background, with stored chains; and the related paths whose shapes the reference
 * does not show, answered in the convention: retrieval, input items and cancel. POST /v1/responses/compact is
 * "when enabled" and is not, here: it answers the unknown-route 404.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { asGatewayError, sendError } from '../fallbacks.ts'
import { requireCaller, type Caller, type RequestContext, type TokenCounts } from '../context.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { RESPONSES_ANSWER_RESHAPES } from './reshapes.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { objectBody, requireModelId, requireTier, resolveModel } from '../models/access.ts'
import type { CatalogueModel } from '../models/catalogue.ts'
import { integerParam, singleParam, type RawQuery } from '../query-params.ts'
import type { GatewayState } from '../state.ts'
import { backgroundTiming, cancelBackground, isRunning, runInBackground } from './background.ts'
import { newId, runModel, type Run } from './generation.ts'
import { inputItemViews, type InputItem } from './input.ts'
import { checkModerationModel, inlineModeration } from './moderation.ts'
import { renderResponse, type Draft, type Phase } from './response-object.ts'
import { responseStore, type ResponseStore, type StoredResponse } from './store.ts'
import { streamResponse } from './stream.ts'
import { parseCreateRequest, type CreateRequest } from './validate.ts'
import { responseRules, type ResponseRules } from './rules.ts'
import { hasIssuedForm, responseChoices, type ResponseChoices } from './variations.ts'

/** Large enough for an input over the biggest context window of the catalogue, in the simulator's tokens. */
const BODY_LIMIT_BYTES = 32 * 1024 * 1024
const INPUT_ITEMS_LIMIT = { min: 1, max: 100 } as const // the convention's list limit; not shown in the reference
const INPUT_ITEMS_DEFAULT = 20
const RESPONSES_RULES = { modes: ['chat'], endpoint: 'responses' } as const

export function registerResponseRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, RESPONSES_ANSWER_RESHAPES)
    const rules = responseRules(state.faults)
    if (!rules.jsonErrors)
      scope.setErrorHandler(async (error: FastifyError | GatewayError, request, reply) =>
        plainError(state, request, reply, error),
      )
    registerRoutes(scope, state, rules)
  })
}

/** What the responses routes share: the gateway, the family's rules, the real providers' choices and the store. */
interface Responses {
  readonly state: GatewayState
  readonly rules: ResponseRules
  readonly choices: ResponseChoices
  readonly store: ResponseStore
}

function registerRoutes(app: FastifyInstance, state: GatewayState, rules: ResponseRules): void {
  const responses: Responses = { state, rules, choices: responseChoices(state.variations), store: responseStore(state) }
  app.addHook('onClose', async () => responses.store.close())
  registerCreate(app, responses)
  registerStored(app, responses)
}

function registerCreate(app: FastifyInstance, responses: Responses): void {
  const { state, rules, choices, store } = responses
  app.post<{ Body: unknown }>('/v1/responses', { bodyLimit: BODY_LIMIT_BYTES }, async (request, reply) => {
    const context = state.contexts.of(request)
    const caller = requireCaller(context)
    const { model, req, prior } = readCreate(request.body, context, caller, responses)
    const run = runModel(req, model, prior?.draft.run, rules, choices.thinkFirst, choices.wholeItemTruncation)
    const draft: Draft = {
      id: newId('resp'),
      createdAt: Math.floor(state.clock.now() / 1000),
      model: model.id,
      req,
      run,
      moderation:
        req.moderationModel === undefined || !choices.inlineModeration
          ? undefined
          : choices.inlineShape(inlineModeration(req.moderationModel, run.moderationText, inputImages(req.input))),
    }
    context.tokens = tokenCounts(run)
    const render = (phase: Phase) => choices.shape(renderResponse(draft, phase))
    const entry: StoredResponse = {
      accountId: caller.account.id,
      draft,
      body: render('final'),
      inputItems: inputItemViews(req.input),
      timers: [],
    }
    if (req.store) store.put(entry)
    else if (rules.chainsUnstored) store.put({ ...entry, chainOnly: true })

    if (req.background && choices.background) {
      runInBackground(entry, render, backgroundTiming(state.varyLatencyMs))
      return entry.body
    }
    if (req.stream && rules.streams) {
      context.stream = rules.recordStreamFlag
      if (!rules.recordStreamTokens) context.tokens = tokenCounts(undefined)
      // The transaction is recorded when the stream starts; the tokens are final already, as the whole
      // answer is generated before the first event.
      await streamResponse(reply, draft, { faults: state.faults, paced: rules.pacedStream }, render)
      // Reply is a thenable that settles when the response has finished: Fastify then sends nothing more.
      return reply
    }
    return entry.body
  })
}

/** The model, the request and the prior turn of a create, each refused as the reference says. */
function readCreate(
  body: unknown,
  context: RequestContext,
  caller: Caller,
  { state, rules, choices, store }: Responses,
): { model: CatalogueModel; req: CreateRequest; prior: StoredResponse | undefined } {
  const fields = objectBody(body)
  // The model first, as chat completions do, so that a refused call still records the model it named.
  const model = resolveModel(requireModelId(fields), context, RESPONSES_RULES)
  requireTier(model, caller, state.tiers)
  const chosenRefusal =
    choices.bodyRefusal(fields) ?? choices.conversation(fields) ?? choices.modelRefusal(model.id, fields)
  if (chosenRefusal) throw chosenRefusal
  const req = parseCreateRequest(fields, rules)
  context.safetyIdentifier = req.safetyIdentifier ?? null
  if (req.maxOutputTokens !== undefined && req.maxOutputTokens > model.maxOutputTokens) {
    throw invalidParameter('max_output_tokens', `max_output_tokens is at most ${model.maxOutputTokens} for ${model.id}`)
  }
  if (req.moderationModel !== undefined) checkModerationModel(req.moderationModel)
  // Reasonable where the reference is silent: a background job must be stored to be polled, and is not streamed.
  if (req.background && !req.store) throw invalidParameter('background', 'background responses need store true')
  if (req.background && req.stream) throw invalidParameter('background', 'background responses cannot be streamed here')
  const prior = req.previousResponseId === undefined ? undefined : store.get(req.previousResponseId, caller.account.id)
  if (req.previousResponseId !== undefined && !prior) {
    throw invalidParameter(
      'previous_response_id',
      `No stored response '${req.previousResponseId}' (a response created with store false cannot be continued).`,
    )
  }
  return { model, req, prior }
}

/** Retrieve, input items and cancel of a stored response. */
function registerStored(app: FastifyInstance, responses: Responses): void {
  const { state, rules, choices } = responses
  const ownEntry = (request: FastifyRequest, id: string): StoredResponse =>
    storedEntry(responses, id, requireCaller(state.contexts.of(request)).account.id)

  app.get<{ Params: { id: string } }>('/v1/responses/:id', async (request) => {
    const entry = ownEntry(request, request.params.id)
    if (!rules.servesRetrieve) throw notFound(request.params.id)
    state.contexts.of(request).model = entry.draft.model
    return entry.body
  })

  app.get<{ Params: { id: string }; Querystring: RawQuery }>('/v1/responses/:id/input_items', async (request) => {
    if (!rules.servesInputItems) throw notFound(request.params.id)
    const entry = ownEntry(request, request.params.id)
    const { query } = request
    const order = singleParam(query, 'order') ?? 'desc'
    if (order !== 'asc' && order !== 'desc') throw invalidParameter('order', 'order must be asc or desc')
    const limit = integerParam(query, 'limit', INPUT_ITEMS_LIMIT) ?? INPUT_ITEMS_DEFAULT
    const items = order === 'asc' ? [...entry.inputItems] : [...entry.inputItems].reverse()
    const after = singleParam(query, 'after')
    const start = after === undefined ? 0 : items.findIndex((item) => item.id === after) + 1
    const page = items.slice(start, start + limit)
    return {
      object: 'list',
      data: page,
      first_id: page[0]?.id ?? null,
      last_id: page[page.length - 1]?.id ?? null,
      has_more: start + limit < items.length,
    }
  })

  app.post<{ Params: { id: string } }>('/v1/responses/:id/cancel', async (request) => {
    if (!rules.servesCancel) throw notFound(request.params.id)
    const entry = ownEntry(request, request.params.id)
    if (!entry.draft.req.background)
      throw invalidParameter('response_id', 'Only background responses can be cancelled.')
    if (!isRunning(entry))
      throw invalidParameter('response_id', `The response is already ${String(entry.body.status)}.`)
    cancelBackground(entry, (phase) => choices.shape(renderResponse(entry.draft, phase)))
    return entry.body
  })
}

/** A 400 as plain text, its message alone; any other error as every route answers it. */
function plainError(
  state: GatewayState,
  request: FastifyRequest,
  reply: FastifyReply,
  error: FastifyError | GatewayError,
): FastifyReply {
  const failure = asGatewayError(error)
  if (failure.status !== 400) return sendError(state, request, reply, error)
  return reply.code(400).type('text/plain; charset=utf-8').send(failure.message)
}

function notFound(id: string): GatewayError {
  return new GatewayError(404, `No response with id '${id}'.`, { code: 'response_not_found', param: 'response_id' })
}

function storedEntry({ rules, choices, store }: Responses, id: string, accountId: string): StoredResponse {
  const entry = store.get(id, accountId)
  if (entry && !entry.chainOnly) return entry
  if (rules.neverIssuedResponseStatus === 500 && !hasIssuedForm(id))
    throw new GatewayError(500, 'The server had an error while processing your request.', { type: 'server_error' })
  if (rules.missingResponseStatus === 400) throw invalidParameter('response_id', `Invalid response id '${id}'.`)
  throw choices.unknownId(id) ?? notFound(id)
}

function tokenCounts(run: Run | undefined): TokenCounts {
  const usage = run?.usage ?? { inputTokens: 0, outputTokens: 0, reasoningTokens: 0 }
  return {
    prompt: usage.inputTokens,
    completion: usage.outputTokens,
    reasoning: usage.reasoningTokens,
    cached: 0,
    total: usage.inputTokens + usage.outputTokens,
  }
}

/** The image sources of the input's messages: what inline moderation must moderate besides the text. */
function inputImages(input: readonly InputItem[]): string[] {
  return input.flatMap((item) =>
    item.type === 'message' ? item.parts.flatMap((part) => (part.type === 'input_image' ? [part.source] : [])) : [],
  )
}
