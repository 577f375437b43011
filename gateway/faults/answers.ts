/**
 * The layer where faults that only reshape an answer are applied. Such a fault takes the correct answer a route
 * gave and bends its body, so it needs no branch in the route: the route reads as the reference says, and a
 * family lists its reshapes in its reshapes.ts, beside the faults.ts that names them. Faults that change what is
 * stored, counted, limited or timed bend a value of the family's rules (<family>/rules.ts) instead.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { isObject } from '../../common/json.ts'
import type { FaultSet } from './definition.ts'

/** Bends one successful JSON answer; `route` is its method and pattern, e.g. 'GET /v1/videos/:video_id'. */
export type AnswerReshape = (answer: unknown, route: string, request: FastifyRequest) => unknown

/** A family's reshapes by fault name (typed by its family's names), in the order they apply when several are on. */
export type AnswerReshapes<Name extends string> = Partial<Record<Name, AnswerReshape>>

/**
 * Applies the reshapes whose fault is on to the answers of the routes registered in `scope`. The faithful gateway
 * gets no hook at all. Errors are left alone: they are no answer a reshape knows.
 */
export function reshapeAnswers(scope: FastifyInstance, faults: FaultSet, reshapes: AnswerReshapes<string>): void {
  const active = Object.entries(reshapes).flatMap(([name, reshape]) =>
    reshape !== undefined && faults.has(name) ? [reshape] : [],
  )
  if (active.length === 0) return
  scope.addHook('preSerialization', async (request, reply, payload) => {
    if (reply.statusCode >= 400) return payload
    const route = `${request.method} ${request.routeOptions.url}`
    return active.reduce((answer, reshape) => reshape(answer, route, request), payload)
  })
}

type Body = Record<string, unknown>

/** A reshape of the answers of `routes` that are JSON objects. */
export function onRoutes(
  routes: readonly string[],
  reshape: (body: Body, request: FastifyRequest) => unknown,
): AnswerReshape {
  return (answer, route, request) => (routes.includes(route) && isObject(answer) ? reshape(answer, request) : answer)
}

/** A reshape of each object in an array of the answer on `route`: by default the `data` of a list. */
export function eachListed(
  route: string,
  reshape: (item: Body, request: FastifyRequest) => Body,
  field = 'data',
): AnswerReshape {
  return onRoutes([route], (answer, request) => {
    const items = answer[field]
    return Array.isArray(items)
      ? { ...answer, [field]: items.map((item: unknown) => (isObject(item) ? reshape(item, request) : item)) }
      : answer
  })
}

/** Several reshapes in turn: one fault that bends the answers of several routes. */
export function inTurn(...reshapes: AnswerReshape[]): AnswerReshape {
  return (answer, route, request) => reshapes.reduce((body, reshape) => reshape(body, route, request), answer)
}
