/**
 * The lines both reports print the same way (report.html and summary.md), so that a number read on the CI job page
 * is the number found in the page.
 */
import { describeArrival } from '../engine/arrivals.ts'
import { objectivesText } from '../objectives.ts'
import type { CapacityResult, LoadResult, PhaseResult } from '../types.ts'

export const OUTCOME_LINE: Record<LoadResult['outcome'], string> = {
  pass: 'PASS: every verdict passed',
  fail: 'FAIL: at least one verdict failed',
  inconclusive: 'INCONCLUSIVE: no verdict failed, but some proved nothing',
  error: 'ERROR: the harness could not complete the run',
}

/** Answers by class of status; byStatus keys are status codes as strings ("200", "429"). */
export interface StatusClasses {
  ok: number
  refused: number
  clientErrors: number
  serverErrors: number
  other: number
}

export function statusClasses(byStatus: Record<string, number>): StatusClasses {
  const c: StatusClasses = { ok: 0, refused: 0, clientErrors: 0, serverErrors: 0, other: 0 }
  for (const [code, n] of Object.entries(byStatus)) {
    const status = Number(code)
    if (status === 429) c.refused += n
    else if (status >= 200 && status < 300) c.ok += n
    else if (status >= 400 && status < 500) c.clientErrors += n
    else if (status >= 500 && status < 600) c.serverErrors += n
    // 1xx and 3xx: the gateway sends none, but a figure must not vanish if a target does.
    else c.other += n
  }
  return c
}

export function sumValues(record: Record<string, number>): number {
  return Object.values(record).reduce((a, b) => a + b, 0)
}

/** "429: 12, 200: 40", largest first; "none" when empty. */
export function countsLine(record: Record<string, number>): string {
  const entries = Object.entries(record)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k}: ${n}`).join(', ')
}

/** Milliseconds to at most three significant figures, so 0.42 ms and 1234 ms both read well. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '-'
  if (value >= 100) return `${Math.round(value)} ms`
  if (value >= 10) return `${value.toFixed(1)} ms`
  return `${value.toFixed(2)} ms`
}

export function rate(value: number): string {
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)}/s`
}

export function seconds(durationMs: number): string {
  return `${(durationMs / 1000).toFixed(1)} s`
}

/** Achieved against offered: "48.9/s of 50/s offered" or "48.9/s (closed loop, 8 connections)". */
export function rateLine(phase: PhaseResult): string {
  const achieved = rate(phase.achievedRate)
  const pace = phase.plan.client?.pacePerSecond ?? null
  if (phase.plan.rate === null && pace !== null)
    return `${achieved} (${phase.plan.connections} workers, paced at most ${rate(pace)})`
  if (phase.plan.rate === null) return `${achieved} (closed loop, ${phase.plan.connections} connections)`
  const share = phase.plan.rate > 0 ? ` (${Math.round((phase.achievedRate / phase.plan.rate) * 100)}%)` : ''
  return `${achieved} of ${rate(phase.plan.rate)} offered${share}`
}

export function shardLine(result: LoadResult): string {
  if (result.shard) return `shard ${result.shard.index + 1} of ${result.shard.count}`
  if (result.mergedFrom.length > 0)
    return `merged from ${result.mergedFrom.length} shards: ${result.mergedFrom.join(', ')}`
  if (result.repeats) return `${result.repeats.count} repeats merged: ${result.repeats.dirs.join(', ')}`
  return 'single process'
}

export function runDurationMs(result: LoadResult): number {
  const d = Date.parse(result.endedAt) - Date.parse(result.startedAt)
  return Number.isFinite(d) ? d : 0
}

/** When the phase started, counted from the start of the run ("+12.3 s"). */
export function phaseOffset(result: LoadResult, phase: PhaseResult): string {
  const runStart = Date.parse(result.startedAt)
  return Number.isFinite(runStart) ? `+${seconds(phase.startedAt - runStart)}` : new Date(phase.startedAt).toISOString()
}

/** "12.4/s 2xx, 12.1/s good (97%)": throughput and goodput side by side. */
export function goodputLine(phase: PhaseResult): string {
  const g = phase.goodput
  if (!g) return '-'
  const share = g.ok === 0 ? '' : ` (${Math.round((g.good / g.ok) * 100)}% of 2xx)`
  return `${rate(g.throughputPerSecond)} 2xx, ${rate(g.goodputPerSecond)} good${share}`
}

export function objectivesLine(result: LoadResult): string | null {
  if (!result.objectives || result.objectives.length === 0) return null
  return `${objectivesText(result.objectives)}${result.abortOnFail ? ' (--abort-on-fail)' : ''}`
}

const BOUND_MET: Record<NonNullable<CapacityResult['bound']>, string> = {
  capacity: "the target's capacity (objectives or over-saturation broke first)",
  limit: "the target's limit (429s, or every step held up to the tier's limit)",
  ceiling: "the search's own ceiling (every step held)",
  generator: "the generator's own ceiling (inconclusive: it could not send faster with connections to spare)",
}

/** The capacity search's result as lines a reader takes in at once. */
export function capacityLines(c: CapacityResult): string[] {
  return [
    `highest sustainable rate: ${c.sustainable === null ? 'none (no step held)' : rate(c.sustainable)}` +
      `${c.firstBroken === null ? '' : `; first broken: ${rate(c.firstBroken)}`}`,
    `bound met first: ${c.bound === null ? 'none (the search was stopped)' : BOUND_MET[c.bound]}`,
    ...(c.tierLimit
      ? [
          `tier limit: ${c.tierLimit.perMinute} per minute (${c.tierLimit.source}), ` +
            `${rate(c.tierLimit.perSecond)} of the target's minute`,
        ]
      : []),
    `objectives: ${objectivesText(c.objectives)}`,
    `stopped: ${c.stopReason}`,
  ]
}

export const STEP_HEAD = [
  'step',
  'kind',
  'offered',
  'achieved',
  'throughput (2xx/s)',
  'goodput',
  'p50',
  'p99',
  'errors',
  '429',
  'outcome',
  'why',
]

export function stepRow(s: CapacityResult['steps'][number]): string[] {
  return [
    s.phase,
    s.kind,
    rate(s.offered),
    rate(s.achieved),
    rate(s.throughput),
    rate(s.goodput),
    ms(s.p50Ms),
    ms(s.p99Ms),
    `${Number((s.errors * 100).toPrecision(3))}%`,
    String(s.refused),
    s.outcome,
    s.why,
  ]
}

/**
 * How an open-loop phase's calls arrived, with the seed that repeats them; null for a closed loop or the clients
 * engine.
 */
export function arrivalLine(phase: PhaseResult): string | null {
  if (phase.plan.engine !== 'scheduler' || phase.plan.rate === null) return null
  return describeArrival(phase.plan.arrival, phase.plan.rate)
}

/**
 * A workload file's mix as sent: "responses-stream 20 (50 %, weight 50 %; 20 2xx), chat 12 (...)"; null without one.
 */
export function mixLine(phase: PhaseResult): string | null {
  const mix = phase.mix
  if (!mix) return null
  const total = sumValues(Object.fromEntries(Object.entries(mix).map(([k, v]) => [k, v.sent])))
  const weights = phase.plan.weights ?? {}
  const pct = (x: number): string => `${Math.round(x * 100)} %`
  return Object.entries(mix)
    .sort((a, b) => b[1].sent - a[1].sent || a[0].localeCompare(b[0]))
    .map(
      ([label, c]) =>
        `${label} ${c.sent} (${pct(total === 0 ? 0 : c.sent / total)}` +
        `${weights[label] !== undefined ? `, weight ${pct(weights[label])}` : ''}; ${c.ok} 2xx)`,
    )
    .join(', ')
}
