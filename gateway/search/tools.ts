/**
 * The search tools of Part 2 section 4.5: the nine listed tools, their prices per query, and which provider
 * parameter group each one takes. Group A is tied to p1-search, the p3 parameters to the p3 tools and the
 * full-name country to the p5 tools by the reference; the tools of groups B and C are not shown, so this gateway
 * gives group B to p6-search and group C to p2-search (its own choice). The tenth tool is not shown and not
 * offered.
 *
 * Under the real-names variation a tool answers to its maker's name (REAL_NAMES) and no longer to the neutral one,
 * as a real gateway would: the reference neutralised the names ("p1 to p7 stand for search providers").
 */
import { REAL_NAMES } from '../variations.ts'

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

const BY_REAL_NAME: ReadonlyMap<string, SearchTool> = new Map(
  SEARCH_TOOLS.flatMap((tool) => {
    const real = REAL_NAMES[tool.name]
    return real === undefined ? [] : [[real, tool] as const]
  }),
)

/** The tool a name stands for: its reference name, or with real names, its maker's name only. */
export function findSearchTool(name: string, realNames = false): SearchTool | undefined {
  return realNames ? BY_REAL_NAME.get(name) : BY_NAME.get(name)
}

/** The name a caller uses for a tool, which the transaction records and the results cite. */
export function calledName(tool: SearchTool, realNames = false): string {
  return realNames ? (REAL_NAMES[tool.name] ?? tool.name) : tool.name
}
