/**
 * Reading a search request (Part 2 sections 4.5, 7, 8): the common fields with their limits, then the provider
 * parameters of the tool's group. Anything invalid is 400 naming the parameter (section 7: 400 invalid
 * parameters). Parameters of another tool's group are ignored, as a gateway passing a provider's own parameters
 * through would (the reference does not say they are refused). The types and limits the request schema states are
 * judged before this reader runs (../request-validation.ts); it checks what the schema leaves open, and the limits
 * a fault or variation bends.
 *
 * Where the reference is silent: query must be non-empty, an array holds 1 to 10 queries (every tool here
 * searches arrays, "on tools that support it"); max_tokens_per_page and max_chars_per_result are integers from 1
 * up; page is an integer from 1; depth an integer from 1 to 700; a country code is two letters, a full country
 * name four letters or more (no country name is shorter), lowercase.
 */
import { isObject } from '../../common/json.ts'
import { invalidParameter } from '../errors.ts'
import { CATEGORIES, DEVICES, SEARCH_EDGES, SYSTEMS } from './limits.ts'
import type { SearchRules } from './rules.ts'
import type { ParamGroup } from './tools.ts'

const SOURCES = ['web', 'news', 'images']
const COUNTRY_CODE = /^[A-Za-z]{2}$/
const COUNTRY_NAME = /^[a-z]{4,}(?: [a-z]+)*$|^[a-z]+(?: [a-z]+)+$/

export interface SearchRequest {
  readonly queries: string[]
  readonly maxResults: number
  readonly domains: string[]
  readonly maxTokensPerPage: number
}

export function readSearchRequest(body: Record<string, unknown>, group: ParamGroup, rules: SearchRules): SearchRequest {
  const queries = readQueries(body.query, rules)
  let maxResults = integer(body, 'max_results', SEARCH_EDGES.maxResults.min, rules.maxResults)
  if (maxResults !== undefined && maxResults > SEARCH_EDGES.maxResults.max) maxResults = SEARCH_EDGES.maxResults.max
  const domains = readDomains(body.search_domain_filter, rules)
  if (rules.refuseMaxTokensPerPage && body.max_tokens_per_page !== undefined)
    throw invalidParameter('max_tokens_per_page', 'max_tokens_per_page is not supported.')
  const maxTokensPerPage =
    !rules.checkMaxTokensPerPage && typeof body.max_tokens_per_page !== 'number'
      ? SEARCH_EDGES.maxTokensPerPageDefault
      : (integer(body, 'max_tokens_per_page', 1, Infinity) ?? SEARCH_EDGES.maxTokensPerPageDefault)
  readGroup(body, group, rules)
  return { queries, maxResults: maxResults ?? SEARCH_EDGES.maxResults.default, domains, maxTokensPerPage }
}

function readQueries(query: unknown, rules: SearchRules): string[] {
  // The request schema requires query; only a fault that lifts that lets a search without one through.
  if (query === undefined) return ['']
  if (!rules.checkQueryType && (typeof query === 'number' || Array.isArray(query)))
    return (Array.isArray(query) ? query : [query]).map(String)
  if (typeof query === 'string' && query.trim() !== '') return [query]
  if (
    Array.isArray(query) &&
    query.length > 0 &&
    query.length <= SEARCH_EDGES.maxQueries &&
    query.every((q) => typeof q === 'string' && q.trim() !== '')
  ) {
    if (!rules.searchArrays) throw invalidParameter('query', 'This tool takes one query string.')
    return query as string[]
  }
  throw invalidParameter(
    'query',
    `query is required: a non-empty string, or an array of 1 to ${SEARCH_EDGES.maxQueries} non-empty strings.`,
  )
}

function readDomains(filter: unknown, rules: SearchRules): string[] {
  if (filter === undefined || filter === null) return []
  if (
    !Array.isArray(filter) ||
    filter.length > rules.maxDomains ||
    !filter.every((d) => typeof d === 'string' && d !== '')
  ) {
    throw invalidParameter(
      'search_domain_filter',
      `search_domain_filter must be an array of at most ${SEARCH_EDGES.maxDomains} domains.`,
    )
  }
  return filter as string[]
}

function integer(body: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw invalidParameter(
      name,
      `${name} must be an integer${max === Infinity ? ` of at least ${min}` : ` from ${min} to ${max}`}.`,
    )
  }
  return value as number
}

function oneOf(body: Record<string, unknown>, name: string, values: readonly string[]): void {
  const value = body[name]
  if (value !== undefined && !values.includes(value as string))
    throw invalidParameter(name, `${name} must be ${values.length === 1 ? values[0] : `one of ${values.join(', ')}`}.`)
}

function ofType(body: Record<string, unknown>, name: string, type: 'string' | 'boolean' | 'object'): void {
  const value = body[name]
  if (value === undefined) return
  const ok = type === 'object' ? isObject(value) : typeof value === type
  if (!ok) throw invalidParameter(name, `${name} must be ${type === 'object' ? 'an object' : `a ${type}`}.`)
}

function country(body: Record<string, unknown>, form: 'code' | 'name'): void {
  const value = body.country
  if (value === undefined) return
  const ok = typeof value === 'string' && (form === 'code' ? COUNTRY_CODE : COUNTRY_NAME).test(value)
  if (!ok)
    throw invalidParameter(
      'country',
      form === 'code'
        ? 'country must be a two-letter country code on this tool.'
        : 'country must be a full lowercase country name on this tool, e.g. germany.',
    )
}

function readGroup(body: Record<string, unknown>, group: ParamGroup, rules: SearchRules): void {
  switch (group) {
    case 'A': // p1-search
      if (rules.checkProviderValues) oneOf(body, 'tbs', rules.tbsValues)
      integer(body, 'page', 1, Infinity)
      if (rules.checkProviderValues) country(body, 'code')
      return
    case 'B': // p6-search, this gateway's choice
      if (rules.checkProviderValues) country(body, 'name')
      ofType(body, 'language_code', 'string')
      integer(body, 'depth', 1, rules.maxDepth)
      oneOf(body, 'device', DEVICES)
      oneOf(body, 'os', SYSTEMS)
      return
    case 'C': // p2-search, this gateway's choice
      if (
        body.sources !== undefined &&
        (!Array.isArray(body.sources) || !body.sources.every((s) => SOURCES.includes(s as string)))
      ) {
        throw invalidParameter('sources', `sources must be an array of ${SOURCES.join(', ')}.`)
      }
      if (
        body.categories !== undefined &&
        (!Array.isArray(body.categories) ||
          !body.categories.every(
            (c) =>
              typeof c === 'object' && c !== null && CATEGORIES.includes((c as Record<string, unknown>).type as string),
          ))
      ) {
        throw invalidParameter(
          'categories',
          `categories must be an array of { type } with type ${CATEGORIES.join(', ')}.`,
        )
      }
      ofType(body, 'ignoreInvalidURLs', 'boolean')
      ofType(body, 'scrapeOptions', 'object')
      return
    case 'p3':
      if (rules.checkProviderValues) oneOf(body, 'processor', rules.processorValues)
      integer(body, 'max_chars_per_result', 1, Infinity)
      return
    case 'p5':
      if (!rules.p5TakesCountry && body.country !== undefined)
        throw invalidParameter('country', 'country is not supported on this tool.')
      if (rules.checkProviderValues) country(body, 'name')
      return
    case 'none':
      return
  }
}
