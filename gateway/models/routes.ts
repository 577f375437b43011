/**
 * The model endpoints (Part 1 sections 2.3 and 4.3): GET /v1/models, GET /v1/models/{model_id} and
 * GET /public/models. The key's header picks the format: Bearer gives the compatible shapes,
 * x-api-key the alternate ones with cursor paging.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import { findVariedModel, variedCatalogue, variedRetrieve } from './varied.ts'
import { requireCaller } from '../context.ts'
import { pageByCursor } from './cursor-page.ts'
import { GatewayError } from '../errors.ts'
import { alternateItem, alternateRetrieve, bareModel, bearerListItem, bearerRetrieve, listItem } from './views.ts'
import { integerParam, singleParam, type RawQuery } from '../query-params.ts'
import type { Tier } from '../limit-tables.ts'
import type { GatewayState } from '../state.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { MODELS_ANSWER_RESHAPES } from './reshapes.ts'
import { modelsRules, type ModelsRules } from './rules.ts'

/** The alternate list's page size; the reference names `limit` without a range, so this mirrors page_size's. */
const ALTERNATE_LIMIT = { min: 1, max: 1_000 } as const
const ALTERNATE_LIMIT_DEFAULT = 20

/** Fastify's own content type for the JSON it serializes, so that a cached body goes out with the same header. */
const JSON_TYPE = 'application/json; charset=utf-8'

/** Sends an already serialized JSON body: a string with a JSON content type skips Fastify's serializer. */
function sendJson(reply: FastifyReply, text: string): string {
  reply.header('content-type', JSON_TYPE)
  return text
}

export function registerModelRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, MODELS_ANSWER_RESHAPES)
    registerRoutes(scope, state, modelsRules(state.faults))
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState, rules: ModelsRules): void {
  const catalogue = variedCatalogue(state.variations)
  // The catalogue lists are pure functions of the constant catalogue, this gateway's rules and (Bearer list)
  // the caller's tier, so each is built and serialized once instead of on every call, where serializing the
  // whole list would be most of its cost. Keyed by tier, since an account's tier can change.
  let publicList: string | undefined
  const bearerLists = new Map<Tier, string>()
  const bearerList = (tier: Tier): string => {
    let text = bearerLists.get(tier)
    if (text === undefined) {
      text = JSON.stringify({
        object: 'list',
        data: catalogue.map((model) => (state.bareModels ? bareModel(model) : bearerListItem(model, tier, rules))),
      })
      bearerLists.set(tier, text)
    }
    return text
  }

  // The lists' handlers are synchronous, as their answers are ready at once: an async one would cost every call a
  // promise and a tick. What they return or throw is answered as an async handler's would be.
  app.get('/public/models', { config: { auth: 'none' } }, (_request, reply) => {
    publicList ??= JSON.stringify({
      object: 'list',
      data: catalogue.map((model) => (state.bareModels ? bareModel(model) : listItem(model, rules))),
    })
    return sendJson(reply, publicList)
  })

  app.get<{ Querystring: RawQuery }>('/v1/models', { config: { apiKeyHeader: true } }, (request, reply) => {
    const caller = requireCaller(state.contexts.of(request))
    if (caller.keyForm === 'x-api-key' && rules.alternateFormat) {
      const { query } = request
      const page = pageByCursor(catalogue, {
        afterId: rules.honourAfterId ? singleParam(query, 'after_id') : undefined,
        beforeId: singleParam(query, 'before_id'),
        limit: rules.honourLimit
          ? (integerParam(query, 'limit', ALTERNATE_LIMIT) ?? ALTERNATE_LIMIT_DEFAULT)
          : Number.POSITIVE_INFINITY,
      })
      return {
        data: page.items.map(alternateItem),
        first_id: page.firstId,
        last_id: page.lastId,
        has_more: page.hasMore,
      }
    }
    return sendJson(reply, bearerList(caller.account.tier))
  })

  app.get<{ Params: { model_id: string } }>(
    '/v1/models/:model_id',
    { config: { apiKeyHeader: true } },
    async (request) => {
      const caller = requireCaller(state.contexts.of(request))
      const id = request.params.model_id
      const model = findVariedModel(id, state.variations)
      if (!model) {
        if (rules.unknownModelStatus === 500) throw new GatewayError(500, 'The model lookup failed.')
        throw new GatewayError(404, `The model '${id}' does not exist.`, { code: 'model_not_found', param: 'model_id' })
      }
      if (state.bareModels) return bareModel(model)
      const tier = caller.account.tier
      const body =
        caller.keyForm === 'x-api-key' ? alternateRetrieve(model, tier, rules) : bearerRetrieve(model, tier, rules)
      return variedRetrieve(body, model, tier, state.variations)
    },
  )
}
