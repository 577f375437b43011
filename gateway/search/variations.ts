/**
 * The search choices the reference leaves open, made as real providers make them (../variations.ts), in one place
 * so that the routes read as the reference says. Each is conformant: a suite that fails on one asks more than the
 * words.
 */
import { invalidParameter } from '../errors.ts'
import type { Tier } from '../limit-tables.ts'
import type { CatalogueModel } from '../models/catalogue.ts'
import type { VariationName } from '../variations.ts'
import { SEARCH_EDGES } from './limits.ts'
import type { SearchResultItem } from './results.ts'
import type { SearchTool } from './tools.ts'

type Variations = ReadonlySet<VariationName>

/** search-arrays-some-tools: "an array searches several queries on tools that support it"; here the p3 and p5 tools. */
export function refuseArrayOn(tool: SearchTool, query: unknown, variations: Variations): void {
  if (!variations.has('search-arrays-some-tools') || !Array.isArray(query)) return
  if (tool.group !== 'p3' && tool.group !== 'p5') throw invalidParameter('query', 'This tool takes one query string.')
}

/** The tools that search-ocr-min-tier-3 keeps from keys below tier 3: the two dearest. */
const PREMIUM_TOOLS: ReadonlySet<string> = new Set(['p7-search', 'p5-search-advanced'])

/** search-ocr-min-tier-3: the premium tools refuse keys below tier 3 (Part 1 §1.5: "a model has min_tier"). */
export function toolTier(tool: SearchTool, model: CatalogueModel, variations: Variations): CatalogueModel {
  if (!variations.has('search-ocr-min-tier-3') || !PREMIUM_TOOLS.has(tool.name)) return model
  return { ...model, minTier: Math.max(model.minTier, 3) as Tier }
}

/** search-unknown-tool-404: an unknown tool named in the body is a missing resource, as in the URL form. */
export function unknownToolStatus(form: 'body' | 'url', variations: Variations): 400 | 404 {
  return form === 'url' || variations.has('search-unknown-tool-404') ? 404 : 400
}

/** search-limits-clamped: max_results past 1 to 20 is clamped, and a domain filter past 20 keeps its first 20. */
export function clampedLimits(body: Record<string, unknown>, variations: Variations): Record<string, unknown> {
  if (!variations.has('search-limits-clamped')) return body
  const { max_results: max, search_domain_filter: filter } = body
  const { min, max: top } = SEARCH_EDGES.maxResults
  return {
    ...body,
    ...(Number.isInteger(max) ? { max_results: Math.min(Math.max(max as number, min), top) } : {}),
    ...(Array.isArray(filter) ? { search_domain_filter: filter.slice(0, SEARCH_EDGES.maxDomains) } : {}),
  }
}

/** search-result-shape: fewer results than asked, no dates, and fields of the provider's own beside the stated ones. */
export function providerAnswer(
  answer: { object: 'search'; results: SearchResultItem[] },
  variations: Variations,
): Record<string, unknown> {
  if (!variations.has('search-result-shape')) return answer
  const results = answer.results.slice(0, 5).map(({ date: _date, ...item }, i) => ({
    ...item,
    position: i + 1,
    score: Number((1 - i / 10).toFixed(2)),
  }))
  return { ...answer, results, id: `srch_${results.length}`, search_metadata: { provider_latency_ms: 12 } }
}
