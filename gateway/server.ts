/**
 * Builds one reference gateway: its in-memory state and the Fastify app with the shared hooks and the
 * routes. Hook order matters and is the order of the reference's concerns:
 *
 *   onRequest: authenticate (401/403), then count against the rate limits (429): one hook
 *   handler:   the route
 *   onSend:    Date, svc-request-id / x-request-id, x-ratelimit-* headers, then record the transaction
 *
 * Later endpoint families add one `register...Routes` call here.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { asGatewayError, registerFallbacks, sendError } from './fallbacks.ts'
import { registerJsonBodyParser } from './json-body.ts'
import { registerRequestValidation } from './request-validation.ts'
import { authHook } from './hooks/auth.ts'
import { dateHeader } from './hooks/date-header.ts'
import { registerAdminRoutes } from './admin.ts'
import { countFinishedCall, rateLimitHeaders, rateLimitHook } from './hooks/rate-limit.ts'
import { storeTransaction } from './hooks/store-transaction.ts'
import { createRequestIdMinter, requestIdHeaders } from './hooks/request-id.ts'
import { unvaryJson, unvaryUrl, varyHeaders, varyJsonText } from './vary.ts'
import { registerAccountRoutes } from './account/routes.ts'
import { registerAudioRoutes } from './audio/routes.ts'
import { registerChatRoutes } from './chat/routes.ts'
import { registerCompatibleRoutes } from './compatible/routes.ts'
import { registerFileRoutes } from './files/routes.ts'
import { registerModelRoutes } from './models/routes.ts'
import { registerNativeRoutes } from './native/routes.ts'
import { registerModerationRoutes } from './moderation/routes.ts'
import { registerResponseRoutes } from './responses/routes.ts'
import { registerSearchRoutes } from './search/routes.ts'
import { registerOcrRoutes } from './ocr/routes.ts'
import { registerSynthesizeRoutes } from './synthesize/routes.ts'
import { registerUnavailableRoutes } from './unavailable/routes.ts'
import { registerVideoRoutes } from './videos/routes.ts'
import { createState, type GatewayConfig, type GatewayState } from './state.ts'
import { HEADERS_HEADER_RESHAPES } from './hooks/headers-reshapes.ts'
import { reshapeHeaders } from './faults/reply-headers.ts'
import { TIERS_HEADER_RESHAPES } from './hooks/tiers-reshapes.ts'

export type { GatewayConfig, GatewayState } from './state.ts'

/** One step of finishing a response (headers, then the record), given the gateway clock's time. */
type ResponseStep = (request: FastifyRequest, reply: FastifyReply, now: number) => void

export interface Gateway {
  readonly app: FastifyInstance
  readonly state: GatewayState
}

export function createGateway(config: GatewayConfig = {}): Gateway {
  const state = createState(config)
  const headerFaults = reshapeHeaders(state, HEADERS_HEADER_RESHAPES, TIERS_HEADER_RESHAPES)
  const responseSteps: ResponseStep[] = [
    dateHeader(),
    requestIdHeaders(state),
    rateLimitHeaders(state),
    ...(headerFaults ? [headerFaults] : []),
    ...(state.vary ? [(_request: FastifyRequest, reply: FastifyReply) => varyHeaders(reply)] : []),
    storeTransaction(state),
  ]
  const finishResponse = (request: FastifyRequest, reply: FastifyReply): void => {
    // One reading of the clock for all the steps: the Date header, the id headers, the resets and the record agree.
    const now = state.clock.now()
    for (const step of responseSteps) step(request, reply, now)
  }

  const app = Fastify({
    logger: false,
    // Clients' request-id headers never become the svc-request-id (section 4.1).
    requestIdHeader: false,
    // Allowed variation: ids handed out in another format come back in URLs; route them as the originals.
    ...(state.vary ? { rewriteUrl: (req: { url?: string }) => unvaryUrl(req.url ?? '/') } : {}),
    genReqId: createRequestIdMinter(state.clock, state.faults),
    // Errors Fastify raises before routing (an undecodable URL) bypass the onSend hooks, so the
    // response steps run here by hand.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      reply.code(asGatewayError(error).status)
      finishResponse(request, reply)
      return sendError(state, request, reply, error)
    },
  })

  if (state.vary) {
    app.addHook('preValidation', async (request) => {
      if (request.body !== undefined && typeof request.body === 'object') request.body = unvaryJson(request.body)
    })
  }
  const authenticated = authHook(state)
  const countRequest = rateLimitHook(state)
  // Authentication, then the rate limits, in one hook: a second hook would cost every call a step of Fastify's hook
  // runner. A refusal has sent its answer and does not call done.
  app.addHook('onRequest', (request, reply, done) => {
    if (authenticated(request, reply)) countRequest(request, reply, done)
  })
  const finishCall = countFinishedCall(state)
  // Callback style, as the onRequest hook: each step is synchronous, and an async hook would cost every call a
  // promise and a tick.
  app.addHook('onResponse', (request, reply, done) => {
    finishCall(request, reply)
    done()
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    finishResponse(request, reply)
    // Allowed variation (§9.2): JSON bodies gain unknown properties and lose their key order.
    if (state.vary && typeof payload === 'string' && /json/.test(String(reply.getHeader('content-type') ?? '')))
      return done(null, varyJsonText(payload))
    done(null, payload)
  })
  if (state.vary && state.varyLatencyMs > 0) {
    // Allowed variation: a slow network or a busy upstream, as time before the route answers. It runs once the
    // call is counted and its body read (a client that hangs up after sending has still submitted it), and
    // before the route, so that a stream's events keep their spacing instead of piling up behind a held reply.
    app.addHook('preHandler', (_request, _reply, done) => void setTimeout(done, state.varyLatencyMs))
  }

  app.decorate('gatewayVary', state.vary)
  registerFallbacks(app, state)
  registerJsonBodyParser(app)
  registerRequestValidation(app, state)
  registerModelRoutes(app, state)
  registerAccountRoutes(app, state)
  registerFileRoutes(app, state)
  registerResponseRoutes(app, state)
  registerChatRoutes(app, state)
  registerUnavailableRoutes(app, state)
  registerCompatibleRoutes(app, state)
  registerAudioRoutes(app, state)
  registerSearchRoutes(app, state)
  registerOcrRoutes(app, state)
  registerNativeRoutes(app, state)
  registerSynthesizeRoutes(app, state)
  registerAdminRoutes(app, state)
  registerModerationRoutes(app, state)
  registerVideoRoutes(app, state)
  return { app, state }
}
