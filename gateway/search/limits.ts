/**
 * The limits and listed values of a search request that its request schema states: read by the request reader
 * (request.ts) and by the rules (rules.ts), which bend some of them, so neither of those imports the other's module.
 */
import { defaultOf, limitOf, rangeOf, valuesOf } from '../../common/request-schemas.ts'

const SEARCH = 'POST /v1/search'
/** Section 4.5 and section 8, as the body form's request schema states them (the URL form states the same). */
export const SEARCH_EDGES = {
  maxResults: { ...rangeOf(SEARCH, 'body', 'max_results'), default: defaultOf<number>(SEARCH, 'body', 'max_results') },
  maxDomains: limitOf(SEARCH, 'body', 'search_domain_filter', 'maxItems'),
  maxTokensPerPageDefault: defaultOf<number>(SEARCH, 'body', 'max_tokens_per_page'),
  maxQueries: 10, // not stated: this gateway's cap on an array of queries
  maxDepth: limitOf(SEARCH, 'body', 'depth', 'maximum'),
}

export const TBS_LISTED: readonly string[] = valuesOf(SEARCH, 'body', 'tbs', { search_tool_name: 'p1-search' })
export const PROCESSORS_LISTED: readonly string[] = valuesOf(SEARCH, 'body', 'processor')
export const DEVICES = valuesOf(SEARCH, 'body', 'device')
export const SYSTEMS = valuesOf(SEARCH, 'body', 'os')
export const CATEGORIES = valuesOf(SEARCH, 'body', 'categories[].type')
