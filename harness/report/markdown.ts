/** summary.md: what a person reads on a CI job page. Verdict first, then the table, then what went wrong. */
import { baselineLine } from './baseline.ts'
import { attributionLine } from './attribution.ts'
import { verdictText } from './scope.ts'
import type { Summary } from './summary.ts'
import { exchangeLine } from './causes.ts'

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

type Row = Summary['requirements'][number]

export function renderMarkdown(s: Summary): string {
  const [title, ...rest] = head(s)
  return [
    title as string,
    '',
    ...fixFirstSection(s),
    ...rest,
    ...familyTable(s),
    ...problemSections(s),
    ...tail(s),
  ].join('\n')
}

const LISTED_UNJUDGED = 12 // requirement ids named per cause; summary.json has them all

/** Each cause, the call that shows it, and how many requirements it decides, largest first. */
function fixFirstSection(s: Summary): string[] {
  const entries = s.fixFirst ?? []
  if (entries.length === 0) return []
  return [
    '## Fix first',
    '',
    'Each failure once, with the requirements it decides: its own and every one skipped or not judged because of it.',
    '',
    '| cause | level | the call that shows it | decides MUST | decides SHOULD | unjudged because of it |',
    '|---|---|---|---:|---:|---|',
    ...entries.map((e) => {
      const listed = e.requirements.slice(0, LISTED_UNJUDGED).join(', ')
      const more = e.requirements.length > LISTED_UNJUDGED ? ` and ${e.requirements.length - LISTED_UNJUDGED} more` : ''
      return `| ${e.cause} | ${e.level}${e.status === 'warn' ? ' (warn)' : ''} | \`${cell(exchangeLine(e))}\` | ${e.decides.must} | ${e.decides.should} | ${cell(listed + more) || '-'} |`
    }),
    '',
  ]
}

/** The verdict and what the run was: target, date, tiers, package, time, selection, tests, spend. */
function head(s: Summary): string[] {
  const verdict = s.scope && !s.scope.whole ? verdictText(s.verdict, s.scope) : VERDICT_LINE[s.verdict]
  const { families, grep, level, shard } = s.selection
  return [
    `# Gateway conformance: ${verdict} (exit ${s.exitCode})`,
    `- target: ${s.target.baseUrl}${s.target.embedded ? ' (embedded reference gateway)' : ''}`,
    `- as-of date: ${s.asOf}`,
    `- tiers tested: ${tiersLine(s.tiers)}`,
    `- package: ${attributionLine(s.tool)}`,
    `- time: ${s.startedAt} to ${s.finishedAt} (${(s.durationMs / 1000).toFixed(1)} s), run ${s.runId}`,
    `- families: ${families?.join(', ') ?? 'all'}${grep ? `, grep "${grep}"` : ''}${level ? ', MUST requirements only' : ''}${shard ? `, shard ${shard.index}/${shard.count}` : ''}`,
    ...(s.baseline ? [`- ${baselineLine(s.baseline)}`] : []),
    `- tests: ${s.tests.total} (${s.tests.passed} passed, ${s.tests.failed} failed, ${s.tests.skipped} skipped); retries after 429: ${s.retries.length}; calls paced by the rate-limit headers: ${s.pacing.length}`,
    `- ${spendLine(s.spend)}`,
    '',
  ]
}

function familyTable(s: Summary): string[] {
  const t = s.totals
  return [
    '| family | pass | fail | warn | skip | error | disabled | known |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(s.families).map(
      ([family, c]) =>
        `| ${family} | ${c.pass} | ${c.fail} | ${c.warn} | ${c.skip} | ${c.error} | ${c.disabled} | ${c.known} |`,
    ),
    `| **all** | **${t.pass}** | **${t.fail}** | **${t.warn}** | **${t.skip}** | **${t.error}** | **${t.disabled}** | **${t.known}** |`,
    '',
  ]
}

const seen = (r: Row): string => firstLine(r.evidence[0]?.message ?? '')

/** One table per kind of requirement that needs a reader: its title, which rows, and what the reason column says. */
const SECTIONS: ReadonlyArray<readonly [string, (r: Row) => boolean, (r: Row) => string]> = [
  [
    'Failures',
    (r) => r.status === 'fail',
    (r) => `${r.flaky === true ? '(flaky: passed when run again) ' : ''}${seen(r)}`,
  ],
  ['Harness errors', (r) => r.status === 'error', seen],
  ['Warnings (SHOULD)', (r) => r.status === 'warn', seen],
  [
    'Skipped MUST requirements (give what the reason names to judge them)',
    (r) => r.status === 'skip' && r.level === 'MUST',
    (r) => r.reason ?? '',
  ],
  [
    'Not observed on this target (no client can provoke these; judged when a run meets them)',
    (r) => r.status === 'not-observed',
    (r) => r.reason ?? '',
  ],
  ['Known failures (listed in the baseline)', (r) => r.status === 'known', (r) => r.baseline?.reason ?? ''],
  [
    'Stale baseline entries (they pass now: remove them)',
    (r) => r.baseline?.state === 'stale',
    (r) => r.baseline?.reason ?? '',
  ],
  ['Partly checked', (r) => r.partial === true, (r) => r.reason ?? ''],
]

function problemSections(s: Summary): string[] {
  return SECTIONS.flatMap(([title, selected, describe]) => {
    const rows = s.requirements.filter(selected)
    if (rows.length === 0) return []
    return [
      `## ${title}`,
      '',
      '| requirement | level | section | rule | reason |',
      '|---|---|---|---|---|',
      ...rows.map(
        (r) => `| ${r.id} | ${r.level} | Part ${r.part} §${r.section} | ${cell(r.rule)} | ${cell(describe(r))} |`,
      ),
      '',
    ]
  })
}

/** A stopped run, errors outside tests, observations, and where the other reports are. */
function tail(s: Summary): string[] {
  const out: string[] = []
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
  return out
}
