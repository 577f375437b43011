/**
 * What a run selects beyond families and files: `--grep` and `--level must` become one vitest test name
 * pattern. Every test is declared with check(), whose name starts with its requirement id in brackets
 * (`[P1-4.1-svc-request-id] ...`), so the MUST tests are the ones whose name holds `[<a MUST id>]`: filtering at
 * collection keeps SHOULD tests from running at all, with no setup file or suite change.
 */
import type { Requirement } from '../requirements.ts'

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
}

/** The ids of the selected level, or null when every level runs. */
export function levelIds(requirements: Iterable<Requirement>, level: 'MUST' | null | undefined): string[] | null {
  if (!level) return null
  return [...requirements].filter((r) => r.level === level).map((r) => r.id)
}

/**
 * vitest's testNamePattern (matched against "file describe... [ID] title") for a grep and a set of ids; both
 * must hold, so each is a lookahead of its own. Null selects everything.
 */
export function testNamePattern(grep: string | null, ids: readonly string[] | null): string | null {
  if (ids === null) return grep
  const idPattern = `\\[(?:${ids.map(escapeRegExp).join('|')})\\]`
  if (grep === null) return idPattern
  return `^(?=[\\s\\S]*?(?:${grep}))(?=[\\s\\S]*?${idPattern})`
}
