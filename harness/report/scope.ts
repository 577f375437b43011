/**
 * Whether a run judged the whole catalogue or a selection of it. Only a whole run is a conformance verdict: a run
 * narrowed by --family, --grep, --level, --shard or file filters says how much it selected and never "CONFORMANT".
 */
import type { RequirementResult, Verdict } from './results.ts'

export interface Scope {
  /** True when nothing was left out by a selection: the only runs whose verdict is one on the gateway. */
  whole: boolean
  /** Requirements the selection kept: the catalogue less those a selection disabled. */
  selected: number
  /** Requirements in the catalogue. */
  total: number
}

export interface SelectionInput {
  grep: string | null
  filters: readonly string[]
  level?: 'MUST' | null
  shard?: { index: number; count: number } | null
}

/** The starts of the reasons a selection gives what it left out (harness/report/results.ts aggregate). */
const LEFT_OUT = ['family not selected', 'level not selected', 'no test selected', 'not in this shard']

export function leftOutBySelection(result: Pick<RequirementResult, 'status' | 'reason'>): boolean {
  return result.status === 'disabled' && LEFT_OUT.some((start) => (result.reason ?? '').startsWith(start))
}

/**
 * A grep, a file filter, a level or a shard narrows the run even where every requirement kept a test: the tests it
 * dropped were part of what a whole run judges.
 */
export function scopeOf(
  results: readonly Pick<RequirementResult, 'status' | 'reason'>[],
  selection: SelectionInput,
): Scope {
  const leftOut = results.filter(leftOutBySelection).length
  const narrowed =
    selection.grep !== null || selection.filters.length > 0 || Boolean(selection.level) || Boolean(selection.shard)
  return { whole: leftOut === 0 && !narrowed, selected: results.length - leftOut, total: results.length }
}

const WHOLE: Record<Verdict, string> = {
  conformant: 'CONFORMANT: no MUST requirement failed or was skipped',
  'non-conformant': 'NOT CONFORMANT: a MUST requirement failed',
  incomplete: 'INCOMPLETE: no MUST requirement failed, but some were skipped',
  error: 'ERROR: the harness could not complete the run',
  'stale-baseline': 'STALE BASELINE: nothing failed beyond the baseline, but some of its entries pass now',
}

const PARTIAL: Record<Verdict, string> = {
  conformant: 'PASSED',
  'non-conformant': 'FAILED',
  incomplete: 'INCOMPLETE',
  error: 'ERROR',
  'stale-baseline': 'STALE BASELINE',
}

const PARTIAL_WHY: Record<Verdict, string> = {
  conformant: '',
  'non-conformant': ', a selected MUST requirement failed',
  incomplete: ', a selected MUST requirement was skipped',
  error: ', the harness could not complete the run',
  'stale-baseline': ', some baseline entries pass now',
}

/** The verdict as the console and summary.md state it, without the exit code. */
export function verdictText(verdict: Verdict, scope: Scope | undefined): string {
  if (scope === undefined || scope.whole) return WHOLE[verdict]
  return `${PARTIAL[verdict]} (partial: ${scope.selected} of ${scope.total} requirements selected)${PARTIAL_WHY[verdict]}: not a conformance verdict`
}
