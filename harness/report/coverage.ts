/**
 * coverage.md: the requirement coverage matrix of one run. Every requirement of the catalogue with its level,
 * the tests that checked it in this run and their results; MUST requirements that no test checks come first,
 * then those the catalogue marks untestable (with its reason). `npm run conformance -- --list-requirements`
 * gives the same matrix without running anything.
 */
import type { RequirementResult, TestSummary } from './results.ts'
import type { Summary } from './summary.ts'

/** The catalogue's reason why no test can check a requirement, or undefined when one can. */
type UntestableReason = (id: string) => string | undefined

const RESULT: Record<TestSummary['status'], string> = {
  pass: 'pass',
  fail: 'fail',
  skip: 'skipped',
  error: 'error',
  unselected: 'not selected',
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

function checkedBy(r: RequirementResult): string {
  const lines = r.tests.map((t) => `${t.file} › ${t.name}: **${RESULT[t.status]}**`)
  if (r.audit !== undefined)
    lines.push(`audit of every response: ${r.audit.checked} checked, **${r.audit.failed} failed**`)
  if (lines.length === 0) return r.status === 'disabled' ? `not run: ${r.reason ?? ''}` : '**no test**'
  return lines.map(cell).join('<br>')
}

function result(r: RequirementResult): string {
  return `${r.status}${r.partial === true ? ' (partial)' : ''}`
}

export function renderCoverage(s: Summary, untestable: UntestableReason): string {
  const req = s.requirements
  const must = req.filter((r) => r.level === 'MUST')
  // What no test or audit of a selected family reached (an untestable one is disabled with its reason instead).
  const uncheckedMust = new Set(s.uncheckedMust)
  const missing = must.filter((r) => uncheckedMust.has(r.id))
  const marked = req.filter((r) => untestable(r.id) !== undefined)
  const reached = req.filter((r) => r.tests.length > 0 || r.audit !== undefined)
  const notRun = req.filter(
    (r) => r.tests.length === 0 && r.audit === undefined && r.status === 'disabled' && untestable(r.id) === undefined,
  )

  const out: string[] = [`# Requirement coverage: run ${s.runId}`, '']
  out.push(
    `${req.length} requirements (${must.length} MUST, ${req.length - must.length} SHOULD): ${reached.length} checked by a test or the audit of every response in this run, ` +
      `${missing.length} MUST without a test, ${marked.length} untestable, ${notRun.length} not run (not selected).`,
    '',
  )
  out.push(`## MUST requirements without a test (${missing.length})`, '')
  if (missing.length === 0)
    out.push(
      'None: every MUST requirement of the selected families is checked by a test or by the audit of every response.',
      '',
    )
  else {
    out.push('| requirement | section | family | rule |', '|---|---|---|---|')
    for (const r of missing) out.push(`| ${r.id} | Part ${r.part} §${r.section} | ${r.family} | ${cell(r.rule)} |`)
    out.push('')
  }
  if (marked.length > 0) {
    out.push(
      `## Untestable (${marked.length})`,
      '',
      '| requirement | level | section | why no test can check it |',
      '|---|---|---|---|',
    )
    for (const r of marked)
      out.push(`| ${r.id} | ${r.level} | Part ${r.part} §${r.section} | ${cell(untestable(r.id) ?? '')} |`)
    out.push('')
  }
  out.push(
    '## Every requirement',
    '',
    '| requirement | level | section | result | checked by (test: its result) |',
    '|---|---|---|---|---|',
  )
  for (const r of req)
    out.push(`| ${r.id} | ${r.level} | Part ${r.part} §${r.section} | ${result(r)} | ${checkedBy(r)} |`)
  out.push('')
  return out.join('\n')
}
