/**
 * What the search tests share (Part 2 sections 2.2, 4.5): the nine listed tools and their prices per query, one
 * way to send a search by either form with its cost reserved first, reading the results, and a probe of each form
 * that tests of other rules build on (precondition), so that a missing form is reported once, by its own rule.
 *
 * The reference writes the tools with neutral words (p1 to p7 stand for search providers). Tests name a tool by its
 * reference name; what is sent is the target's name for it (GATEWAY_NAMES, suites/shared/names.ts). A tool the
 * target refuses as unknown (400 or 404) in both forms is absent under that name: its tests are skipped, naming the
 * variable that would make them run, never failed. A tool that answers the main key 403 is not usable with it (Part 1
 * §1.5: the tier sets "which models can be used"): it is used with the highest tier's key given, or skipped.
 */
import { expectStatus, fail, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import type { KeyUse } from '../../harness/exchange.ts'
import { KEY_ENV, type KeySlot } from '../../harness/keys.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { perFile, target, spend } from '../../harness/worker/suite.ts'
import { referenceNameOf, requireName, targetName } from '../shared/names.ts'

/** Section 4.5: the nine listed tools (reference names) and their cost per query in US dollars. */
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
  /** The reference's name of the tool (p1-search …); the target's name for it is what is sent. */
  tool: string
  form?: Form
  /** Fields besides search_tool_name; query defaults to a fixed one. */
  body?: Record<string, unknown>
  key?: KeyUse
  /** For rate-limit tests: see every 429 instead of waiting it out. */
  retry429?: boolean
}

/** The price per query of a tool, by its reference name or the target's name for it. */
export function pricePerQuery(tool: string): number {
  return TOOL_PRICES[tool] ?? TOOL_PRICES[referenceNameOf(tool)] ?? HIGHEST_PRICE
}

/** The cost of a search by the reference's prices: the tool's price times the queries asked. */
export function estimateUsd(tool: string, query: unknown): number {
  const queries = Array.isArray(query) ? Math.max(1, query.length) : 1
  return pricePerQuery(tool) * queries
}

export const QUERY = 'conformance testing of web APIs'

/** A search by body (search_tool_name) or by URL; the cost is reserved first (a refused call costs nothing, but the estimate is kept high). */
export async function search(api: TargetClient, call: SearchCall): Promise<Exchange> {
  const form = call.form ?? 'body'
  const tool = targetName(call.tool)
  // A tool that refused the main key with 403 is called with the higher tier's key it answered (toolProbes).
  const key = call.key !== undefined ? call.key : toolKeys().get(call.tool)
  const body: Record<string, unknown> = { query: QUERY, ...call.body }
  // A call without a valid key is charged to no one.
  if (key !== null && key !== 'invalid')
    spend(
      estimateUsd(call.tool, body.query),
      `${tool} search of ${Array.isArray(body.query) ? body.query.length : 1} quer${Array.isArray(body.query) && body.query.length !== 1 ? 'ies' : 'y'}`,
    )
  const spec = {
    ...(key === undefined ? {} : { key }),
    ...(call.retry429 === undefined ? {} : { retry429: call.retry429 }),
  }
  if (form === 'url') return api.post(`/v1/search/${encodeURIComponent(tool)}`, body, spec)
  return api.post('/v1/search', { search_tool_name: tool, ...body }, spec)
}

/** The results array of a search answer; a test that reads it is skipped when the answer is not a search result. */
export function resultsOf(ex: Exchange): Record<string, unknown>[] {
  const body = ex.json
  const ok = isObject(body) && Array.isArray(body.results) && body.results.every(isObject)
  precondition(
    ok,
    'P2-2.2-search-result',
    `${ex.excerpt.method} ${ex.excerpt.path} did not answer an object with a results array of objects`,
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

/** The ids of GET /v1/models, once per file, for what the catalogue offers (recorded, not judged). */
const catalogue = perFile(() =>
  memo(async (): Promise<ReadonlySet<string>> => {
    const body = (await target().get('/v1/models')).json
    const items = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.data) ? body.data : []
    return new Set(items.flatMap((m) => (isObject(m) && typeof m.id === 'string' ? [m.id] : [])))
  }),
)

export async function listedTools(): Promise<ReadonlySet<string>> {
  return catalogue()()
}

/**
 * Whether the target has a tool under the name sent: one of `answers` (calls naming the tool) was anything but the 400
 * or 404 of an unknown tool. Its catalogue is not asked: a target may list search tools under other names, or none.
 */
export function hasTool(answers: readonly Exchange[]): boolean {
  return answers.some((ex) => ex.status !== 400 && ex.status !== 404)
}

/** Keys to try, highest tier first, for a tool that refuses the main key with 403. */
const HIGHER_KEYS: readonly KeySlot[] = ['tier5', 'tier4', 'tier3', 'tier2', 'tier1']

/** A tool refused with 403 and never served: "403 no permission" (Part 1 §7), a tool above the key's tier (§1.5). */
function forbidden(answers: readonly Exchange[]): boolean {
  return answers.some((ex) => ex.status === 403) && !answers.some(isSearchResult)
}

interface ToolAccess {
  /** The plain searches that probed the tool, with the key it is used with. */
  answers: Exchange[]
  /** Why the tool cannot be used with the keys given, when it answered 403 to each. */
  refused?: string
}

/** Per file: the key each tool answered, when it is not the main key. search() sends it where a call names none. */
const toolKeys = perFile(() => new Map<string, KeySlot>())

/** A plain search of a tool by body, then by URL when that fails. */
async function plainSearches(tool: string, key: KeySlot | undefined): Promise<Exchange[]> {
  const spec = { tool, body: { max_results: 1 }, ...(key === undefined ? {} : { key }) }
  const body = await search(target(), spec)
  if (isSearchResult(body)) return [body]
  return [body, await search(target(), { ...spec, form: 'url' })]
}

/**
 * Each tool probed once per file: with the main key, and when it answers that 403 (not usable with this key), with
 * the highest tier's key given, which its other calls then use.
 */
const toolProbes = perFile(() => {
  const byTool = new Map<string, Promise<ToolAccess>>()
  return (tool: string): Promise<ToolAccess> => {
    let probe = byTool.get(tool)
    if (probe === undefined) {
      probe = (async (): Promise<ToolAccess> => {
        const answers = await plainSearches(tool, undefined)
        if (!forbidden(answers)) return { answers }
        const name = targetName(tool)
        const higher = HIGHER_KEYS.find((slot) => target().hasKey(slot))
        if (higher === undefined)
          return {
            answers,
            refused: `${name} answered the main key 403 (not usable with it: a tool above its tier, Part 1 §1.5 min_tier); give a key of a tier that may use it (${KEY_ENV.tier5})`,
          }
        const again = await plainSearches(tool, higher)
        if (forbidden(again))
          return {
            answers: again,
            refused: `${name} answered 403 to the main key and to ${higher} (not usable with the keys given); give a key whose account may use it`,
          }
        toolKeys().set(tool, higher)
        return { answers: again }
      })()
      byTool.set(tool, probe)
    }
    return probe
  }
})

/** How a tool is used with the keys given: absent, refused with 403, or served (with the key it takes). */
export async function toolAccess(tool: string): Promise<{ present: boolean; refused?: string }> {
  const access = await toolProbes()(tool)
  return { present: hasTool(access.answers), ...(access.refused === undefined ? {} : { refused: access.refused }) }
}

/**
 * Skips the test when the target has no such tool under the name sent (naming GATEWAY_NAMES), or refuses it to every
 * key given with 403 (naming the key to give).
 */
export async function needTool(tool: string): Promise<void> {
  const access = await toolAccess(tool)
  requireName(tool, () => access.present)
  if (access.refused !== undefined) skipTest(access.refused)
}

/** Each form probed once per file with p1-search: tests of other rules need the form they use to work. */
const formProbes = perFile(
  (): Record<Form, () => Promise<Exchange>> => ({
    body: memo(() => search(target(), { tool: 'p1-search', form: 'body' })),
    url: memo(() => search(target(), { tool: 'p1-search', form: 'url' })),
  }),
)

/** The requirement whose words state each form's route. */
export const FORM_REQUIREMENT: Readonly<Record<Form, string>> = {
  body: 'P2-4.5-search-body-form',
  url: 'P2-4.5-search-url-form',
}

/** Why a form cannot be judged because a route answers 404 itself: the requirement that reports it, and what it saw. */
export interface MissingRoute {
  id: string
  detail: string
}

/** A path no gateway serves: its 404 is what a route the target does not serve answers. */
const NO_ROUTE = '/v1/gc-no-such-route'

/** The form of a body, its free text left out: keys, types, and the short words (code, type, error) kept. */
function bodyShape(ex: Exchange): string {
  const shape = (value: unknown, key = ''): unknown => {
    if (Array.isArray(value)) return value.map((item) => shape(item))
    if (isObject(value))
      return Object.keys(value)
        .sort()
        .map((k) => [k, shape(value[k], k)])
    if (typeof value === 'string') return ['code', 'type', 'error'].includes(key) ? value : 'string'
    return typeof value
  }
  if (ex.jsonError === undefined) return JSON.stringify(shape(ex.json))
  return ex.text.split(ex.excerpt.path).join('{path}').trim()
}

/** Whether a 404's body names the tool sent, the path left out: an unknown tool, not a missing route. */
function namesTool(ex: Exchange, tool: string): boolean {
  return ex.text.split(ex.excerpt.path).join('').includes(tool)
}

/**
 * A search route that answers 404 itself, told from a tool the target lacks under the name sent: the form's 404
 * to p1-search is a missing route when it has the status and the body shape of the 404 of a path surely not served
 * and does not name the tool. Any other 404 is an unknown tool (or cannot be told apart from one): the tests that
 * need the tool skip, naming GATEWAY_NAMES (needTool).
 */
const missingRoutes = perFile(() => {
  const control = memo(() => target().post(NO_ROUTE, { search_tool_name: targetName('p1-search'), query: QUERY }))
  const missing = (form: Form) =>
    memo(async (): Promise<MissingRoute | undefined> => {
      const ex = await formProbes()[form]()
      if (ex.status !== 404 || namesTool(ex, targetName('p1-search'))) return undefined
      const none = await control()
      if (none.status !== 404 || bodyShape(none) !== bodyShape(ex)) return undefined
      return {
        id: FORM_REQUIREMENT[form],
        detail: `${ex.excerpt.method} ${ex.excerpt.path} answered 404 as POST ${NO_ROUTE} does (the same body shape, no tool named): the route is not served`,
      }
    })
  return { body: missing('body'), url: missing('url') }
})

/** The route of a form that answers 404 itself, or undefined when the route is served. */
export function missingRoute(form: Form): Promise<MissingRoute | undefined> {
  return missingRoutes()[form]()
}

/** Skips the running test when a form's route is not served, naming the requirement that reports it. */
export async function needRoute(form: Form): Promise<void> {
  const missing = await missingRoute(form)
  if (missing !== undefined) precondition(false, missing.id, missing.detail)
}

/** Skips the running test when neither form's route is served, naming the requirement that reports it. */
export async function needSomeRoute(): Promise<void> {
  const body = await missingRoute('body')
  const url = await missingRoute('url')
  if (body !== undefined && url !== undefined) precondition(false, body.id, body.detail)
}

/** In a form's own check: its route answering 404 itself is its failure. */
export async function judgeRoute(form: Form): Promise<void> {
  const missing = await missingRoute(form)
  if (missing === undefined) return
  const ex = await formProbes()[form]()
  fail(`${ex.excerpt.method} ${ex.excerpt.path} to be served (a route section 4.5 states)`, missing.detail, ex)
}

export async function needForm(form: Form): Promise<void> {
  await needRoute(form)
  await needTool('p1-search')
  const ex = await formProbes()[form]()
  precondition(
    ex.status === 200,
    FORM_REQUIREMENT[form],
    `the ${form} form of ${targetName('p1-search')} answered ${ex.status}`,
  )
}

/** 200 (section 7: "Search | 200 success") with the reason in the failure, for calls whose rule is that a value is accepted. */
export function expectAccepted(ex: Exchange, what: string): void {
  expectStatus(ex, 200, `${what} is valid and accepted`)
}
