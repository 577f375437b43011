/**
 * What answers when no route does, or a route fails: unknown routes, thrown errors and the framework's
 * own errors (malformed JSON, unsupported content type, undecodable URL). All of them still carry the
 * shared headers and are recorded, like any other call.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { compatibleError, type ErrorFamily, errorBody, GatewayError, usageError } from './errors.ts'
import type { GatewayState } from './state.ts'

export function registerFallbacks(app: FastifyInstance, state: GatewayState): void {
  // Section 1.6: calling an unavailable route can return an unsupported-route error. Its status is not
  // shown; 404 (resource missing) is the reading of section 7.
  app.setNotFoundHandler(async (request, reply) => {
    const { path } = state.contexts.of(request)
    const message = `Unknown route: ${request.method} ${path}`
    return reply
      .code(404)
      .send(
        dialectOf(state, request, 404) === 'usage'
          ? usageError(404, message)
          : compatibleError(404, message, { code: 'unsupported_route' }),
      )
  })

  app.setErrorHandler(async (error: FastifyError | GatewayError, request, reply) =>
    sendError(state, request, reply, error),
  )
}

/**
 * Any error as a GatewayError. Framework errors in the 4xx range are the caller's fault and become
 * 400 (the status section 7 gives for an invalid request); anything else is a 500 whose details stay
 * inside.
 */
export function asGatewayError(error: FastifyError | GatewayError): GatewayError {
  if (error instanceof GatewayError) return error
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return new GatewayError(400, error.message)
  return new GatewayError(500, 'The gateway failed to process the request.')
}

/**
 * Route options under a fault that lets the framework's refusal of a body (not JSON, too deep) escape as a 500,
 * where §7 gives 400 invalid request.
 */
export function parseErrorsAs500(state: GatewayState) {
  return {
    errorHandler: (error: FastifyError | GatewayError, request: FastifyRequest, reply: FastifyReply) =>
      sendError(
        state,
        request,
        reply,
        !(error instanceof GatewayError) && error.statusCode === 400 ? new GatewayError(500, 'Internal error.') : error,
      ),
  }
}

/** Renders an error in the dialect of the request's path family. */
export function sendError(
  state: GatewayState,
  request: FastifyRequest,
  reply: FastifyReply,
  error: FastifyError | GatewayError,
): FastifyReply {
  const failure = asGatewayError(error)
  return reply.code(failure.status).send(errorBody(dialectOf(state, request, failure.status), failure))
}

/**
 * Part 1 §7 shows the compatible error object for 429 only ("Error body shapes for 400, 404 and 500 on compatible
 * endpoints are not shown"): under the error-body-shape variation those three answer in the usage dialect. Speech
 * synthesis keeps the body Part 2 §7 states for it.
 */
function dialectOf(state: GatewayState, request: FastifyRequest, status: number): ErrorFamily {
  const { family, path } = state.contexts.of(request)
  const open = family === 'compatible' && path.startsWith('/v1/') && !path.startsWith('/v1/text:synthesize')
  return open && state.variations.has('error-body-shape') && [400, 404, 500].includes(status) ? 'usage' : family
}
