/**
 * The search tools of Part 2 section 4.5: the nine listed tools, their prices per query, and which provider
 * parameter group each one takes. Group A is tied to p1-search, the p3 parameters to the p3 tools and the
 * full-name country to the p5 tools by the reference; the tools of groups B and C are not shown, so this gateway
 * gives group B to p6-search and group C to p2-search (its own choice). The tenth tool is not shown and not
 * offered.
 */

export type ParamGroup = 'A' | 'B' | 'C' | 'p3' | 'p5' | 'none'

export interface SearchTool {
  readonly name: string
  /** US dollars per query (section 4.5). */
  readonly usdPerQuery: number
  readonly group: ParamGroup
}

export const SEARCH_TOOLS: readonly SearchTool[] = [
  { name: 'p1-search', usdPerQuery: 0.001, group: 'A' },
  { name: 'p2-search', usdPerQuery: 0.003, group: 'C' },
  { name: 'p3-search', usdPerQuery: 0.004, group: 'p3' },
  { name: 'p4-search', usdPerQuery: 0.005, group: 'none' },
  { name: 'p5-search', usdPerQuery: 0.008, group: 'p5' },
  { name: 'p6-search', usdPerQuery: 0.008, group: 'B' },
  { name: 'p3-search-pro', usdPerQuery: 0.009, group: 'p3' },
  { name: 'p5-search-advanced', usdPerQuery: 0.016, group: 'p5' },
  { name: 'p7-search', usdPerQuery: 0.025, group: 'none' },
]

const BY_NAME: ReadonlyMap<string, SearchTool> = new Map(SEARCH_TOOLS.map((tool) => [tool.name, tool]))

export function findSearchTool(name: string): SearchTool | undefined {
  return BY_NAME.get(name)
}
