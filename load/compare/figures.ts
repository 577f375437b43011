/**
 * The figures a comparison judges, per phase: what each means, its unit, which way is better, and how it is read
 * from a phase of result.json. Optional parts of a result (streams, a schedule, goodput) give no figure when
 * absent, so that results of older or newer versions of this tool still compare.
 */
import { statusClasses, sumValues } from '../report/lines.ts'
import type { HistogramSummary, PhaseResult } from '../types.ts'
import { isObject } from '../../common/json.ts'
import { goodputOf } from '../verdicts.ts'

export type FigureName =
  | 'throughput'
  | 'latency-p50'
  | 'latency-p90'
  | 'latency-p99'
  | 'ttft-p50'
  | 'ttft-p90'
  | 'ttft-p99'
  | 'itl-p50'
  | 'itl-p90'
  | 'itl-p99'
  | 'error-share'
  | 'schedule-lag-p99'
  | 'goodput'
  | 'client-goodput'

/**
 * `relative`: a change is a share of the baseline (10 % slower). `share`: the figure is itself a share of calls,
 * and a change is in percentage points (0 % to 3 % errors is 3 points, not an infinite rise).
 */
export type FigureScale = 'relative' | 'share'

export interface Figure {
  name: FigureName
  label: string
  unit: 'calls/s' | 'ms' | '%' | ''
  better: 'higher' | 'lower'
  scale: FigureScale
  /**
   * True when the merge of repeats gives the figure exactly (counts, histograms). Else the merge keeps only a bound
   * (the worst repeat's schedule lag) or knows nothing of it, and the repeats' mean stands for them.
   */
  exact: boolean
  read(phase: PhaseResult, minuteMs: number): number | null
}

const seconds = (phase: PhaseResult): number => Math.max(0.001, (phase.endedAt - phase.startedAt) / 1000)
const percentile =
  (pick: (phase: PhaseResult) => HistogramSummary | undefined, p: 'p50' | 'p90' | 'p99') =>
  (phase: PhaseResult): number | null => {
    const h = pick(phase)
    return h === undefined || h.count === 0 ? null : h[p]
  }

/**
 * Calls per second that met every objective (every 2xx without objectives), as the run states it: read without trusting
 * its shape.
 */
function goodput(phase: PhaseResult): number | null {
  const stated: unknown = phase.goodput
  if (!isObject(stated)) return null
  const perSecond = stated.goodputPerSecond
  return typeof perSecond === 'number' && Number.isFinite(perSecond) ? perSecond : null
}

const latency = (p: 'p50' | 'p90' | 'p99'): Figure => ({
  name: `latency-${p}`,
  label: `latency ${p}`,
  unit: 'ms',
  better: 'lower',
  scale: 'relative',
  exact: true,
  read: percentile((ph) => ph.latency, p),
})
const ttft = (p: 'p50' | 'p90' | 'p99'): Figure => ({
  name: `ttft-${p}`,
  label: `time to first token ${p}`,
  unit: 'ms',
  better: 'lower',
  scale: 'relative',
  exact: true,
  read: percentile((ph) => ph.stream?.ttft, p),
})
const itl = (p: 'p50' | 'p90' | 'p99'): Figure => ({
  name: `itl-${p}`,
  label: `inter-token ${p}`,
  unit: 'ms',
  better: 'lower',
  scale: 'relative',
  exact: true,
  read: percentile((ph) => ph.stream?.interToken, p),
})

export const FIGURES: readonly Figure[] = [
  {
    name: 'throughput',
    label: 'throughput (2xx per s)',
    unit: 'calls/s',
    better: 'higher',
    scale: 'relative',
    exact: true,
    read: (ph) => statusClasses(ph.byStatus).ok / seconds(ph),
  },
  latency('p50'),
  latency('p90'),
  latency('p99'),
  ttft('p50'),
  ttft('p90'),
  ttft('p99'),
  itl('p50'),
  itl('p90'),
  itl('p99'),
  {
    name: 'error-share',
    label: 'errors (5xx and no answer, of sent)',
    unit: '%',
    better: 'lower',
    scale: 'share',
    exact: true,
    // 429s and deliberate 4xx are what rate-limit phases ask for; only the target failing counts as an error.
    read: (ph) => (ph.sent === 0 ? null : (statusClasses(ph.byStatus).serverErrors + sumValues(ph.errors)) / ph.sent),
  },
  {
    name: 'schedule-lag-p99',
    label: 'schedule lag p99',
    unit: 'ms',
    better: 'lower',
    scale: 'relative',
    exact: false,
    read: (ph) => ph.schedule?.lagP99Ms ?? null,
  },
  // Good calls are counted in the series, so the merge of repeats keeps them exactly.
  {
    name: 'goodput',
    label: 'goodput (good calls/s)',
    unit: 'calls/s',
    better: 'higher',
    scale: 'relative',
    exact: true,
    read: goodput,
  },
  // The backoff clients' successes as a share of the limit's rate: a figure of its own, read from the clients' counts.
  {
    name: 'client-goodput',
    label: 'client goodput (share of the limit)',
    unit: '',
    better: 'higher',
    scale: 'relative',
    exact: false,
    read: goodputOf,
  },
]

export const FIGURE_NAMES: readonly FigureName[] = FIGURES.map((f) => f.name)

/** The figures of a phase that it has (a closed loop has no schedule lag, a call without a stream no ttft). */
export function phaseFigures(phase: PhaseResult, minuteMs: number): Partial<Record<FigureName, number>> {
  const out: Partial<Record<FigureName, number>> = {}
  for (const f of FIGURES) {
    const value = f.read(phase, minuteMs)
    if (value !== null && Number.isFinite(value)) out[f.name] = value
  }
  return out
}
