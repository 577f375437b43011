/** Faults of the search endpoints (Part 2 sections 2.2, 4.5, 7, 8). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const SEARCH_FAULTS = [
  {
    name: 'search-object-wrong',
    breaks: ['P2-2.2-search-result'],
    description: 'Search answers carry object "search_result" instead of "search".',
  },
  {
    name: 'search-body-form-missing',
    breaks: ['P2-4.5-search-body-form'],
    description: 'POST /v1/search is not offered (404); the URL form still works.',
  },
  {
    name: 'search-url-form-missing',
    breaks: ['P2-4.5-search-url-form'],
    description: 'POST /v1/search/{search_tool_name} is not offered (404); the body form still works.',
  },
  {
    name: 'search-tool-defaulted',
    breaks: ['P2-4.5-search-tool-required'],
    relaxes: ['P2-4.5-search-tool-required'],
    description: 'POST /v1/search without search_tool_name is served by p1-search instead of refused.',
  },
  {
    name: 'search-p7-missing',
    breaks: ['P2-4.5-search-nine-tools'],
    description: 'p7-search is offered but its provider is not wired: every search with it answers 500.',
  },
  {
    name: 'search-query-optional',
    breaks: ['P2-4.5-search-query-invalid'],
    relaxes: ['P2-4.5-search-query-invalid'],
    description: 'A search without query is served (results for an empty query) instead of refused.',
  },
  {
    name: 'search-max-results-20-refused',
    breaks: ['P2-4.5-search-max-results-range'],
    description: 'max_results 20, the top of its range, is refused with 400 (the gateway takes at most 19).',
  },
  {
    name: 'search-domain-filter-20-refused',
    breaks: ['P2-4.5-search-domain-filter-limit'],
    description: 'search_domain_filter of 20 domains, the stated limit, is refused with 400 (the gateway takes 19).',
  },
  {
    name: 'search-max-tokens-per-page-refused',
    breaks: ['P2-4.5-search-max-tokens-per-page'],
    description: 'Any max_tokens_per_page given, 1024 and 64 included, is refused with 400.',
  },
  {
    name: 'search-tbs-qdr-y-refused',
    breaks: ['P2-4.5-search-p1-group-a'],
    description: 'p1-search refuses tbs qdr:y with 400.',
  },
  {
    name: 'search-processor-pro-refused',
    breaks: ['P2-4.5-search-p3-parameters'],
    description: 'The p3 tools refuse processor pro with 400.',
  },
  {
    name: 'search-p5-country-refused',
    breaks: ['P2-4.5-search-p5-country'],
    description: 'The p5 tools refuse any country with 400.',
  },
  {
    name: 'search-key-not-required',
    breaks: ['P2-7-search-401'],
    description: 'The search routes serve calls with no key or an unknown key (charged to no one).',
  },
  {
    name: 'search-throttle-500',
    breaks: ['P2-7-search-429'],
    description:
      'A search refused by a rate limit answers 500 (the provider throttle passed on as a server error), not 429.',
  },
  // SHOULD requirements: a run with these warns and still exits 0.
  {
    name: 'search-query-unchecked',
    breaks: ['P2-4.5-search-query-type-refused'],
    relaxes: ['P2-4.5-search-query-type-refused'],
    description: 'A query that is a number, or an array holding a non-string, is searched as text instead of refused.',
  },
  {
    name: 'search-max-tokens-per-page-unchecked',
    breaks: ['P2-4.5-search-max-tokens-per-page-refused'],
    relaxes: ['P2-4.5-search-max-tokens-per-page-refused'],
    description: 'A max_tokens_per_page that is not a number (a string) is accepted and the default used.',
  },
  {
    name: 'search-max-results-unchecked',
    breaks: ['P2-4.5-search-max-results-refused'],
    relaxes: ['P2-4.5-search-max-results-refused'],
    description: 'max_results above 20 is accepted (and answered with 20 results) instead of refused.',
  },
  {
    name: 'search-results-over-max',
    breaks: ['P2-4.5-search-max-results-count'],
    description: 'A search answers one result more than max_results (11 when it is omitted).',
  },
  {
    name: 'search-domain-filter-unlimited',
    breaks: ['P2-4.5-search-domain-filter-refused'],
    relaxes: ['P2-4.5-search-domain-filter-refused'],
    description: 'search_domain_filter of more than 20 domains is accepted.',
  },
  {
    name: 'search-unknown-tool-500',
    breaks: ['P2-7-search-unknown-tool'],
    description: 'A search tool name that does not exist answers 500 instead of 400 (body) or 404 (URL).',
  },
  {
    name: 'search-query-array-refused',
    breaks: ['P2-4.5-search-query-array'],
    description: 'Every tool refuses query as an array of strings with 400.',
  },
  {
    name: 'search-domain-filter-ignored',
    breaks: ['P2-4.5-search-domain-filter-honoured'],
    description: 'search_domain_filter is checked for its limit but results come from other domains.',
  },
  {
    name: 'search-provider-values-unchecked',
    breaks: ['P2-4.5-search-provider-values'],
    relaxes: ['P2-4.5-search-provider-values'],
    description: 'tbs, processor and country values outside the listed ones are accepted.',
  },
  {
    name: 'search-depth-unchecked',
    breaks: ['P2-8-search-depth-limit'],
    description: 'The group B tool (p6-search) accepts depth above 700.',
  },
  {
    name: 'search-array-charged-once',
    breaks: ['P2-4.5-search-cost'],
    description: 'A search of an array of queries is charged as one query.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the search faults: what its rules and reshapes are typed by. */
export type SearchFault = (typeof SEARCH_FAULTS)[number]['name']
