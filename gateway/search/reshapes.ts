/** The search faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import type { FastifyInstance } from 'fastify'
import { compatibleError } from '../errors.ts'
import { onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import type { SearchFault } from './faults.ts'

/**
 * The search faults that only reshape an answer (../faults/answers.ts); the others bend what is accepted, found or
 * charged.
 */
export const SEARCH_ANSWER_RESHAPES: AnswerReshapes<SearchFault> = {
  'search-object-wrong': onRoutes(['POST /v1/search', 'POST /v1/search/:tool'], (answer) => ({
    ...answer,
    object: 'search_result',
  })),
}

/** search-throttle-500: every 429 of the search routes, the rate-limit hook's included, leaves as a 500. */
export function throttledAs500(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode !== 429) return payload
    reply.code(500)
    reply.removeHeader('retry-after')
    return JSON.stringify(compatibleError(500, 'The search backend failed.'))
  })
}
