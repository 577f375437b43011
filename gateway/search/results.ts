/**
 * Simulated search results (Part 2 section 2.2): deterministic, so the same request gives the same answer. There
 * is no network, so results are made up from the query: a title, a URL on a domain of search_domain_filter when
 * one is given (else on a few fixed example domains), a snippet of at most max_tokens_per_page words, and a date
 * on every other result (date is optional). An array of queries gives each query's results in turn.
 */
import { createHash } from 'node:crypto'
import type { SearchRequest } from './request.ts'

export interface SearchResultItem {
  title: string
  url: string
  snippet: string
  date?: string
}

const DEFAULT_DOMAINS = ['example.com', 'example.org', 'docs.example.net', 'news.example.com']
const FILLER =
  'gateway reference search result simulated from the query text with no network access so the same request always gives the same answer'.split(
    ' ',
  )

export function searchResults(tool: string, request: SearchRequest, count: number): SearchResultItem[] {
  return request.queries.flatMap((query) => resultsFor(tool, query, request, count))
}

function resultsFor(tool: string, query: string, request: SearchRequest, count: number): SearchResultItem[] {
  const words = query.match(/[\p{L}\p{N}]+/gu) ?? ['query']
  const slug = words.join('-').toLowerCase().slice(0, 60)
  const domains = request.domains.length > 0 ? request.domains.map(bareDomain) : DEFAULT_DOMAINS
  return Array.from({ length: count }, (_, i) => {
    const digest = createHash('sha256').update(`${tool}\n${query}\n${i}`).digest()
    const domain = domains[i % domains.length] as string
    const snippetWords = [...words, ...FILLER].slice(0, Math.max(1, Math.min(request.maxTokensPerPage, 40)))
    const item: SearchResultItem = {
      title: `${words.join(' ')}: result ${i + 1} from ${tool}`,
      url: `https://${domain}/${slug}/${digest.toString('hex').slice(0, 8)}`,
      snippet: snippetWords.join(' '),
    }
    if (i % 2 === 0)
      item.date = new Date(Date.UTC(2025, digest[0]! % 12, 1 + (digest[1]! % 28))).toISOString().slice(0, 10)
    return item
  })
}

/** A filter entry may be written as a URL or with a leading dot; the host is what a result lives on. */
function bareDomain(entry: string): string {
  return entry
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/^\.+/, '')
    .split('/')[0] as string
}
