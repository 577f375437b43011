/** Reset durations of the x-ratelimit-reset-* headers (Part 1 section 4.1: "a number followed by s"). */
import { describe, expect, it } from 'vitest'
import { formatGoDuration } from '../../../gateway/go-duration.ts'

describe('Go-style durations (section 4.1)', () => {
  it.each([
    [0, '0ms'],
    [20, '20ms'],
    [999, '999ms'],
    [999.2, '1s'],
    [1000, '1s'],
    [1500, '1.5s'],
    [12_500, '12.5s'],
    [12_345, '12.345s'],
    [59_999, '59.999s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
    [61_500, '1m1.5s'],
    [3_600_000, '1h0m0s'],
    [3_723_004, '1h2m3.004s'],
    [-5, '0ms'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text)
  })

  it('rounds fractions of a millisecond up, never announcing a reset early', () => {
    expect(formatGoDuration(0.1)).toBe('1ms')
    expect(formatGoDuration(1000.4)).toBe('1.001s')
  })
})
