/**
 * Objectives (`--slo ttft_p99=2s,itl_p99=150ms,e2e_p99=30s,errors=1%`): bounds on what the recorder measures,
 * each judged as a verdict with its figure. A call is *good* when it succeeded and its own figures meet every
 * per-call bound (vLLM's and AIPerf's goodput); goodput is good calls per second, beside throughput.
 *
 * Metrics: e2e (whole call, of the calls answered 2xx), ttft (first text delta of a stream), itl (gaps between
 * deltas), tpot (per stream: time per output token after the first), lag (how late the generator sent against
 * its plan: the generator's figure, never a call's), errors (share of the calls that ended without a 2xx; a 429
 * is a refusal, counted apart, not an error, and so are calls failed on purpose and calls cut by a stop).
 */
import { ConfigError } from '../harness/errors.ts'
import { parseDurationMs } from '../harness/duration.ts'
import { decode, type HistogramView } from './engine/histogram.ts'
import type { Objective, ObjectiveMetric, PhaseResult, SeriesBucket, Verdict } from './types.ts'

export const LATENCY_METRICS = ['e2e', 'ttft', 'itl', 'tpot', 'lag'] as const
export type LatencyMetric = (typeof LATENCY_METRICS)[number]

/** Stream metrics bound a call only when it was streamed: a call without events has no token timing. */
export const STREAM_METRICS: ReadonlySet<ObjectiveMetric> = new Set(['ttft', 'itl', 'tpot'])

const NAME = /^([a-z0-9]+)_(p(\d{1,2}(?:\.\d+)?)|mean|max)$/

function bad(entry: string, why: string): ConfigError {
  return new ConfigError(`--slo "${entry}": ${why}`)
}

/** Parses `name=value,...` into objectives; one line saying what to fix on any mistake. */
export function parseObjectives(text: string): Objective[] {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  if (entries.length === 0) throw new ConfigError('--slo needs at least one objective, e.g. --slo e2e_p99=2s,errors=1%')
  const out: Objective[] = []
  for (const entry of entries) {
    const eq = entry.indexOf('=')
    if (eq < 1) throw bad(entry, 'write name=value, e.g. ttft_p99=2s or errors=1%')
    const name = entry.slice(0, eq).trim()
    const value = entry.slice(eq + 1).trim()
    if (out.some((o) => o.name === name)) throw bad(entry, `${name} is given twice`)
    if (name === 'errors') {
      const m = /^(\d+(?:\.\d+)?)%$/.exec(value)
      const pct = Number(m?.[1])
      if (!m || pct > 100) throw bad(entry, 'errors takes a share from 0% to 100%, e.g. errors=1%')
      out.push({ name, metric: 'errors', stat: 'share', bound: pct / 100 })
      continue
    }
    const m = NAME.exec(name)
    const metric = m?.[1]
    if (!m || !(LATENCY_METRICS as readonly string[]).includes(metric ?? '')) {
      throw bad(
        entry,
        `unknown objective "${name}": write METRIC_pNN, METRIC_mean or METRIC_max with METRIC one of ` +
          `${LATENCY_METRICS.join(', ')}, or errors=N%`,
      )
    }
    const percentile = m[3] === undefined ? null : Number(m[3])
    if (percentile !== null && !(percentile > 0 && percentile < 100))
      throw bad(entry, 'a percentile is above 0 and below 100, e.g. p99 or p99.9')
    const ms = /^\d+(\.\d+)?(ms|s)$/.test(value) ? parseDurationMs(value) : undefined
    if (ms === undefined) throw bad(entry, 'the value must be a duration in ms or s, e.g. 2s or 150ms')
    out.push({
      name,
      metric: metric as LatencyMetric,
      stat: percentile === null ? (m[2] as 'mean' | 'max') : percentile,
      bound: ms,
    })
  }
  return out
}

/** The objectives as --slo takes them (parseObjectives reads this back), for a report's header. */
export function objectivesText(objectives: readonly Objective[]): string {
  const value = (o: Objective): string =>
    o.metric === 'errors'
      ? `${round(o.bound * 100)}%`
      : o.bound >= 1000
        ? `${round(o.bound / 1000)}s`
        : `${round(o.bound)}ms`
  return objectives.map((o) => `${o.name}=${value(o)}`).join(',')
}

const round = (n: number): number => Number(n.toPrecision(4))

/** "1.84 s", "150 ms", "0.42 ms": how a bound and a figure read. */
export function seconds(ms: number): string {
  if (ms >= 1000) return `${round(ms / 1000)} s`
  return `${round(ms)} ms`
}

/** One call's own figures, when it ended with an answer. */
export interface CallFigures {
  status: number
  e2eMs: number
  /** Streamed calls only: null for a call that was not streamed. */
  stream: { completed: boolean; ttftMs: number | null; tpotMs: number | null; meanGapMs: number | null } | null
}

/**
 * Whether a call is good: answered 2xx (a stream completed) and within every per-call bound. A percentile's or
 * a mean's bound is the call's own bound (vLLM: a request is good when each of its ttft, tpot and e2e is within
 * it); itl is judged on the call's mean gap (AIPerf's per-request inter-token latency). Lag is the generator's
 * figure and errors the run's: neither bounds a call.
 */
export function isGood(objectives: readonly Objective[], call: CallFigures): boolean {
  if (call.status < 200 || call.status >= 300) return false
  if (call.stream !== null && !call.stream.completed) return false
  for (const o of objectives) {
    if (o.metric === 'errors' || o.metric === 'lag') continue
    if (o.metric === 'e2e') {
      if (call.e2eMs > o.bound) return false
      continue
    }
    if (call.stream === null) continue
    // A stream that never sent a delta has no first token: it cannot meet a ttft bound.
    const value =
      o.metric === 'ttft'
        ? (call.stream.ttftMs ?? Infinity)
        : o.metric === 'tpot'
          ? call.stream.tpotMs
          : call.stream.meanGapMs
    if (value !== null && value > o.bound) return false
  }
  return true
}

/** What objectives are judged on: histograms (live ones while a phase runs, decoded ones after) and counts. */
export interface Measured {
  /** null: not measured in this phase (no stream, no schedule). */
  histogram(metric: LatencyMetric): HistogramView | null
  /** Calls that ended, less the 429s, the calls failed on purpose and the calls cut by a stop. */
  judged: number
  /** Of them, without a 2xx. */
  failed: number
  refused: number
}

export interface Evaluation {
  objective: Objective
  /** The figure (ms, or a share for errors); null without samples. */
  value: number | null
  samples: number
  met: boolean | null
}

function statOf(h: HistogramView, stat: Objective['stat']): number {
  if (stat === 'mean') return h.mean / 1000
  if (stat === 'max') return h.maxValue / 1000
  return h.getValueAtPercentile(stat as number) / 1000
}

export function evaluate(o: Objective, m: Measured): Evaluation {
  if (o.metric === 'errors') {
    if (m.judged === 0) return { objective: o, value: null, samples: 0, met: null }
    const share = m.failed / m.judged
    return { objective: o, value: share, samples: m.judged, met: share <= o.bound }
  }
  const h = m.histogram(o.metric)
  if (h === null || h.totalCount === 0) return { objective: o, value: null, samples: 0, met: null }
  const value = statOf(h, o.stat)
  return { objective: o, value, samples: h.totalCount, met: value <= o.bound }
}

const statName = (o: Objective): string => (typeof o.stat === 'number' ? `p${o.stat}` : o.stat)

/** "ttft p99 1.84 s against 2 s (312 samples)". */
export function figureOf(e: Evaluation): string {
  const o = e.objective
  if (o.metric === 'errors')
    return e.value === null
      ? `errors: no call judged, against ${round(o.bound * 100)}%`
      : `errors ${round(e.value * 100)}% of ${e.samples} calls against ${round(o.bound * 100)}%`
  return e.value === null
    ? `${o.metric} ${statName(o)}: no sample, against ${seconds(o.bound)}`
    : `${o.metric} ${statName(o)} ${seconds(e.value)} against ${seconds(o.bound)} (${e.samples} samples)`
}

/**
 * Calls ended, and those the errors objective judges: answers by status (a 1xx or 3xx is not a 2xx either) and the
 * calls without an answer of the series, less the 429s, the calls failed on purpose and the calls cut by a stop.
 */
export function countsOf(
  byStatus: Record<string, number>,
  series: readonly SeriesBucket[],
  stopped: number,
): Pick<Measured, 'judged' | 'failed' | 'refused'> & { ended: number } {
  let answered = 0
  let notOk = 0
  for (const [code, n] of Object.entries(byStatus)) {
    const status = Number(code)
    answered += n
    if (status !== 429 && !(status >= 200 && status < 300)) notOk += n
  }
  const refused = byStatus['429'] ?? 0
  const noAnswer = series.reduce((n, b) => n + b.errors, 0)
  const deliberate = series.reduce((n, b) => n + b.failedSent, 0)
  const ended = answered + noAnswer
  return {
    ended,
    judged: Math.max(0, ended - refused - deliberate - stopped),
    failed: Math.max(0, notOk + noAnswer - deliberate - stopped),
    refused,
  }
}

/** The histograms and counts of a finished phase, decoded from its summaries (merged ones included). */
export function measuredOf(phase: PhaseResult): Measured {
  const summaries = {
    e2e: phase.okLatency,
    ttft: phase.stream?.ttft,
    itl: phase.stream?.interToken,
    tpot: phase.stream?.tpot,
    lag: phase.schedule?.lag,
  }
  return {
    histogram: (metric) => {
      const s = summaries[metric]
      return s === undefined ? null : decode(s)
    },
    ...countsOf(phase.byStatus, phase.series, phase.errors.stopped ?? 0),
  }
}

/** One verdict per objective for a phase: the objective's figure, pass or fail, inconclusive without samples. */
export function judgeObjectives(phase: PhaseResult, objectives: readonly Objective[]): Verdict[] {
  const measured = measuredOf(phase)
  return objectives.map((o) => {
    const e = evaluate(o, measured)
    const figure = figureOf(e)
    const base = { id: 'objective' as const, phase: phase.plan.name, figure, section: '--slo' }
    if (e.met === null) {
      const why = STREAM_METRICS.has(o.metric)
        ? 'no streamed call completed a token in this phase'
        : o.metric === 'lag'
          ? 'the phase was not scheduled (closed loop)'
          : 'no call of this phase was judged'
      return { ...base, status: 'inconclusive', detail: `${o.name}: ${why}` }
    }
    const refusals =
      o.metric === 'errors' && measured.refused > 0 ? ` (${measured.refused} 429s are refusals, counted apart)` : ''
    return e.met
      ? { ...base, status: 'pass', detail: `${o.name} met${refusals}` }
      : { ...base, status: 'fail', detail: `${o.name} breached: ${figure}${refusals}` }
  })
}

/** The share of a histogram's samples above `boundMs`, by bisection on its percentiles (to 0.01 %). */
export function shareAbove(h: HistogramView, boundMs: number): number {
  if (h.totalCount === 0 || h.maxValue / 1000 <= boundMs) return 0
  let lo = 0
  let hi = 100
  while (hi - lo > 0.01) {
    const mid = (lo + hi) / 2
    if (h.getValueAtPercentile(mid) / 1000 > boundMs) hi = mid
    else lo = mid
  }
  return (100 - hi) / 100
}

/**
 * An objective that the calls still planned cannot bring back within its bound, even if each of them met it at
 * once (zero latency, no error): what `--abort-on-fail` stops a run for. `planned` is the phase's calls in all,
 * those ended included; samples of stream metrics scale with it at the share per call seen so far.
 */
export function beyondRecovery(o: Objective, m: Measured, ended: number, planned: number): string | null {
  const e = evaluate(o, m)
  if (e.met !== false || e.value === null) return null
  if (o.metric === 'errors') return m.failed > o.bound * Math.max(planned, m.judged) ? figureOf(e) : null
  const h = m.histogram(o.metric) as HistogramView
  const samples = Math.max(h.totalCount, (planned * h.totalCount) / Math.max(1, ended))
  if (o.stat === 'max') return figureOf(e)
  if (o.stat === 'mean') return (e.value * h.totalCount) / samples > o.bound ? figureOf(e) : null
  const over = shareAbove(h, o.bound) * h.totalCount
  return over > (1 - (o.stat as number) / 100) * samples ? figureOf(e) : null
}
