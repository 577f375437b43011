/** The search endpoints of the reference gateway (Part 2 sections 2.2, 4.5, 7, 8). */
import { describe, expect, it } from 'vitest'
import { EXCHANGE_RATE } from '../../../gateway/account/accounts.ts'
import { SEARCH_TOOLS } from '../../../gateway/search/tools.ts'
import { REAL_NAMES } from '../../../gateway/variations.ts'
import { testGateway } from './helpers.ts'

const gw = testGateway()
const post = (path: string, body: unknown, options: Parameters<typeof gw.call>[1] = {}) =>
  gw.call(path, { method: 'POST', body, ...options })
const remainingIrt = async () => (await gw.call('/user/v1/credit', { key: 'tier3' })).body.remaining_irt as number

describe('POST /v1/search and /v1/search/{tool}', () => {
  it('answers object search with results of title, url, snippet and sometimes date, by body and by URL', async () => {
    const byBody = await post('/v1/search', { search_tool_name: 'p1-search', query: 'conformance', max_results: 4 })
    const byUrl = await post('/v1/search/p1-search', { query: 'conformance', max_results: 4 })
    expect(byBody.status).toBe(200)
    expect(byUrl.body).toEqual(byBody.body)
    expect(byBody.body.object).toBe('search')
    expect(byBody.body.results).toHaveLength(4)
    for (const item of byBody.body.results)
      expect(Object.keys(item).sort()).toEqual(expect.arrayContaining(['snippet', 'title', 'url']))
    expect(byBody.body.results.filter((r: { date?: string }) => r.date !== undefined)).toHaveLength(2)
  })

  it('offers the nine tools, each recorded as the transaction model', async () => {
    for (const tool of SEARCH_TOOLS) {
      const response = await post(`/v1/search/${tool.name}`, { query: 'x', max_results: 1 })
      expect(response.status, tool.name).toBe(200)
      expect(gw.state.transactions.findById(response.id)?.record.model).toBe(tool.name)
    }
    expect(SEARCH_TOOLS.map((tool) => tool.name)).toHaveLength(9)
  })

  it('refuses a missing tool, an unknown tool, a tool name that differs from the URL, and calls without a key', async () => {
    expect((await post('/v1/search', { query: 'x' })).status).toBe(400)
    expect((await post('/v1/search', { query: 'x', search_tool_name: 'nope' })).status).toBe(400)
    expect((await post('/v1/search/nope', { query: 'x' })).status).toBe(404)
    expect((await post('/v1/search/p1-search', { query: 'x', search_tool_name: 'p2-search' })).status).toBe(400)
    // "absent in the URL form": the schema refuses it there, even naming the URL's tool.
    expect((await post('/v1/search/p1-search', { query: 'x', search_tool_name: 'p1-search' })).status).toBe(400)
    expect((await post('/v1/search/p1-search', { query: 'x' }, { key: null })).status).toBe(401)
  })

  it('checks query, max_results, the domain filter and max_tokens_per_page at their edges', async () => {
    const status = async (body: Record<string, unknown>) =>
      (await post('/v1/search/p1-search', { query: 'x', ...body })).status
    expect(await status({ query: ['a', 'b'] })).toBe(200)
    expect(await status({ query: 3 })).toBe(400)
    expect(await status({ query: ['a', 3] })).toBe(400)
    expect(await status({ max_results: 20 })).toBe(200)
    expect(await status({ max_results: 21 })).toBe(400)
    expect(await status({ max_results: 0 })).toBe(400)
    const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.example.com`)
    expect(await status({ search_domain_filter: domains(20) })).toBe(200)
    expect(await status({ search_domain_filter: domains(21) })).toBe(400)
    expect(await status({ max_tokens_per_page: 'x' })).toBe(400)
    const filtered = await post('/v1/search/p1-search', {
      query: 'x',
      search_domain_filter: ['a.example'],
      max_results: 3,
    })
    expect(filtered.body.results.every((r: { url: string }) => new URL(r.url).hostname === 'a.example')).toBe(true)
  })

  it('checks each tool group: A on p1, B on p6, C on p2, p3 and p5 parameters', async () => {
    const status = async (tool: string, body: Record<string, unknown>) =>
      (await post(`/v1/search/${tool}`, { query: 'x', ...body })).status
    expect(await status('p1-search', { tbs: 'qdr:y', country: 'de', page: 2, autocorrect: true })).toBe(200)
    expect(await status('p1-search', { tbs: 'qdr:x' })).toBe(400)
    expect(await status('p6-search', { depth: 700, device: 'tablet', os: 'ios' })).toBe(200)
    expect(await status('p6-search', { depth: 701 })).toBe(400)
    expect(await status('p1-search', { depth: 701 })).toBe(200) // another group's parameter is ignored
    expect(await status('p2-search', { sources: ['news'], categories: [{ type: 'pdf' }] })).toBe(200)
    expect(await status('p2-search', { sources: ['videos'] })).toBe(400)
    expect(await status('p3-search-pro', { processor: 'pro', max_chars_per_result: 100 })).toBe(200)
    expect(await status('p3-search', { processor: 'ultra' })).toBe(400)
    expect(await status('p5-search', { country: 'united states' })).toBe(200)
    expect(await status('p5-search', { country: 'us' })).toBe(400)
  })

  it('charges the price per query, an array of N queries N times', async () => {
    const before = await remainingIrt()
    expect((await post('/v1/search/p7-search', { query: ['a', 'b', 'c'] }, { key: 'tier3' })).status).toBe(200)
    expect(before - (await remainingIrt())).toBeCloseTo(3 * 0.025 * EXCHANGE_RATE, 3)
    const again = await remainingIrt()
    expect((await post('/v1/search/p7-search', { query: 3 }, { key: 'tier3' })).status).toBe(400)
    expect(await remainingIrt()).toBe(again)
  })
})

describe('search choices real providers make (gateway/variations.ts)', () => {
  const real = testGateway({
    variations: ['real-names', 'search-arrays-some-tools', 'search-result-shape', 'search-unknown-tool-404'],
  })
  const search = (path: string, body: unknown) => real.call(path, { method: 'POST', body })

  it("answers the tools under their makers' names only, and records the name used", async () => {
    const maker = REAL_NAMES['p1-search'] as string
    const byName = await search(`/v1/search/${maker}`, { query: 'x', max_results: 1 })
    expect(byName.status).toBe(200)
    expect(real.state.transactions.findById(byName.id)?.record.model).toBe(maker)
    expect((await search('/v1/search', { search_tool_name: maker, query: 'x' })).status).toBe(200)
    expect((await search('/v1/search/p1-search', { query: 'x' })).status).toBe(404)
    // search-unknown-tool-404: in the body too, an unknown tool is a missing resource.
    expect((await search('/v1/search', { search_tool_name: 'p1-search', query: 'x' })).status).toBe(404)
  })

  it('searches arrays on the p3 and p5 tools only, and answers at most 5 results without dates', async () => {
    const name = (tool: string) => REAL_NAMES[tool] as string
    expect((await search(`/v1/search/${name('p1-search')}`, { query: ['a', 'b'] })).status).toBe(400)
    const p3 = await search(`/v1/search/${name('p3-search')}`, { query: ['a', 'b'], max_results: 10 })
    expect(p3.status).toBe(200)
    expect(p3.body.object).toBe('search')
    expect(p3.body.results).toHaveLength(5)
    for (const item of p3.body.results) {
      expect(item.date).toBeUndefined()
      expect(typeof item.position).toBe('number')
    }
  })
})

describe('search-limits-clamped', () => {
  const gw = testGateway({ variations: ['search-limits-clamped'] })
  const search = (body: Record<string, unknown>) =>
    gw.call('/v1/search/p1-search', { method: 'POST', body: { query: 'x', ...body } })
  const domains = (n: number) => Array.from({ length: n }, (_, i) => `site${i}.example.com`)

  it('clamps max_results into 1 to 20 and searches the first 20 domains of a longer filter', async () => {
    expect((await search({ max_results: 21 })).body.results).toHaveLength(20)
    expect((await search({ max_results: 0 })).body.results).toHaveLength(1)
    expect((await search({ search_domain_filter: domains(21) })).status).toBe(200)
  })
})

describe('search-ocr-min-tier-3', () => {
  const gw = testGateway({ variations: ['search-ocr-min-tier-3'] })
  const search = (tool: string, key: 'tier2' | 'tier3') =>
    gw.call(`/v1/search/${tool}`, { method: 'POST', body: { query: 'x', max_results: 1 }, key })

  it('keeps p7-search and p5-search-advanced from keys below tier 3 (403), and the other tools open', async () => {
    expect((await search('p7-search', 'tier2')).status).toBe(403)
    expect((await search('p5-search-advanced', 'tier2')).status).toBe(403)
    expect((await search('p7-search', 'tier3')).status).toBe(200)
    expect((await search('p5-search', 'tier2')).status).toBe(200)
  })
})
