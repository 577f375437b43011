/**
 * Search (Part 2 sections 2.2, 4.5, 7, 8): POST /v1/search with the tool in search_tool_name, and
 * POST /v1/search/{search_tool_name} with it in the URL. Each call is charged the tool's price per query when the
 * search runs (an array of N queries is N queries) and records the tool as the transaction's model.
 *
 * Where the reference is silent: an unknown tool is 400 in the body form (an invalid parameter, the status section
 * 7 gives) and 404 in the URL form (no such resource, Part 1 section 7); search_tool_name in the body of the URL
 * form is refused with 400 by its request schema (the URL form has it "absent"); the answer carries the results of
 * every query in turn. A search refused by a rate limit is the rate-limit hook's 429 (Part 1 sections 7, 8.3: the
 * tool is a catalogue model with its own limits).
 *
 * The choices real providers make where the reference leaves them open are in ./variations.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AuthPolicy, Caller } from '../context.ts'
import { chargeUsd } from '../account/billing.ts'
import { requireCaller } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { objectBody, requireTier, resolveModel } from '../models/access.ts'
import { readSearchRequest } from './request.ts'
import { searchRules, type SearchRules } from './rules.ts'
import { searchResults } from './results.ts'
import { calledName, findSearchTool, type SearchTool } from './tools.ts'
import { clampedLimits, providerAnswer, refuseArrayOn, toolTier, unknownToolStatus } from './variations.ts'
import type { GatewayState } from '../state.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { SEARCH_ANSWER_RESHAPES, throttledAs500 } from './reshapes.ts'

type Form = 'body' | 'url'

export function registerSearchRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    const rules = searchRules(state.faults)
    reshapeAnswers(scope, state.faults, SEARCH_ANSWER_RESHAPES)
    if (!rules.throttleAs429) throttledAs500(scope)
    registerRoutes(scope, state, rules)
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState, rules: SearchRules): void {
  const { variations } = state
  const realNames = variations.has('real-names')
  // Without the key rule, calls without a valid key get through: "optional" is the auth hook's policy for unknown
  // routes (identify a caller when the key is valid, refuse no one).
  const config = rules.requireKey ? {} : { config: { auth: 'optional' as AuthPolicy } }

  const toolOf = (request: FastifyRequest, body: Record<string, unknown>, form: Form): SearchTool => {
    // A string by the request schemas, which refuse it in the body of the URL form.
    const name =
      form === 'url' ? (request.params as { tool: string }).tool : (body.search_tool_name as string | undefined)
    // Empty is as good as missing, which only a fault that lifts the requirement lets through.
    if (name === undefined || name === '') {
      if (rules.requireToolName)
        throw invalidParameter(
          'search_tool_name',
          'search_tool_name is required on POST /v1/search: one of the search tools (or use POST /v1/search/{search_tool_name}).',
        )
      return findSearchTool('p1-search') as SearchTool // the reference name: the bent rule is about the field
    }
    const tool = findSearchTool(name, realNames)
    if (!tool) {
      if (!rules.refuseUnknownTool) throw new GatewayError(500, 'The search backend failed.')
      throw new GatewayError(unknownToolStatus(form, variations), `There is no search tool '${name}'.`, {
        code: 'model_not_found',
        param: 'search_tool_name',
      })
    }
    // A tool that is offered but whose provider is not wired: a server error, not an unknown name.
    if (rules.unwiredTools.includes(tool.name))
      throw new GatewayError(500, `The provider of '${name}' is not available.`)
    return tool
  }

  const handle = (form: Form) => async (request: FastifyRequest) => {
    const context = state.contexts.of(request)
    const caller: Caller | null = rules.requireKey ? requireCaller(context) : context.caller
    const body = objectBody(request.body)
    const tool = toolOf(request, body, form)
    const model = resolveModel(tool.name, context, { modes: ['search'], endpoint: 'search' })
    context.model = calledName(tool, realNames)
    if (caller) requireTier(toolTier(tool, model, variations), caller)
    refuseArrayOn(tool, body.query, variations)
    const search = readSearchRequest(clampedLimits(body, variations), tool.group, rules)
    const count = search.maxResults + rules.resultsBeyondMax
    const results = searchResults(
      calledName(tool, realNames),
      rules.honourDomainFilter ? search : { ...search, domains: [] },
      count,
    )
    const queries = rules.chargePerQuery ? search.queries.length : 1
    if (caller) chargeUsd(caller.account, tool.usdPerQuery * queries)
    return providerAnswer({ object: 'search', results }, variations)
  }

  if (rules.offersBodyForm) app.post('/v1/search', config, handle('body'))
  if (rules.offersUrlForm) app.post('/v1/search/:tool', config, handle('url'))
}
