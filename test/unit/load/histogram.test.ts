/**
 * The live histogram a phase records into (load/engine/histogram.ts) is hdr-histogram-js's histogram by other
 * means: the same bin for every value, and the same summary, encoding included, as recording there directly.
 */
import * as hdr from 'hdr-histogram-js'
import { describe, expect, test } from 'vitest'
import { countsIndex, HISTOGRAM, newHistogram, recordMs, summarize } from '../../../load/engine/histogram.ts'

const reference = (): hdr.Histogram =>
  hdr.build({
    lowestDiscernibleValue: HISTOGRAM.lowestUs,
    highestTrackableValue: HISTOGRAM.highestUs,
    numberOfSignificantValueDigits: HISTOGRAM.significantDigits,
    autoResize: true,
  })

describe('live histogram', () => {
  test('every value falls in the bin hdr-histogram-js gives it, across the whole range', () => {
    const h = reference() as unknown as { countsArrayIndex(v: number): number }
    const values = [
      1,
      2,
      1023,
      1024,
      2047,
      2048,
      2049,
      4095,
      4096,
      65_535,
      1_000_000,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 31 + 7,
    ]
    for (let v = 1; v < HISTOGRAM.highestUs; v = Math.ceil(v * 1.37) + 1) values.push(v)
    values.push(HISTOGRAM.highestUs)
    for (const v of values) expect(countsIndex(v), `value ${v}`).toBe(h.countsArrayIndex(v))
  })

  test('its summary is the one recording into hdr-histogram-js gives, extremes and encoding included', () => {
    const live = newHistogram()
    const direct = reference()
    const values = [0.0004, 0.37, 1, 1.0005, 2.5, 9.999, 10, 10.2, 250, 3_000, 61_000, 5_000_000, -1, Number.NaN]
    for (const ms of values) {
      recordMs(live, ms)
      if (ms >= 0) direct.recordValue(Math.min(HISTOGRAM.highestUs, Math.max(1, Math.round(ms * 1000))))
    }
    expect(summarize(live)).toEqual(summarize(direct))
    expect(live.totalCount).toBe(direct.totalCount)
    expect(live.getValueAtPercentile(90)).toBe(direct.getValueAtPercentile(90))
  })

  test('an empty one summarizes as an empty hdr histogram does', () => {
    expect(summarize(newHistogram())).toEqual(summarize(reference()))
  })
})
