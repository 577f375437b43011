/** summary.md of a load run: what a person reads on a CI job page. Outcome first, then verdicts, then figures. */
import type { HistogramSummary, LoadResult, PhaseResult } from '../types.ts'
import { goodputOf } from '../verdicts.ts'
import {
  arrivalLine,
  capacityLines,
  countsLine,
  goodputLine,
  mixLine,
  ms,
  objectivesLine,
  OUTCOME_LINE,
  rateLine,
  runDurationMs,
  seconds,
  shardLine,
  STEP_HEAD,
  statusClasses,
  stepRow,
  sumValues,
} from './lines.ts'
import { SPREAD_HEAD, spreadRows } from './spread.ts'

/** Text from the result: job pages render inline HTML, so "<b>" or "remaining <0" must show as typed; one line. */
export function text(value: string | number): string {
  return String(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll(/\r?\n/g, ' ')
}

/** A table cell: a pipe would end the cell (and a backslash before it would undo the escape). */
export function cell(value: string | number): string {
  return text(value).replaceAll('\\', '\\\\').replaceAll('|', '\\|')
}

function table(head: string[], rows: (string | number)[][], numeric: boolean[] = []): string[] {
  return [
    `| ${head.map(cell).join(' | ')} |`,
    `|${head.map((_, i) => (numeric[i] ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ]
}

function phaseRow(phase: PhaseResult): (string | number)[] {
  const c = statusClasses(phase.byStatus)
  const l = phase.latency
  return [
    phase.plan.name,
    phase.sent,
    rateLine(phase),
    c.ok,
    c.refused,
    c.clientErrors,
    c.serverErrors,
    sumValues(phase.errors),
    l.count === 0 ? '-' : `${ms(l.p50)} / ${ms(l.p90)} / ${ms(l.p99)}`,
  ]
}

const pct = (h: HistogramSummary): string => (h.count === 0 ? '-' : `${ms(h.p50)} / ${ms(h.p90)} / ${ms(h.p99)}`)

export function renderSummaryMd(result: LoadResult): string {
  return [
    ...headLines(result),
    ...verdictLines(result),
    ...capacitySection(result),
    ...phaseSection(result),
    ...goodputSection(result),
    ...backoffSection(result),
    ...streamingSection(result),
    ...spreadSection(result),
  ].join('\n')
}

/** The outcome, and what ran against what: target, profile, run, shard, objectives. */
function headLines(result: LoadResult): string[] {
  const out: string[] = []
  const p = result.profile
  out.push(`# Gateway load: ${OUTCOME_LINE[result.outcome]} (exit ${result.exitCode})`, '')
  if (result.partial)
    out.push(
      `> **Partial run**: stopped early (${text(result.stopReason ?? 'no reason recorded')}); the figures are ` +
        `what had been measured by then.`,
      '',
    )
  const limiter = result.target.limiter ? `, --limiter ${text(result.target.limiter)}` : ''
  const embedded = result.target.embedded ? ` (embedded reference gateway${limiter})` : ''
  out.push(`- target: ${text(result.target.baseUrl)}${embedded}, minute ${result.target.minuteMs} ms`)
  out.push(
    `- profile: ${text(p.name)}${p.tier === null ? '' : `, tier ${p.tier}`}: ` +
      `${text(p.description)}${p.seed === undefined ? '' : ` (seed ${p.seed})`}`,
  )
  out.push(
    `- run: ${text(result.runId)}, ${text(result.startedAt)}, ${seconds(runDurationMs(result))}, ` +
      `${text(`${result.tool.name} ${result.tool.version}`)}`,
  )
  out.push(`- ${text(shardLine(result))}`)
  const objectives = objectivesLine(result)
  if (objectives !== null) out.push(`- objectives: ${text(objectives)}`)
  out.push('')

  return out
}

/** Every verdict, the failed and inconclusive ones explained, and the algorithm seen. */
function verdictLines(result: LoadResult): string[] {
  const out: string[] = []
  out.push('## Verdicts', '')
  if (result.verdicts.length === 0) out.push('No verdict was judged.')
  else
    out.push(
      ...table(
        ['phase', 'verdict', 'status', 'figure', 'section'],
        result.verdicts.map((v) => [v.phase, v.id, v.status.toUpperCase(), v.figure, v.section]),
      ),
    )
  out.push('')
  const explained = result.verdicts.filter((v) => v.status === 'fail' || v.status === 'inconclusive')
  for (const v of explained) out.push(`- **${v.id}** (${text(v.phase)}, ${v.status}): ${text(v.detail)}`)
  if (explained.length > 0) out.push('')
  // The reference names no algorithm: what the target seems to use is told, never judged.
  const observed = result.phases.filter((ph) => ph.algorithm)
  if (observed.length > 0) {
    out.push('## Rate-limit algorithm (observed, not judged)', '')
    for (const ph of observed) out.push(`- ${text(ph.plan.name)}: ${text(ph.algorithm as string)}`)
    out.push('')
  }

  return out
}

/** The capacity search: what it found and each step. */
function capacitySection(result: LoadResult): string[] {
  const out: string[] = []
  const c = result.capacity
  if (c) {
    out.push('## Capacity search', '')
    out.push(...capacityLines(c).map((line) => `- ${text(line)}`), '')
    out.push(
      ...table(
        STEP_HEAD,
        c.steps.map(stepRow),
        STEP_HEAD.map((_, i) => i >= 2 && i <= 9),
      ),
      '',
    )
  }

  return out
}

/** Each phase in a row, and notes for what the row leaves out. */
function phaseSection(result: LoadResult): string[] {
  const out: string[] = []
  if (result.phases.length > 0) {
    out.push('## Phases', '')
    out.push(
      ...table(
        ['phase', 'sent', 'achieved / offered', '2xx', '429', 'other 4xx', '5xx', 'errors', 'latency p50 / p90 / p99'],
        result.phases.map(phaseRow),
        [false, true, false, true, true, true, true, true, false],
      ),
      '',
    )
    // The table's classes leave out 1xx and 3xx and name no error: list them, so that no call goes unaccounted.
    const notes: string[] = []
    for (const ph of result.phases) {
      // Constant arrivals are how every phase ran before processes existed: only another process earns a line.
      const arrivals = ph.plan.arrival ? arrivalLine(ph) : null
      if (arrivals !== null)
        notes.push(`- ${text(ph.plan.name)}: ${text(ph.plan.description)}; arrivals ${text(arrivals)}`)
      const mix = mixLine(ph)
      if (mix !== null) notes.push(`- ${text(ph.plan.name)}: calls by route: ${text(mix)}`)
      if (sumValues(ph.errors) > 0)
        notes.push(`- ${text(ph.plan.name)}: calls without an answer: ${text(countsLine(ph.errors))}`)
      if (statusClasses(ph.byStatus).other > 0)
        notes.push(`- ${text(ph.plan.name)}: all statuses: ${text(countsLine(ph.byStatus))}`)
    }
    if (notes.length > 0) out.push(...notes, '')
  }

  return out
}

/** Goodput beside throughput: the calls answered 2xx, and those within every per-call objective. */
function goodputSection(result: LoadResult): string[] {
  const out: string[] = []
  if (result.objectives && result.objectives.length > 0 && !result.capacity) {
    out.push('## Goodput', '')
    out.push(
      ...table(
        ['phase', 'throughput and goodput'],
        result.phases.map((ph) => [ph.plan.name, goodputLine(ph)]),
      ),
      '',
    )
  }

  return out
}

/** The backoff clients: how each policy fared against the limit. */
function backoffSection(result: LoadResult): string[] {
  const out: string[] = []
  const backoff = result.phases.filter((ph) => ph.clients)
  if (backoff.length > 0) {
    out.push('## Backoff clients', '')
    out.push(
      ...table(
        [
          'phase',
          'policy',
          'workers',
          'tasks',
          'successes',
          'gave up',
          'refusals per success',
          'goodput',
          'recovery p50 / p99',
        ],
        backoff.map((ph) => {
          const c = ph.clients!
          return [
            ph.plan.name,
            c.policy,
            c.workers,
            c.tasks,
            c.successes,
            c.gaveUp,
            c.successes === 0 ? '-' : (c.refusals / c.successes).toFixed(2),
            ((g) => (g === null ? '-' : `${(g * 100).toFixed(0)}%`))(goodputOf(ph, result.target.minuteMs)),
            c.recovery.count === 0 ? '-' : `${ms(c.recovery.p50)} / ${ms(c.recovery.p99)}`,
          ]
        }),
        [false, false, true, true, true, true, true, false, false],
      ),
      '',
    )
  }

  return out
}

/** Streams: completed and truncated, and their timings event by event. */
function streamingSection(result: LoadResult): string[] {
  const out: string[] = []
  const streams = result.phases.filter((ph) => ph.stream)
  if (streams.length > 0) {
    out.push('## Streaming', '')
    out.push(
      ...table(
        [
          'phase',
          'completed',
          'truncated',
          'ttft p50 / p90 / p99',
          'between tokens p50 / p90 / p99',
          'end to end p50 / p90 / p99',
          'tokens/s p50',
        ],
        streams.map((ph) => {
          const st = ph.stream!
          const tps = st.tokensPerSecond.count === 0 ? '-' : st.tokensPerSecond.p50.toFixed(1)
          return [ph.plan.name, st.completed, st.truncated, pct(st.ttft), pct(st.interToken), pct(st.endToEnd), tps]
        }),
        [false, true, true, false, false, false, true],
      ),
      '',
    )
  }
  return out
}

/** The spread over repeats, and where the rest of the figures are. */
function spreadSection(result: LoadResult): string[] {
  const out: string[] = []
  if (result.repeats) {
    out.push(`## Spread over ${result.repeats.count} repeats`, '')
    out.push(...table(SPREAD_HEAD, spreadRows(result)), '')
  }
  out.push('Charts of every phase are in report.html; every figure is in result.json.', '')
  return out
}
