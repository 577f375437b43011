/**
 * Latency histograms: HDR histograms (hdr-histogram-js, the one autocannon uses) of microseconds, so that a
 * percentile is exact to three significant digits whatever the count, memory stays fixed, and the histograms of
 * shards add up exactly (`merge`). Summaries give milliseconds.
 */
import * as hdr from 'hdr-histogram-js'
import type { HistogramSummary } from '../types.ts'

export const HISTOGRAM = {
  lowestUs: 1,
  highestUs: 3_600_000_000, // one hour: the longest stream or wait a run can see
  significantDigits: 3 as const,
}

export type Histogram = hdr.Histogram

export function newHistogram(): Histogram {
  return hdr.build({
    lowestDiscernibleValue: HISTOGRAM.lowestUs,
    highestTrackableValue: HISTOGRAM.highestUs,
    numberOfSignificantValueDigits: HISTOGRAM.significantDigits,
    autoResize: true,
  })
}

/** Records milliseconds (fractions kept down to a microsecond); negative or non-finite values are not time. */
export function recordMs(histogram: Histogram, ms: number): void {
  if (!Number.isFinite(ms) || ms < 0) return
  histogram.recordValue(Math.max(HISTOGRAM.lowestUs, Math.min(HISTOGRAM.highestUs, Math.round(ms * 1000))))
}

const round = (us: number): number => Math.round(us) / 1000

export function summarize(histogram: Histogram): HistogramSummary {
  const count = histogram.totalCount
  return {
    count,
    min: count === 0 ? 0 : round(histogram.minNonZeroValue),
    mean: count === 0 ? 0 : round(histogram.mean),
    p50: round(histogram.getValueAtPercentile(50)),
    p90: round(histogram.getValueAtPercentile(90)),
    p99: round(histogram.getValueAtPercentile(99)),
    max: round(histogram.maxValue),
    encoded: hdr.encodeIntoCompressedBase64(histogram),
  }
}

export function decode(summary: HistogramSummary): Histogram {
  const out = newHistogram()
  if (summary.count > 0) out.add(hdr.decodeFromCompressedBase64(summary.encoded))
  return out
}

/** The exact sum of several summaries' histograms, summarized again. */
export function mergeSummaries(summaries: readonly HistogramSummary[]): HistogramSummary {
  const total = newHistogram()
  for (const summary of summaries) if (summary.count > 0) total.add(decode(summary))
  return summarize(total)
}
