/**
 * Search (Part 2 sections 2.2, 4.5, 7, 8): POST /v1/search with the tool in search_tool_name, and
 * POST /v1/search/{search_tool_name} with it in the URL. Each call is charged the tool's price per query when the
 * search runs (an array of N queries is N queries) and records the tool as the transaction's model.
 *
 * Where the reference is silent: an unknown tool is 400 in the body form (an invalid parameter, the status section
 * 7 gives) and 404 in the URL form (no such resource, Part 1 section 7); search_tool_name in the body of the URL
 * form is ignored when it names the same tool and refused with 400 when it names another (the URL form has it
 * "absent"); the answer carries the results of every query in turn.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AuthPolicy, Caller } from '../context.ts'
import { chargeUsd } from '../account/billing.ts'
import { requireCaller } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { objectBody, requireTier, resolveModel } from '../models/access.ts'
import { readSearchRequest } from './request.ts'
import { searchResults } from './results.ts'
import { findSearchTool, type SearchTool } from './tools.ts'
import type { GatewayState } from '../state.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { SEARCH_ANSWER_RESHAPES } from '../faults/search.ts'

type Form = 'body' | 'url'

export function registerSearchRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, SEARCH_ANSWER_RESHAPES)
    registerRoutes(scope, state)
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState): void {
  const { faults } = state
  // The fault lets calls without a valid key through: "optional" is the auth hook's policy for unknown routes
  // (identify a caller when the key is valid, refuse no one).
  const config = faults.has('search-key-not-required') ? { config: { auth: 'optional' as AuthPolicy } } : {}

  const toolOf = (request: FastifyRequest, body: Record<string, unknown>, form: Form): SearchTool => {
    const named = body.search_tool_name
    const inUrl = form === 'url' ? (request.params as { tool: string }).tool : undefined
    const name = inUrl ?? named
    if (name === undefined || name === null || name === '') {
      if (!faults.has('search-tool-defaulted'))
        throw invalidParameter(
          'search_tool_name',
          'search_tool_name is required on POST /v1/search: one of the search tools (or use POST /v1/search/{search_tool_name}).',
        )
      return findSearchTool('p1-search') as SearchTool
    }
    if (typeof name !== 'string') throw invalidParameter('search_tool_name', 'search_tool_name must be a string.')
    if (inUrl !== undefined && named !== undefined && named !== inUrl) {
      throw invalidParameter(
        'search_tool_name',
        'search_tool_name is absent in the URL form; it names another tool than the URL.',
      )
    }
    const tool = name === 'p7-search' && faults.has('search-p7-missing') ? undefined : findSearchTool(name)
    if (!tool) {
      if (faults.has('search-unknown-tool-500')) throw new GatewayError(500, 'The search backend failed.')
      if (form === 'url')
        throw new GatewayError(404, `There is no search tool '${name}'.`, {
          code: 'model_not_found',
          param: 'search_tool_name',
        })
      throw new GatewayError(400, `There is no search tool '${name}'.`, {
        code: 'model_not_found',
        param: 'search_tool_name',
      })
    }
    return tool
  }

  const handle = (form: Form) => async (request: FastifyRequest) => {
    const context = state.contexts.of(request)
    const caller: Caller | null = faults.has('search-key-not-required') ? context.caller : requireCaller(context)
    const body = objectBody(request.body)
    const tool = toolOf(request, body, form)
    const model = resolveModel(tool.name, context, { modes: ['search'], endpoint: 'search' })
    if (caller) requireTier(model, caller)
    const search = readSearchRequest(body, tool.group, faults)
    const count = search.maxResults + (faults.has('search-results-over-max') ? 1 : 0)
    const results = searchResults(
      tool.name,
      faults.has('search-domain-filter-ignored') ? { ...search, domains: [] } : search,
      count,
    )
    const queries = faults.has('search-array-charged-once') ? 1 : search.queries.length
    if (caller) chargeUsd(caller.account, tool.usdPerQuery * queries)
    return { object: 'search', results }
  }

  if (!faults.has('search-body-form-missing')) app.post('/v1/search', config, handle('body'))
  if (!faults.has('search-url-form-missing')) app.post('/v1/search/:tool', config, handle('url'))
}
