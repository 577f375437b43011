/**
 * The common search fields at both edges (Part 2 sections 4.5, 7, 8): query, max_results, search_domain_filter
 * and max_tokens_per_page. Every call uses p1-search by body, the cheapest tool; the form itself is judged in
 * search.test.ts and taken as a precondition here.
 */
import { describe } from 'vitest'
import { expectRefused, expectSetup, expectStatus, expectThat, notObserved } from '../../harness/worker/assert.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, target, spend } from '../../harness/worker/suite.ts'
import { targetName } from '../shared/names.ts'
import { estimateUsd, expectAccepted, isSearchResult, needForm, NINE_TOOLS, resultsOf, search } from './client.ts'
import { defaultOf, limitOf, rangeOf } from '../../common/request-schemas.ts'

const api = target()
const TOOL = 'p1-search'
/** The stated edges, read from the request schema the reference gateway enforces too. */
const SEARCH = 'POST /v1/search'
const MAX_RESULTS = rangeOf(SEARCH, 'body', 'max_results')
const DEFAULT_RESULTS = defaultOf<number>(SEARCH, 'body', 'max_results')
const MAX_DOMAINS = limitOf(SEARCH, 'body', 'search_domain_filter', 'maxItems')

function domains(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `site${i + 1}.example.com`)
}

describe('query (Part 2 §4.5)', () => {
  check('P2-4.5-search-query-invalid', 'a body without query is refused with 400', async () => {
    await needForm('body')
    spend(estimateUsd(TOOL, undefined), 'a search without a query, should a target serve it')
    expectStatus(await api.post('/v1/search', { search_tool_name: targetName(TOOL) }), 400, 'query is required')
  })

  check(
    'P2-4.5-search-query-type-refused',
    'a number, or an array holding a non-string, as query is refused with a client error',
    async () => {
      await needForm('body')
      expectRefused(await search(api, { tool: TOOL, body: { query: 42 } }), 'a number as query (a string or strings)')
      expectRefused(
        await search(api, { tool: TOOL, body: { query: ['conformance', 7] } }),
        'an array holding a number as query (an array of strings)',
      )
    },
  )

  check(
    'P2-4.5-search-query-array',
    'at least one of the nine tools accepts query as an array of strings',
    async () => {
      await needForm('body')
      const query = ['conformance testing', 'web API gateways']
      const answers: string[] = []
      // Cheapest first, and no further than the first tool that searches the array: the rule needs one.
      for (const tool of NINE_TOOLS) {
        const ex = await search(api, { tool, body: { query, max_results: 2 } })
        const ok = isSearchResult(ex)
        answers.push(`${targetName(tool)}: ${ex.status}${ok ? ` (${resultsOf(ex).length} results)` : ''}`)
        if (ok) break
      }
      observe('query arrays by tool', `two queries, max_results 2: ${answers.join('; ')}`)
      expectThat(
        answers.at(-1)?.includes('results') === true,
        'some tool to search an array of queries and answer a search result',
        answers,
      )
    },
  )
})

describe('max_results (Part 2 §4.5, §8)', () => {
  const { min, max: top } = MAX_RESULTS
  check('P2-4.5-search-max-results-range', `max_results ${min} and ${top} are accepted`, async () => {
    await needForm('body')
    expectAccepted(await search(api, { tool: TOOL, body: { max_results: min } }), `max_results ${min}`)
    expectAccepted(await search(api, { tool: TOOL, body: { max_results: top } }), `max_results ${top}`)
  })

  check(
    'P2-4.5-search-max-results-refused',
    `max_results ${min - 1} and ${top + 1} are refused with a client error`,
    async () => {
      await needForm('body')
      expectRefused(
        await search(api, { tool: TOOL, body: { max_results: min - 1 } }),
        `max_results ${min - 1}, below ${min}`,
      )
      expectRefused(
        await search(api, { tool: TOOL, body: { max_results: top + 1 } }),
        `max_results ${top + 1}, above ${top}`,
      )
    },
  )

  check(
    'P2-4.5-search-max-results-count',
    `one query answers at most max_results results, at most ${DEFAULT_RESULTS} when omitted`,
    async () => {
      await needForm('body')
      for (const max of [min, 3, top, undefined]) {
        const ex = await search(api, { tool: TOOL, body: max === undefined ? {} : { max_results: max } })
        // Whether a value is accepted is the range's rule; this one judges the count.
        expectSetup(ex, 200, `a search with ${max === undefined ? 'no max_results' : `max_results ${max}`}`)
        const count = resultsOf(ex).length
        const limit = max ?? DEFAULT_RESULTS
        expectThat(
          count <= limit,
          `at most ${limit} results (${max === undefined ? `the default ${DEFAULT_RESULTS}` : `max_results ${max}`})`,
          `${count} results`,
          ex,
        )
      }
    },
  )
})

describe('search_domain_filter (Part 2 §4.5, §8)', () => {
  const most = MAX_DOMAINS
  check('P2-4.5-search-domain-filter-limit', `a filter of ${most} domains is accepted`, async () => {
    await needForm('body')
    expectAccepted(await search(api, { tool: TOOL, body: { search_domain_filter: domains(most) } }), `${most} domains`)
  })

  check(
    'P2-4.5-search-domain-filter-refused',
    `a filter of ${most + 1} domains is refused with a client error`,
    async () => {
      await needForm('body')
      expectRefused(
        await search(api, { tool: TOOL, body: { search_domain_filter: domains(most + 1) } }),
        `a filter of ${most + 1} domains, above ${most}`,
      )
    },
  )

  check('P2-4.5-search-domain-filter-honoured', 'with a domain filter every result is on a listed domain', async () => {
    await needForm('body')
    const filter = ['example.com', 'example.org']
    const ex = await search(api, { tool: TOOL, body: { search_domain_filter: filter, max_results: 10 } })
    expectSetup(ex, 200, 'a search with a domain filter of two domains')
    const results = resultsOf(ex)
    // No result holds the property vacuously: it shows nothing of the filter.
    if (results.length === 0) notObserved(`a search filtered to ${filter.join(' and ')} answered no results`)
    const outside = results.flatMap((r) => {
      let host = ''
      try {
        host = new URL(String(r.url)).hostname
      } catch {
        return [`${String(r.url)} (not a URL)`]
      }
      return filter.some((d) => host === d || host.endsWith(`.${d}`)) ? [] : [String(r.url)]
    })
    expectThat(outside.length === 0, `results only on ${filter.join(' or ')} (or their subdomains)`, outside, ex)
  })
})

describe('max_tokens_per_page (Part 2 §4.5)', () => {
  check('P2-4.5-search-max-tokens-per-page', 'max_tokens_per_page 1024 and 64 are accepted', async () => {
    await needForm('body')
    expectAccepted(
      await search(api, { tool: TOOL, body: { max_tokens_per_page: 1024 } }),
      'max_tokens_per_page 1024 (the default)',
    )
    expectAccepted(await search(api, { tool: TOOL, body: { max_tokens_per_page: 64 } }), 'max_tokens_per_page 64')
  })

  check(
    'P2-4.5-search-max-tokens-per-page-refused',
    'a max_tokens_per_page that is not an integer is refused with a client error',
    async () => {
      await needForm('body')
      expectRefused(
        await search(api, { tool: TOOL, body: { max_tokens_per_page: 'many' } }),
        'the string "many" as max_tokens_per_page (an integer)',
      )
    },
  )
})
