/**
 * The three limiter algorithms the gateway offers (--limiter): what each admits, and what remaining, reset
 * (the bucket full again) and retry (a call admitted again) say at each step.
 */
import { describe, expect, it } from 'vitest'
import { createLimiter, LIMITER_ALGORITHMS, type LimiterAlgorithm } from '../../../gateway/limiter.ts'
import { manualClock } from './helpers.ts'

const PERIOD = 60_000
const L = 6

function setup(algorithm: LimiterAlgorithm) {
  const clock = manualClock('2026-09-01T00:00:00Z')
  return { clock, limiter: createLimiter(algorithm, clock, PERIOD), t0: clock.now() }
}

describe.each(LIMITER_ALGORITHMS.map((a) => [a]))('%s: what every algorithm shares', (algorithm) => {
  it('admits the limit from rest, refuses the next call, and never lets remaining pass the limit', () => {
    const { limiter } = setup(algorithm)
    const readings = Array.from({ length: L + 1 }, () => limiter.take('k', L, 1))
    expect(readings.map((r) => r.admitted)).toEqual([...Array(L).fill(true), false])
    expect(readings.map((r) => r.remaining)).toEqual([5, 4, 3, 2, 1, 0, 0])
    for (const r of readings) expect(r.limit).toBe(L)
  })

  it('keeps the promises of its headers: admitted at retryAt, full at resetAt, and no later than a period', () => {
    const { clock, limiter, t0 } = setup(algorithm)
    for (let i = 0; i < L; i += 1) {
      limiter.take('k', L, 1)
      clock.advance(1_000)
    }
    const refused = limiter.take('k', L, 1)
    expect(refused.admitted).toBe(false)
    expect(refused.resetAt - clock.now()).toBeLessThanOrEqual(PERIOD)
    expect(refused.retryAt).toBeGreaterThan(clock.now())
    expect(refused.retryAt).toBeLessThanOrEqual(refused.resetAt)
    clock.advance(refused.retryAt - clock.now() - 1)
    expect(limiter.read('k', L, 1).admitted).toBe(false)
    clock.advance(1)
    expect(limiter.read('k', L, 1).admitted).toBe(true)
    clock.set(new Date(refused.resetAt).toISOString())
    expect(limiter.read('k', L).remaining).toBe(L)
    expect(clock.now() - t0).toBeLessThanOrEqual(L * 1_000 + PERIOD)
  })

  it('admits at most L + L * T / period over any span T from rest (the long-run bound)', () => {
    const { clock, limiter } = setup(algorithm)
    let admitted = 0
    for (let t = 0; t <= 3 * PERIOD; t += 250) {
      if (limiter.take('k', L, 1).admitted) admitted += 1
      expect(admitted).toBeLessThanOrEqual(L + Math.floor((L * t) / PERIOD))
      clock.advance(250)
    }
    expect(admitted).toBeGreaterThanOrEqual(3 * L)
  })

  it('keeps buckets apart by key', () => {
    const { limiter } = setup(algorithm)
    for (let i = 0; i < L; i += 1) limiter.take('a', L, 1)
    expect(limiter.take('a', L, 1).admitted).toBe(false)
    expect(limiter.take('b', L, 1).admitted).toBe(true)
  })

  it('counts units added after admission, and gives refunded units back', () => {
    const { limiter } = setup(algorithm)
    limiter.add('k', L, 4)
    expect(limiter.read('k', L).remaining).toBe(2)
    limiter.refund('k', L, 3)
    expect(limiter.read('k', L).remaining).toBe(5)
    expect(limiter.read('k', L, 6).admitted).toBe(false)
    expect(limiter.read('k', L, 5).admitted).toBe(true)
  })
})

describe('fixed-window', () => {
  it('opens a window at the first call and counts refused calls inside it; the next window starts whole', () => {
    const { clock, limiter, t0 } = setup('fixed-window')
    for (let i = 0; i < L + 3; i += 1) limiter.take('k', L, 1)
    const reading = limiter.read('k', L)
    expect(reading.resetAt).toBe(t0 + PERIOD)
    clock.advance(PERIOD - 1)
    expect(limiter.take('k', L, 1)).toMatchObject({ admitted: false, retryAt: t0 + PERIOD })
    clock.advance(1)
    expect(limiter.take('k', L, 1)).toMatchObject({ admitted: true, remaining: L - 1, resetAt: t0 + 2 * PERIOD })
  })
})

describe('sliding-window', () => {
  it('lets each admitted call leave the window one period after it came', () => {
    const { clock, limiter, t0 } = setup('sliding-window')
    for (let i = 0; i < L; i += 1) {
      limiter.take('k', L, 1)
      clock.advance(10_000)
    }
    // Calls at 0, 10, ..., 50 s; at 60 s the first has left, so one call fits and the bucket is full at 110 s.
    expect(limiter.read('k', L)).toMatchObject({ remaining: 1, resetAt: t0 + 110_000 })
    expect(limiter.take('k', L, 1)).toMatchObject({ admitted: true, remaining: 0 })
    const refused = limiter.take('k', L, 1)
    expect(refused).toMatchObject({ admitted: false, retryAt: t0 + 70_000, resetAt: t0 + 120_000 })
  })

  it('does not count refused calls, so a client that keeps calling still gets through', () => {
    const { clock, limiter } = setup('sliding-window')
    for (let i = 0; i < L; i += 1) limiter.take('k', L, 1)
    for (let i = 0; i < 100; i += 1) limiter.take('k', L, 1)
    clock.advance(PERIOD)
    expect(limiter.take('k', L, 1).admitted).toBe(true)
  })
})

describe('token-bucket', () => {
  it('refills continuously at L per period; reset is the time until full, retry the time until one token', () => {
    const { clock, limiter } = setup('token-bucket')
    for (let i = 0; i < L; i += 1) limiter.take('k', L, 1)
    const refused = limiter.take('k', L, 1)
    expect(refused).toMatchObject({ admitted: false, remaining: 0 })
    expect(refused.retryAt - clock.now()).toBe(PERIOD / L)
    expect(refused.resetAt - clock.now()).toBe(PERIOD)
    clock.advance(PERIOD / 2)
    expect(limiter.read('k', L)).toMatchObject({ remaining: L / 2 })
    expect(limiter.read('k', L).resetAt - clock.now()).toBe(PERIOD / 2)
  })

  it('admits more than L over a span longer than the refill of one token, and never more than the bound', () => {
    const { clock, limiter } = setup('token-bucket')
    let admitted = 0
    for (let i = 0; i < 4 * L; i += 1) {
      if (limiter.take('k', L, 1).admitted) admitted += 1
      clock.advance(PERIOD / (2 * L))
    }
    // Calls at twice the refill rate for two periods: L at the start, and one in two of the rest.
    expect(admitted).toBeGreaterThan(2 * L)
    expect(admitted).toBeLessThanOrEqual(3 * L)
  })
})

describe('token-bucket debt', () => {
  it('a finished call larger than what was left is refilled before the next call is admitted', () => {
    const { clock, limiter } = setup('token-bucket')
    expect(limiter.read('k', L, 1).admitted).toBe(true)
    limiter.add('k', L, 2 * L)
    // L - 2L = -L: a whole period of refill before one unit fits again, two before the bucket is full.
    const now = clock.now()
    const reading = limiter.read('k', L, 1)
    expect(reading).toMatchObject({ admitted: false, remaining: 0 })
    expect(reading.retryAt - now).toBe(PERIOD + PERIOD / L)
    expect(reading.resetAt - now).toBe(2 * PERIOD)
  })
})
