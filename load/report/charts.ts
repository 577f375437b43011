/**
 * The report's charts: Apache ECharts options rendered to SVG strings on the server (no DOM, no script in the
 * page), so that report.html opens offline, from a CI artifact, years later.
 */
import { init, use, type ComposeOption } from 'echarts/core'
import { BarChart, LineChart, type BarSeriesOption, type LineSeriesOption } from 'echarts/charts'
import {
  GridComponent,
  LegendComponent,
  TitleComponent,
  type GridComponentOption,
  type LegendComponentOption,
  type TitleComponentOption,
} from 'echarts/components'
import { SVGRenderer } from 'echarts/renderers'
import type { CapacityResult, HistogramSummary, PhaseResult, SeriesBucket } from '../types.ts'

use([BarChart, LineChart, GridComponent, LegendComponent, TitleComponent, SVGRenderer])

type ChartOption = ComposeOption<
  BarSeriesOption | LineSeriesOption | GridComponentOption | LegendComponentOption | TitleComponentOption
>

export type ChartKind = 'rate' | 'remaining' | 'latency' | 'retries' | 'capacity'

export interface Chart {
  kind: ChartKind
  /** The SVG, or null when rendering threw: the page says so instead of losing the whole report. */
  svg: string | null
  error?: string
}

/** Two charts side by side fit a 1500 px page. */
export const CHART_SIZE = { width: 680, height: 300 }

const COLORS = {
  ok: '#3a9d5d',
  refused: '#e6a23c',
  clientErrors: '#8e6bbf',
  serverErrors: '#d9534f',
  errors: '#555555',
  retries: '#4a7bd0',
  limit: '#d9534f',
  goodput: '#1f6f43',
  p50: '#8e6bbf',
}

/** Candidate bin widths (ms) past the series' own bucket; up to MAX_BINS bars stay readable at 680 px. */
const BIN_CHOICES_MS = [1_000, 5_000, 10_000, 60_000]
const MAX_BINS = 300
const MIN_BINS = 10

interface Bin {
  /** Middle of the bin, seconds since the phase started. */
  x: number
  /** Seconds of the phase the bin covers (the first and last may be cut by the phase's start and end). */
  spanS: number
  buckets: SeriesBucket[]
}

/**
 * Groups buckets into bins aligned to the phase's first bucket; empty stretches become empty bins. `minCalls`
 * asks for bins wide enough to hold that many calls on average: 5 calls a second in 100 ms bins draw a comb of
 * 10/s and 0/s, not a rate.
 */
export function binSeries(phase: PhaseResult, bucketMs: number, minCalls = 0): Bin[] {
  if (phase.series.length === 0) return []
  const sorted = [...phase.series].sort((a, b) => a.t - b.t)
  const firstT = Math.min(Math.floor(phase.startedAt / bucketMs), sorted[0]!.t)
  const lastT = Math.max(Math.ceil(phase.endedAt / bucketMs) - 1, sorted[sorted.length - 1]!.t)
  const spanBuckets = lastT - firstT + 1
  const callsPerMs = sorted.reduce((sum, b) => sum + b.sent, 0) / (spanBuckets * bucketMs)
  const count = (b: number): number => (spanBuckets * bucketMs) / b
  const all = [bucketMs, ...BIN_CHOICES_MS.filter((b) => b > bucketMs)]
  const fitting = all.filter((b) => count(b) <= MAX_BINS)
  const choices = fitting.length > 0 ? fitting : [all[all.length - 1]!]
  // Dense enough if it can be; else the widest that still shows a shape; else the finest that fits.
  const binMs =
    choices.find((b) => callsPerMs * b >= minCalls && count(b) >= MIN_BINS) ??
    choices.filter((b) => count(b) >= MIN_BINS).pop() ??
    choices[0]!
  const perBin = Math.max(1, Math.round(binMs / bucketMs))
  const from = firstT * bucketMs
  const to = (lastT + 1) * bucketMs
  const bins: Bin[] = []
  for (let i = 0; i * perBin < spanBuckets; i += 1) {
    const start = from + i * perBin * bucketMs
    const end = Math.min(start + perBin * bucketMs, to)
    // A bin cut by the phase's edges holds fewer calls; dividing by its full width would draw a false dip.
    const covered = Math.min(end, phase.endedAt) - Math.max(start, phase.startedAt)
    bins.push({
      x: ((start + end) / 2 - phase.startedAt) / 1000,
      spanS: Math.max(covered, bucketMs) / 1000,
      buckets: [],
    })
  }
  for (const b of sorted) bins[Math.floor((b.t - firstT) / perBin)]!.buckets.push(b)
  return bins
}

function render(kind: ChartKind, option: ChartOption): Chart {
  const chart = init(null, null, { renderer: 'svg', ssr: true, ...CHART_SIZE })
  try {
    chart.setOption({ animation: false, ...option })
    return { kind, svg: chart.renderToSVGString() }
  } catch (error) {
    return { kind, svg: null, error: error instanceof Error ? error.message : String(error) }
  } finally {
    chart.dispose()
  }
}

function frame(title: string, yName: string, durationS: number): ChartOption {
  return {
    title: { text: title, left: 'center', textStyle: { fontSize: 13 } },
    legend: { top: 28, itemHeight: 10 },
    grid: { left: 64, right: 32, top: 68, bottom: 44 },
    xAxis: { type: 'value', name: 's', nameLocation: 'end', min: 0, max: Math.max(1, Math.ceil(durationS)) },
    yAxis: { type: 'value', name: yName },
  }
}

/** Calls per bin, on average, that the rate charts ask for. */
const RATE_BIN_CALLS = 5

const round = (value: number): number => Math.round(value * 100) / 100

/** Rounded for the page: three significant figures are all a chart shows, and the SVG stays small. */
function sig(value: number): number {
  return Number(value.toPrecision(3))
}

function perSecond(bins: Bin[], pick: (b: SeriesBucket) => number): [number, number][] {
  return bins.map((bin) => [round(bin.x), sig(bin.buckets.reduce((sum, b) => sum + pick(b), 0) / bin.spanS)])
}

const durationS = (phase: PhaseResult): number => (phase.endedAt - phase.startedAt) / 1000

export function rateChart(phase: PhaseResult, bucketMs: number): Chart {
  const bins = binSeries(phase, bucketMs, RATE_BIN_CALLS)
  const classes = [
    ['2xx', 'ok'],
    ['429', 'refused'],
    ['other 4xx', 'clientErrors'],
    ['5xx', 'serverErrors'],
    ['no answer', 'errors'],
  ] as const
  const series: BarSeriesOption[] = classes.map(([name, key]) => ({
    name,
    type: 'bar',
    stack: 'status',
    barCategoryGap: '10%',
    itemStyle: { color: COLORS[key] },
    data: perSecond(bins, (b) => b[key]),
  }))
  const offered = phase.plan.rate === null ? '' : `, ${phase.plan.rate}/s offered`
  return render('rate', { ...frame(`Answers per second by status${offered}`, 'calls/s', durationS(phase)), series })
}

/** True when the remaining chart has something to draw: a judged bucket and at least one remaining header seen. */
export function hasRemaining(phase: PhaseResult): boolean {
  return phase.plan.bucket !== null && phase.series.some((b) => b.minRemaining !== null || b.maxRemaining !== null)
}

function fold(values: (number | null)[], pick: (a: number, b: number) => number): number | null {
  const present = values.filter((v): v is number => v !== null)
  return present.length === 0 ? null : present.reduce(pick)
}

export function remainingChart(phase: PhaseResult, bucketMs: number): Chart {
  const bins = binSeries(phase, bucketMs)
  const line = (
    name: string,
    color: string,
    values: (bin: Bin) => number | null,
    dashed = false,
  ): LineSeriesOption => ({
    name,
    type: 'line',
    step: 'middle',
    showSymbol: false,
    connectNulls: false,
    lineStyle: { color, width: 1.5, ...(dashed ? { type: 'dashed' } : {}) },
    itemStyle: { color },
    data: bins.map((bin) => [round(bin.x), values(bin)]),
  })
  const series: LineSeriesOption[] = [
    line('min remaining', COLORS.refused, (bin) =>
      fold(
        bin.buckets.map((b) => b.minRemaining),
        Math.min,
      ),
    ),
    line('max remaining', COLORS.ok, (bin) =>
      fold(
        bin.buckets.map((b) => b.maxRemaining),
        Math.max,
      ),
    ),
    line(
      'limit (header)',
      COLORS.limit,
      (bin) =>
        fold(
          bin.buckets.map((b) => b.limit),
          Math.max,
        ),
      true,
    ),
  ]
  const expected = phase.plan.expectedLimit
  if (expected !== null) series.push(line('expected limit', COLORS.errors, () => expected, true))
  return render('remaining', {
    ...frame(`Remaining of the ${phase.plan.bucket ?? ''} bucket against its limit`, 'remaining', durationS(phase)),
    series,
  })
}

export function retriesChart(phase: PhaseResult, bucketMs: number): Chart {
  const bins = binSeries(phase, bucketMs, RATE_BIN_CALLS)
  const series: LineSeriesOption[] = [
    {
      name: 'retries',
      type: 'line',
      step: 'middle',
      showSymbol: false,
      itemStyle: { color: COLORS.retries },
      data: perSecond(bins, (b) => b.retries),
    },
    {
      name: '429',
      type: 'line',
      step: 'middle',
      showSymbol: false,
      itemStyle: { color: COLORS.refused },
      data: perSecond(bins, (b) => b.refused),
    },
  ]
  return render('retries', { ...frame('Retries and 429s per second', 'per s', durationS(phase)), series })
}

export function latencyChart(phase: PhaseResult): Chart {
  const groups: [string, HistogramSummary][] = [['all calls', phase.latency]]
  if (phase.stream) {
    groups.push(
      ['time to first token', phase.stream.ttft],
      ['between tokens', phase.stream.interToken],
      ['end to end', phase.stream.endToEnd],
    )
  }
  const points = ['p50', 'p90', 'p99', 'max'] as const
  const series: BarSeriesOption[] = groups.map(([name, h]) => ({
    name,
    type: 'bar',
    label: { show: true, position: 'top', fontSize: 10 },
    data: points.map((p) => sig(h[p])),
  }))
  return render('latency', {
    title: { text: 'Latency percentiles', left: 'center', textStyle: { fontSize: 13 } },
    legend: { top: 28, itemHeight: 10 },
    grid: { left: 64, right: 32, top: 68, bottom: 32 },
    xAxis: { type: 'category', data: [...points] },
    yAxis: { type: 'value', name: 'ms' },
    series,
  })
}

/** The charts of one phase, in the order the page shows them; charts over time need at least one bucket. */
export function phaseCharts(phase: PhaseResult, bucketMs: number): Chart[] {
  const charts: Chart[] = []
  if (phase.series.length > 0) charts.push(rateChart(phase, bucketMs))
  if (hasRemaining(phase)) charts.push(remainingChart(phase, bucketMs))
  if (phase.latency.count > 0) charts.push(latencyChart(phase))
  if (phase.series.length > 0) charts.push(retriesChart(phase, bucketMs))
  return charts
}

/**
 * The capacity search's curve: throughput and goodput against the offered rate (left axis), and latency p50 and
 * p99 (right axis), one point per step in order of rate; the ceiling of the tier's limit as a dashed line.
 */
export function capacityChart(capacity: CapacityResult): Chart {
  const steps = [...capacity.steps].sort((a, b) => a.offered - b.offered)
  const point = (pick: (s: CapacityResult['steps'][number]) => number): [number, number][] =>
    steps.map((s) => [sig(s.offered), sig(pick(s))])
  const line = (
    name: string,
    color: string,
    data: [number, number][],
    yAxisIndex: number,
    dashed = false,
  ): LineSeriesOption => ({
    name,
    type: 'line',
    yAxisIndex,
    showSymbol: true,
    symbolSize: 6,
    data,
    lineStyle: { color, width: 1.5, ...(dashed ? { type: 'dashed' } : {}) },
    itemStyle: { color },
  })
  const series: LineSeriesOption[] = [
    line(
      'throughput (2xx/s)',
      COLORS.ok,
      point((s) => s.throughput),
      0,
    ),
    line(
      'goodput (good/s)',
      COLORS.goodput,
      point((s) => s.goodput),
      0,
    ),
    line(
      'latency p50 (ms)',
      COLORS.p50,
      point((s) => s.p50Ms),
      1,
      true,
    ),
    line(
      'latency p99 (ms)',
      COLORS.serverErrors,
      point((s) => s.p99Ms),
      1,
      true,
    ),
  ]
  const top = Math.max(1, ...steps.map((s) => s.offered))
  return render('capacity', {
    title: { text: 'Throughput and latency against the offered rate', left: 'center', textStyle: { fontSize: 13 } },
    legend: { top: 28, itemHeight: 10 },
    grid: { left: 64, right: 64, top: 68, bottom: 44 },
    xAxis: { type: 'value', name: 'offered/s', nameLocation: 'end', min: 0, max: sig(top * 1.05) },
    yAxis: [
      { type: 'value', name: 'calls/s' },
      { type: 'value', name: 'ms', position: 'right' },
    ],
    series,
  })
}
