/** summary.md: what a person reads on a CI job page. Verdict first, then the table, then what went wrong. */
import type { Summary } from './summary.ts'

const VERDICT_LINE: Record<Summary['verdict'], string> = {
  conformant: 'CONFORMANT: no MUST requirement failed and none was skipped',
  'non-conformant': 'NOT CONFORMANT: at least one MUST requirement failed',
  incomplete: 'INCOMPLETE: no MUST requirement failed, but some were skipped',
  error: 'ERROR: the harness could not complete the run',
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.startsWith('Seen:')) ?? text.split('\n')[0] ?? '').slice(0, 300)
}

function usd(value: number): string {
  return `$${value < 0.01 && value > 0 ? value.toFixed(6).replace(/0+$/, '') : value.toFixed(2)}`
}

export function spendLine(spend: Summary['spend']): string {
  const budget = spend.budgetUsd === null ? 'no budget (embedded target)' : `budget ${usd(spend.budgetUsd)}`
  const measured = spend.measuredUsd === null ? 'not measured' : `${usd(spend.measuredUsd)} by the credit record`
  return `spend: estimated ${usd(spend.estimatedUsd)} in ${spend.items.length} billable calls, ${budget}; measured ${measured}`
}

export function renderMarkdown(s: Summary): string {
  const out: string[] = []
  out.push(`# Gateway conformance: ${VERDICT_LINE[s.verdict]} (exit ${s.exitCode})`, '')
  out.push(`- target: ${s.target.baseUrl}${s.target.embedded ? ' (embedded reference gateway)' : ''}`)
  out.push(`- as-of date: ${s.asOf}`)
  out.push(`- run: ${s.runId}, ${s.startedAt}, ${(s.durationMs / 1000).toFixed(1)} s, ${s.tool.name} ${s.tool.version}`)
  out.push(`- families: ${s.selection.families?.join(', ') ?? 'all'}${s.selection.grep ? `, grep "${s.selection.grep}"` : ''}`)
  out.push(`- tests: ${s.tests.total} (${s.tests.passed} passed, ${s.tests.failed} failed, ${s.tests.skipped} skipped); retries after 429: ${s.retries.length}; calls paced by the rate-limit headers: ${s.pacing.length}`)
  out.push(`- ${spendLine(s.spend)}`, '')
  out.push('| family | pass | fail | warn | skip | error | disabled |', '|---|---:|---:|---:|---:|---:|---:|')
  for (const [family, c] of Object.entries(s.families)) {
    out.push(`| ${family} | ${c.pass} | ${c.fail} | ${c.warn} | ${c.skip} | ${c.error} | ${c.disabled} |`)
  }
  const t = s.totals
  out.push(`| **all** | **${t.pass}** | **${t.fail}** | **${t.warn}** | **${t.skip}** | **${t.error}** | **${t.disabled}** |`, '')

  const section = (title: string, rows: Summary['requirements'], describe: (r: Summary['requirements'][number]) => string): void => {
    if (rows.length === 0) return
    out.push(`## ${title}`, '', '| requirement | level | section | rule | reason |', '|---|---|---|---|---|')
    for (const r of rows) out.push(`| ${r.id} | ${r.level} | Part ${r.part} §${r.section} | ${cell(r.rule)} | ${cell(describe(r))} |`)
    out.push('')
  }
  const req = s.requirements
  section('Failures', req.filter((r) => r.status === 'fail'), (r) => firstLine(r.evidence[0]?.message ?? ''))
  section('Harness errors', req.filter((r) => r.status === 'error'), (r) => firstLine(r.evidence[0]?.message ?? ''))
  section('Warnings (SHOULD)', req.filter((r) => r.status === 'warn'), (r) => firstLine(r.evidence[0]?.message ?? ''))
  section('Skipped MUST requirements', req.filter((r) => r.status === 'skip' && r.level === 'MUST'), (r) => r.reason ?? '')
  section('Partly checked', req.filter((r) => r.partial === true), (r) => r.reason ?? '')
  if (s.harnessErrors.length > 0) out.push('## Errors outside tests', '', ...s.harnessErrors.map((e) => `- ${cell(e)}`), '')
  if (s.observations.length > 0) {
    out.push('## Observations (not judged: the reference does not show these)', '')
    for (const o of s.observations) out.push(`- **${o.topic}**: ${o.detail}`)
    out.push('')
  }
  return out.join('\n')
}
