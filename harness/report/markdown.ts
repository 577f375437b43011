/** summary.md: what a person reads on a CI job page. Verdict first, then the table, then what went wrong. */
import { baselineLine } from '../baseline.ts'
import { attributionLine } from '../attribution.ts'
import { verdictText } from '../scope.ts'
import type { Summary } from './summary.ts'

const VERDICT_LINE: Record<Summary['verdict'], string> = {
  conformant: 'CONFORMANT: no MUST requirement failed and none was skipped',
  'non-conformant': 'NOT CONFORMANT: at least one MUST requirement failed',
  incomplete: 'INCOMPLETE: no MUST requirement failed, but some were skipped',
  error: 'ERROR: the harness could not complete the run',
  'stale-baseline': 'STALE BASELINE: nothing failed beyond the baseline, but some of its entries pass now',
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
  const refused = spend.items.filter((item) => item.refused !== undefined).length
  return `spend: estimated ${usd(spend.estimatedUsd)} in ${spend.items.length - refused} billable calls${refused > 0 ? ` (${refused} more refused, their reservations released)` : ''}, ${budget}; measured ${measured}`
}

/** "0, 2 (…); no key for 1, 3" and so on: what a reader needs to tell a complete tier check from a partial one. */
export function tiersLine(tiers: Summary['tiers']): string {
  const list = (xs: Summary['tiers']): string => xs.map((t) => t.tier).join(', ')
  const tested = tiers.filter((t) => t.calls > 0)
  const idle = tiers.filter((t) => t.keyGiven && t.calls === 0)
  const absent = tiers.filter((t) => !t.keyGiven)
  const parts = [
    tested.length === 0
      ? 'none'
      : `${list(tested)} (${tested.map((t) => t.calls).reduce((a, b) => a + b, 0)} calls with tier keys)`,
  ]
  if (idle.length > 0) parts.push(`key given but not used: ${list(idle)}`)
  if (absent.length > 0) parts.push(`no key for ${list(absent)} (their checks are skipped)`)
  return parts.join('; ')
}

export function renderMarkdown(s: Summary): string {
  const out: string[] = []
  const verdict = s.scope && !s.scope.whole ? verdictText(s.verdict, s.scope) : VERDICT_LINE[s.verdict]
  out.push(`# Gateway conformance: ${verdict} (exit ${s.exitCode})`, '')
  out.push(`- target: ${s.target.baseUrl}${s.target.embedded ? ' (embedded reference gateway)' : ''}`)
  out.push(`- as-of date: ${s.asOf}`)
  out.push(`- tiers tested: ${tiersLine(s.tiers)}`)
  out.push(`- package: ${attributionLine(s.tool)}`)
  out.push(`- time: ${s.startedAt} to ${s.finishedAt} (${(s.durationMs / 1000).toFixed(1)} s), run ${s.runId}`)
  out.push(
    `- families: ${s.selection.families?.join(', ') ?? 'all'}${s.selection.grep ? `, grep "${s.selection.grep}"` : ''}${s.selection.level ? ', MUST requirements only' : ''}${s.selection.shard ? `, shard ${s.selection.shard.index}/${s.selection.shard.count}` : ''}`,
  )
  if (s.baseline) out.push(`- ${baselineLine(s.baseline)}`)
  out.push(
    `- tests: ${s.tests.total} (${s.tests.passed} passed, ${s.tests.failed} failed, ${s.tests.skipped} skipped); retries after 429: ${s.retries.length}; calls paced by the rate-limit headers: ${s.pacing.length}`,
  )
  out.push(`- ${spendLine(s.spend)}`, '')
  out.push(
    '| family | pass | fail | warn | skip | error | disabled | known |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  )
  for (const [family, c] of Object.entries(s.families)) {
    out.push(`| ${family} | ${c.pass} | ${c.fail} | ${c.warn} | ${c.skip} | ${c.error} | ${c.disabled} | ${c.known} |`)
  }
  const t = s.totals
  out.push(
    `| **all** | **${t.pass}** | **${t.fail}** | **${t.warn}** | **${t.skip}** | **${t.error}** | **${t.disabled}** | **${t.known}** |`,
    '',
  )

  const section = (
    title: string,
    rows: Summary['requirements'],
    describe: (r: Summary['requirements'][number]) => string,
  ): void => {
    if (rows.length === 0) return
    out.push(`## ${title}`, '', '| requirement | level | section | rule | reason |', '|---|---|---|---|---|')
    for (const r of rows)
      out.push(`| ${r.id} | ${r.level} | Part ${r.part} §${r.section} | ${cell(r.rule)} | ${cell(describe(r))} |`)
    out.push('')
  }
  const req = s.requirements
  section(
    'Failures',
    req.filter((r) => r.status === 'fail'),
    (r) => `${r.flaky === true ? '(flaky: passed when run again) ' : ''}${firstLine(r.evidence[0]?.message ?? '')}`,
  )
  section(
    'Harness errors',
    req.filter((r) => r.status === 'error'),
    (r) => firstLine(r.evidence[0]?.message ?? ''),
  )
  section(
    'Warnings (SHOULD)',
    req.filter((r) => r.status === 'warn'),
    (r) => firstLine(r.evidence[0]?.message ?? ''),
  )
  section(
    'Skipped MUST requirements (give what the reason names to judge them)',
    req.filter((r) => r.status === 'skip' && r.level === 'MUST'),
    (r) => r.reason ?? '',
  )
  section(
    'Not observed on this target (no client can provoke these; judged when a run meets them)',
    req.filter((r) => r.status === 'not-observed'),
    (r) => r.reason ?? '',
  )
  section(
    'Known failures (listed in the baseline)',
    req.filter((r) => r.status === 'known'),
    (r) => r.baseline?.reason ?? '',
  )
  section(
    'Stale baseline entries (they pass now: remove them)',
    req.filter((r) => r.baseline?.state === 'stale'),
    (r) => r.baseline?.reason ?? '',
  )
  section(
    'Partly checked',
    req.filter((r) => r.partial === true),
    (r) => r.reason ?? '',
  )
  if (s.stopped !== undefined) out.push('## Run stopped: this report is partial', '', cell(s.stopped), '')
  if (s.harnessErrors.length > 0)
    out.push('## Errors outside tests', '', ...s.harnessErrors.map((e) => `- ${cell(e)}`), '')
  if (s.observations.length > 0) {
    out.push('## Observations (not judged: the reference does not show these)', '')
    for (const o of s.observations) out.push(`- **${o.topic}**: ${o.detail}`)
    out.push('')
  }
  out.push(
    "Beside this file: `summary.json` (everything, for machines), `coverage.md` (every requirement and the tests that check it), `exchanges.har` (every HTTP exchange, for a browser's network panel), `junit.xml`, `allure-results/`.",
    '',
  )
  return out.join('\n')
}
