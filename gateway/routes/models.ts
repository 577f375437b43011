/**
 * The model endpoints (Part 1 sections 2.3 and 4.3): GET /v1/models, GET /v1/models/{model_id} and
 * GET /public/models. The key's header picks the format: Bearer gives the compatible shapes,
 * x-api-key the alternate ones with cursor paging.
 */
import type { FastifyInstance } from 'fastify'
import { CATALOGUE, findModel } from '../catalogue.ts'
import { requireCaller } from '../context.ts'
import { pageByCursor } from '../cursor-page.ts'
import { GatewayError } from '../errors.ts'
import { alternateItem, alternateRetrieve, bearerListItem, bearerRetrieve, listItem } from '../model-views.ts'
import { integerParam, singleParam, type RawQuery } from '../query-params.ts'
import type { GatewayState } from '../state.ts'

/** The alternate list's page size; the reference names `limit` without a range, so this mirrors page_size's. */
const ALTERNATE_LIMIT = { min: 1, max: 1_000 } as const
const ALTERNATE_LIMIT_DEFAULT = 20

export function registerModelRoutes(app: FastifyInstance, state: GatewayState): void {
  const { faults } = state

  app.get('/public/models', { config: { auth: 'none' } }, async () => ({
    object: 'list',
    data: CATALOGUE.map((model) => listItem(model, faults)),
  }))

  app.get<{ Querystring: RawQuery }>('/v1/models', { config: { apiKeyHeader: true } }, async (request) => {
    const caller = requireCaller(state.contexts.of(request))
    if (caller.keyForm === 'x-api-key' && !faults.has('alternate-format-ignored')) {
      const { query } = request
      const page = pageByCursor(CATALOGUE, {
        afterId: faults.has('alternate-after-id-ignored') ? undefined : singleParam(query, 'after_id'),
        beforeId: singleParam(query, 'before_id'),
        limit: faults.has('alternate-limit-ignored')
          ? Number.POSITIVE_INFINITY
          : (integerParam(query, 'limit', ALTERNATE_LIMIT) ?? ALTERNATE_LIMIT_DEFAULT),
      })
      return { data: page.items.map(alternateItem), first_id: page.firstId, last_id: page.lastId, has_more: page.hasMore }
    }
    return { object: 'list', data: CATALOGUE.map((model) => bearerListItem(model, caller.account.tier, faults)) }
  })

  app.get<{ Params: { model_id: string } }>('/v1/models/:model_id', { config: { apiKeyHeader: true } }, async (request) => {
    const caller = requireCaller(state.contexts.of(request))
    const id = request.params.model_id
    const model = findModel(id)
    if (!model) {
      if (faults.has('unknown-model-500')) throw new GatewayError(500, 'The model lookup failed.')
      throw new GatewayError(404, `The model '${id}' does not exist.`, { code: 'model_not_found', param: 'model_id' })
    }
    return caller.keyForm === 'x-api-key'
      ? alternateRetrieve(model, caller.account.tier, faults)
      : bearerRetrieve(model, caller.account.tier, faults)
  })
}
