/**
 * Latency histograms: HDR histograms (hdr-histogram-js, the one autocannon uses) of microseconds, so that a
 * percentile is exact to three significant digits whatever the count, memory stays fixed, and the histograms of
 * shards add up exactly (`merge`). Summaries give milliseconds.
 *
 * A phase records into a LiveHistogram: the same counts array as hdr-histogram-js's, preallocated, indexed with
 * integer arithmetic, so that recording a value allocates nothing and costs a few nanoseconds (hdr-histogram-js's
 * own recordValue costs hundreds and leaves garbage per value). It becomes an hdr histogram only to be read.
 */
import * as hdr from 'hdr-histogram-js'
import type { HistogramSummary } from '../types.ts'

export const HISTOGRAM = {
  lowestUs: 1,
  highestUs: 3_600_000_000, // one hour: the longest stream or wait a run can see
  significantDigits: 3 as const,
}

export type Histogram = hdr.Histogram

/** What the objectives read off a histogram, live or decoded. */
export type HistogramView = Pick<Histogram, 'totalCount' | 'maxValue' | 'mean' | 'getValueAtPercentile'>

function buildHdr(): Histogram {
  return hdr.build({
    lowestDiscernibleValue: HISTOGRAM.lowestUs,
    highestTrackableValue: HISTOGRAM.highestUs,
    numberOfSignificantValueDigits: HISTOGRAM.significantDigits,
    autoResize: true,
  })
}

// The counts layout of hdr-histogram-js for this range, read off one instance, so that an index here is one there.
const LAYOUT = buildHdr() as unknown as {
  countsArrayLength: number
  subBucketHalfCountMagnitude: number
  unitMagnitude: number
  valueFromIndex(index: number): number
}
if (LAYOUT.unitMagnitude !== 0 || HISTOGRAM.highestUs >= 2 ** 32)
  throw new Error('LiveHistogram indexes whole microseconds below 2^32')
const HALF = LAYOUT.subBucketHalfCountMagnitude
const SUB_MASK = (1 << (HALF + 1)) - 1

/** hdr-histogram-js's countsArrayIndex for a whole number of microseconds in range, in integer arithmetic. */
export function countsIndex(us: number): number {
  const bucket = 31 - HALF - Math.clz32(us | SUB_MASK)
  return ((bucket + 1) << HALF) + (us >>> bucket) - (1 << HALF)
}

export class LiveHistogram implements HistogramView {
  // 32 bits a count: four billion calls in one phase is past any run's cap.
  readonly #counts = new Uint32Array(LAYOUT.countsArrayLength)
  #total = 0
  #min = Number.MAX_SAFE_INTEGER
  #max = 0
  #read: Histogram | null = null

  /** A whole number of microseconds within [lowestUs, highestUs]. */
  recordUs(us: number): void {
    const i = countsIndex(us)
    this.#counts[i] = (this.#counts[i] as number) + 1
    this.#total += 1
    if (us > this.#max) this.#max = us
    if (us < this.#min) this.#min = us
    this.#read = null
  }

  get totalCount(): number {
    return this.#total
  }

  get maxValue(): number {
    return this.#max
  }

  get mean(): number {
    return this.toHdr().mean
  }

  getValueAtPercentile(percentile: number): number {
    return this.toHdr().getValueAtPercentile(percentile)
  }

  /**
   * The same histogram in hdr-histogram-js, as if every value had been recorded there: each bin's count at its
   * lowest value, the extremes at their exact values (they share their bins). Kept until the next record.
   */
  toHdr(): Histogram {
    if (this.#read !== null) return this.#read
    const out = buildHdr()
    const minAt = countsIndex(this.#min)
    const maxAt = countsIndex(this.#max)
    for (let i = 0; i < this.#counts.length; i += 1) {
      let count = this.#counts[i] as number
      if (count === 0) continue
      if (i === minAt) {
        out.recordValue(this.#min)
        count -= 1
      }
      if (i === maxAt && count > 0) {
        out.recordValue(this.#max)
        count -= 1
      }
      if (count > 0) out.recordValueWithCount(LAYOUT.valueFromIndex(i), count)
    }
    this.#read = out
    return out
  }
}

export function newHistogram(): LiveHistogram {
  return new LiveHistogram()
}

/** Records milliseconds (fractions kept down to a microsecond); negative or non-finite values are not time. */
export function recordMs(histogram: LiveHistogram, ms: number): void {
  if (!(ms >= 0) || ms === Number.POSITIVE_INFINITY) return
  const us = Math.round(ms * 1000)
  histogram.recordUs(Math.max(HISTOGRAM.lowestUs, Math.min(HISTOGRAM.highestUs, us)))
}

const round = (us: number): number => Math.round(us) / 1000

export function summarize(live: LiveHistogram | Histogram): HistogramSummary {
  const histogram = live instanceof LiveHistogram ? live.toHdr() : live
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
  const out = buildHdr()
  if (summary.count > 0) out.add(hdr.decodeFromCompressedBase64(summary.encoded))
  return out
}

/** The exact sum of several summaries' histograms, summarized again. */
export function mergeSummaries(summaries: readonly HistogramSummary[]): HistogramSummary {
  const total = buildHdr()
  for (const summary of summaries) if (summary.count > 0) total.add(decode(summary))
  return summarize(total)
}
