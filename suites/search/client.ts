/**
 * What the search tests share (Part 2 sections 2.2, 4.5): the nine listed tools and their prices per query, one
 * way to send a search by either form with its cost reserved first, reading the results, and a probe of each form
 * that tests of other rules build on (precondition), so that a missing form is reported once, by its own rule.
 */
import { expectStatus, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/http-client.ts'
import type { KeyUse } from '../../harness/exchange.ts'
import { perFile, target, spend } from '../../harness/suite.ts'

/** Section 4.5: the nine listed tools and their cost per query in US dollars. */
const TOOL_PRICES: Readonly<Record<string, number>> = {
  'p1-search': 0.001,
  'p2-search': 0.003,
  'p3-search': 0.004,
  'p4-search': 0.005,
  'p5-search': 0.008,
  'p6-search': 0.008,
  'p3-search-pro': 0.009,
  'p5-search-advanced': 0.016,
  'p7-search': 0.025,
}
export const NINE_TOOLS = Object.keys(TOOL_PRICES)
const HIGHEST_PRICE = Math.max(...Object.values(TOOL_PRICES)) // for a tool the reference does not price

export type Form = 'body' | 'url'

interface SearchCall {
  tool: string
  form?: Form
  /** Fields besides search_tool_name; query defaults to a fixed one. */
  body?: Record<string, unknown>
  key?: KeyUse
}

/** The cost of a search by the reference's prices: the tool's price times the queries asked. */
export function estimateUsd(tool: string, query: unknown): number {
  const queries = Array.isArray(query) ? Math.max(1, query.length) : 1
  return (TOOL_PRICES[tool] ?? HIGHEST_PRICE) * queries
}

export const QUERY = 'conformance testing of web APIs'

/** A search by body (search_tool_name) or by URL; the cost is reserved first (a refused call costs nothing, but the estimate is kept high). */
export async function search(api: TargetClient, call: SearchCall): Promise<Exchange> {
  const form = call.form ?? 'body'
  const body: Record<string, unknown> = { query: QUERY, ...call.body }
  // A call without a valid key is charged to no one.
  if (call.key !== null && call.key !== 'invalid')
    spend(
      estimateUsd(call.tool, body.query),
      `${call.tool} search of ${Array.isArray(body.query) ? body.query.length : 1} quer${Array.isArray(body.query) && body.query.length !== 1 ? 'ies' : 'y'}`,
    )
  const spec = call.key === undefined ? {} : { key: call.key }
  if (form === 'url') return api.post(`/v1/search/${encodeURIComponent(call.tool)}`, body, spec)
  return api.post('/v1/search', { search_tool_name: call.tool, ...body }, spec)
}

/** The results array of a search answer; a test that reads it is skipped when the answer is not a search result. */
export function resultsOf(ex: Exchange): Record<string, unknown>[] {
  const body = ex.json
  const ok = isObject(body) && Array.isArray(body.results) && body.results.every(isObject)
  precondition(
    ok,
    'P2-2.2-search-result',
    `${ex.record.method} ${ex.record.path} did not answer an object with a results array of objects`,
  )
  return (body as { results: Record<string, unknown>[] }).results
}

/**
 * Whether a call was served as a search: 200 and an object with a results array. The full shape is
 * P2-2.2-search-result's to judge, so that a wrong shape is reported once, there.
 */
export function isSearchResult(ex: Exchange): boolean {
  const body = ex.json
  return ex.status === 200 && isObject(body) && Array.isArray(body.results)
}

/** Each form probed once per file with p1-search: tests of other rules need the form they use to work. */
const probes = perFile(
  (): Record<Form, () => Promise<Exchange>> => ({
    body: memo(() => search(target(), { tool: 'p1-search', form: 'body' })),
    url: memo(() => search(target(), { tool: 'p1-search', form: 'url' })),
  }),
)

export async function needForm(form: Form): Promise<void> {
  const ex = await probes()[form]()
  const id = form === 'body' ? 'P2-4.5-search-body-form' : 'P2-4.5-search-url-form'
  precondition(ex.status === 200, id, `the ${form} form of p1-search answered ${ex.status}`)
}

/** 200 with the reason in the failure, for calls whose rule is that a value is accepted. */
export function expectAccepted(ex: Exchange, what: string): void {
  expectStatus(ex, 200, `${what} is valid and accepted`)
}
