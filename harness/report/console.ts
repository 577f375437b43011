/** What `npm run conformance` prints: a line per finished file, then failures, the family table and the verdict. */
import { baselineConsole } from './baseline.ts'
import { countByFamily, type Counts, type RequirementResult } from './results.ts'
import { verdictText } from './scope.ts'
import { spendLine } from './markdown.ts'
import type { Summary } from './summary.ts'
import { fixFirstLines } from './causes.ts'

const COLUMNS: Array<keyof Counts> = ['pass', 'fail', 'warn', 'skip', 'not-observed', 'error', 'disabled', 'known']

function familyTable(families: Map<string, Counts>, totals: Counts): string {
  const names = [...families.keys(), 'all']
  const width = Math.max(8, ...names.map((n) => n.length))
  const row = (name: string, c: Counts): string =>
    `  ${name.padEnd(width)} ${COLUMNS.map((k) => String(c[k]).padStart(13)).join('')}`
  return [
    `  ${'family'.padEnd(width)} ${COLUMNS.map((k) => k.padStart(13)).join('')}`,
    ...[...families].map(([name, c]) => row(name, c)),
    row('all', totals),
  ].join('\n')
}

function verdictLine(summary: Summary): string {
  return `${verdictText(summary.verdict, summary.scope)} (exit ${summary.exitCode})`
}

function failureBlocks(results: readonly RequirementResult[]): string {
  const blocks: string[] = []
  for (const r of results) {
    if (r.status !== 'fail' && r.status !== 'warn' && r.status !== 'error') continue
    const first = r.evidence[0]
    const label = `${r.status === 'warn' ? 'WARN' : r.status === 'error' ? 'ERROR' : 'FAIL'}${r.flaky ? ' (flaky: passed when run again at once)' : ''}`
    const more = r.evidence.length > 1 ? `\n  (+${r.evidence.length - 1} more in summary.json)` : ''
    blocks.push(`${label} ${r.id}  (${first?.test ?? ''})\n${indent(first?.message ?? r.rule)}${more}`)
  }
  return blocks.join('\n\n')
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')
}

/**
 * The end of a run's console output, the same for a run and for a merge: failures, baseline, harness errors,
 * spend, the family table and the verdict line.
 */
export function endOfRun(summary: Summary): string {
  const parts: string[] = []
  const causes = summary.fixFirst ?? []
  if (causes.length > 0)
    parts.push(
      `Fix first (each cause, what it decides, the call that shows it):\n${fixFirstLines(causes)
        .map((line) => `  ${line}`)
        .join('\n')}`,
    )
  const failures = failureBlocks(summary.requirements)
  if (failures) parts.push(failures)
  const baselineText = baselineConsole(summary.baseline, summary.requirements)
  if (baselineText) parts.push(baselineText)
  if (summary.stopped !== undefined)
    parts.push(
      `Run stopped, report partial (exit 2): ${summary.stopped}${summary.totals.error > 0 ? `; ${summary.totals.error} requirements not judged (error)` : ''}`,
    )
  if (summary.harnessErrors.length > 0)
    parts.push(`Harness errors:\n${summary.harnessErrors.map((e) => `  ${e}`).join('\n')}`)
  if (summary.spend.items.length > 0 || summary.spend.measuredUsd !== null) parts.push(spendLine(summary.spend))
  parts.push(
    `Requirements by family (${summary.requirements.length} in the catalogue, as-of ${summary.asOf}, target ${summary.target.baseUrl}):\n` +
      `${familyTable(countByFamily(summary.requirements), summary.totals)}\n\n${verdictLine(summary)}`,
  )
  return parts.join('\n\n')
}
