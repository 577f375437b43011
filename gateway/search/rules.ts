/** Search rules (Part 2 §4.5, §7, §8), read by the routes and the request reader. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { SearchFault } from './faults.ts'
import { PROCESSORS_LISTED, SEARCH_EDGES, TBS_LISTED } from './limits.ts'

export type SearchRules = Readonly<ReturnType<typeof searchRules>>

export function searchRules(faults: FaultSet) {
  const bent = bentBy<SearchFault>(faults)
  return {
    // POST /v1/search (the body form) and POST /v1/search/{search_tool_name} (the URL form) are both offered.
    offersBodyForm: !bent('search-body-form-missing'),
    offersUrlForm: !bent('search-url-form-missing'),
    // Section 7: a call with no valid key is 401; the fault serves it, charged to no one.
    requireKey: !bent('search-key-not-required'),
    // search_tool_name is required, and not empty, in the body form; the fault serves p1-search instead.
    requireToolName: !bent('search-tool-defaulted'),
    // An unknown tool is 400 (body) or 404 (URL); the fault answers 500.
    refuseUnknownTool: !bent('search-unknown-tool-500'),
    // Every listed tool is served; the fault leaves p7-search's provider unwired.
    unwiredTools: bent('search-p7-missing') ? ['p7-search'] : [],
    // A search refused by a rate limit is 429; the fault passes the throttle on as a 500.
    throttleAs429: !bent('search-throttle-500'),
    // query is a non-empty string or an array of them; the fault searches a number as text.
    checkQueryType: !bent('search-query-unchecked'),
    // An array of queries is searched; the fault refuses it.
    searchArrays: !bent('search-query-array-refused'),
    // max_results is 1 to 20; one fault accepts more (and answers 20), the other refuses 20.
    maxResults: bent('search-max-results-unchecked')
      ? Infinity
      : SEARCH_EDGES.maxResults.max - (bent('search-max-results-20-refused') ? 1 : 0),
    // No more results than max_results; the fault answers one more.
    resultsBeyondMax: bent('search-results-over-max') ? 1 : 0,
    // search_domain_filter holds at most 20 domains; one fault takes any number, the other refuses 20.
    maxDomains: bent('search-domain-filter-unlimited')
      ? Infinity
      : SEARCH_EDGES.maxDomains - (bent('search-domain-filter-20-refused') ? 1 : 0),
    // Results come from the filtered domains; the fault ignores the filter.
    honourDomainFilter: !bent('search-domain-filter-ignored'),
    // max_tokens_per_page is an integer; one fault takes the default for any other type, the other refuses any.
    refuseMaxTokensPerPage: bent('search-max-tokens-per-page-refused'),
    // max_tokens_per_page is an integer; the fault takes the default for any other type.
    checkMaxTokensPerPage: !bent('search-max-tokens-per-page-unchecked'),
    // tbs, processor and country take the listed values; the fault takes any.
    checkProviderValues: !bent('search-provider-values-unchecked'),
    // p1-search takes every listed tbs; the fault refuses qdr:y.
    tbsValues: TBS_LISTED.filter((tbs) => tbs !== 'qdr:y' || !bent('search-tbs-qdr-y-refused')),
    // The p3 tools take processor base and pro; the fault refuses pro.
    processorValues: PROCESSORS_LISTED.filter(
      (processor) => processor !== 'pro' || !bent('search-processor-pro-refused'),
    ),
    // The p5 tools take a full country name; the fault refuses any country.
    p5TakesCountry: !bent('search-p5-country-refused'),
    // Group B's depth is at most 700; the fault takes any depth.
    maxDepth: bent('search-depth-unchecked') ? Infinity : SEARCH_EDGES.maxDepth,
    // A search is charged per query, an array of N as N; the fault charges one.
    chargePerQuery: !bent('search-array-charged-once'),
  }
}
