/**
 * The layer where faults that only bend the shared headers of a response are applied, beside ./answers.ts and
 * ./events.ts: after the onSend steps wrote the headers as the reference says, such a fault drops or changes
 * some of them. Faults that change which id a call gets, what is counted or limited, or a value the headers are
 * computed from (a bucket's reset time) stay in the hooks.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RequestContext } from '../context.ts'
import type { GatewayState } from '../state.ts'

/** Bends the headers of one response, given its call's context and the gateway clock's time. */
export type HeaderReshape = (reply: FastifyReply, context: RequestContext, nowMs: number) => void

/**
 * A family's header reshapes by fault name (typed by its family's names), in the order they apply when several are on.
 */
export type HeaderReshapes<Name extends string> = Partial<Record<Name, HeaderReshape>>

/** The onSend step that applies the header reshapes whose fault is on; none for the faithful gateway. */
export function reshapeHeaders(
  state: GatewayState,
  ...families: HeaderReshapes<string>[]
): ((request: FastifyRequest, reply: FastifyReply, now: number) => void) | undefined {
  const active = families.flatMap((reshapes) =>
    Object.entries(reshapes).flatMap(([name, reshape]) =>
      reshape !== undefined && state.faults.has(name) ? [reshape] : [],
    ),
  )
  if (active.length === 0) return undefined
  return (request, reply, now) => {
    const context = state.contexts.of(request)
    for (const reshape of active) reshape(reply, context, now)
  }
}

/** A reshape of the responses with status >= 400 alone. */
export function onErrors(reshape: HeaderReshape): HeaderReshape {
  return (reply, context, now) => {
    if (reply.statusCode >= 400) reshape(reply, context, now)
  }
}

export const RATE_LIMIT_BUCKETS = ['requests', 'tokens', 'project-tokens'] as const
