/**
 * Arrival processes of the open-loop engine (load/engine/arrivals.ts): a seed repeats a plan exactly, constant
 * arrivals stay i / rate, poisson and gamma have the mean and the spread their definitions give, and a ramp
 * plans as many calls as the integral of its rate. Fixed seeds keep the tests deterministic; the tolerances are
 * several standard errors wide, and narrow enough that the wrong process fails them (see the last test).
 */
import { describe, expect, test } from 'vitest'
import {
  arrivalOffsets,
  countBy,
  deriveSeed,
  expectedArrivals,
  gammaVariate,
  mulberry32,
  plannedOffsets,
  type ArrivalPlan,
} from '../../../load/engine/arrivals.ts'
import type { PlanContext } from '../../../load/profiles/profile.ts'
import { arrivalFor } from '../../../load/runner.ts'
import type { PhasePlan } from '../../../load/types.ts'

function take(rate: number, arrival: ArrivalPlan | undefined, n: number): number[] {
  const out: number[] = []
  for (const at of arrivalOffsets(rate, arrival)) {
    out.push(at)
    if (out.length === n) break
  }
  return out
}

function gaps(offsets: number[]): number[] {
  return offsets.slice(1).map((at, i) => at - (offsets[i] as number))
}

function meanAndCv(values: number[]): { mean: number; cv: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1)
  return { mean, cv: Math.sqrt(variance) / mean }
}

const N = 40_000

describe('seeds', () => {
  test.each<ArrivalPlan>([
    { process: 'poisson', seed: 7 },
    { process: 'gamma', burstiness: 0.5, seed: 7 },
    { process: 'poisson', seed: 7, ramp: { shape: 'exponential', spanMs: 5000 } },
  ])('%j repeats call for call with its seed, and another seed plans other instants', (arrival) => {
    const a = take(20, arrival, 2000)
    expect(take(20, arrival, 2000)).toEqual(a)
    const other = take(20, { ...arrival, seed: 8 }, 2000)
    expect(other.filter((at, i) => at === a[i]).length).toBeLessThan(5)
  })

  test('derived seeds differ per stream and repeat per seed', () => {
    const seeds = Array.from({ length: 100 }, (_, i) => deriveSeed(42, i))
    expect(new Set(seeds).size).toBe(100)
    expect(deriveSeed(42, 3)).toBe(seeds[3])
    expect(seeds.every((s) => Number.isInteger(s) && s >= 0 && s <= 0xffffffff)).toBe(true)
  })

  test('mulberry32 is uniform on [0, 1): mean 1/2, variance 1/12', () => {
    const random = mulberry32(1)
    const xs = Array.from({ length: N }, random)
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...xs)).toBeLessThan(1)
    const mean = xs.reduce((a, b) => a + b, 0) / N
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.005)
    expect(Math.abs(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / N - 1 / 12)).toBeLessThan(0.002)
  })
})

describe('processes', () => {
  test('constant without a ramp is exactly i / rate, from the start (the engine as it always ran)', () => {
    expect(take(8, undefined, 5)).toEqual([0, 125, 250, 375, 500])
    expect(take(3, { process: 'constant', seed: 1 }, 4)).toEqual([0, 1000 / 3, 2000 / 3, 1000])
  })

  test('poisson: inter-arrival mean 1/rate, coefficient of variation 1, and 1 - 1/e of the gaps shorter than the mean', () => {
    const g = gaps(take(50, { process: 'poisson', seed: 11 }, N))
    const { mean, cv } = meanAndCv(g)
    // Standard errors at 40 000 gaps: the mean 0.5 %, the CV about 1 %, the share 0.24 %.
    expect(Math.abs(mean - 20) / 20).toBeLessThan(0.03)
    expect(Math.abs(cv - 1)).toBeLessThan(0.05)
    expect(Math.abs(g.filter((x) => x < 20).length / g.length - (1 - 1 / Math.E))).toBeLessThan(0.015)
  })

  test.each([0.25, 0.5, 2, 4])(
    'gamma with burstiness %s: mean 1/rate, coefficient of variation 1/sqrt(burstiness)',
    (burstiness) => {
      const { mean, cv } = meanAndCv(gaps(take(10, { process: 'gamma', burstiness, seed: 5 }, N)))
      expect(Math.abs(mean - 100) / 100).toBeLessThan(0.04)
      expect(Math.abs(cv - 1 / Math.sqrt(burstiness)) / (1 / Math.sqrt(burstiness))).toBeLessThan(0.06)
    },
  )

  test('gamma variates have mean shape and variance shape (Marsaglia-Tsang, boosted below 1)', () => {
    for (const shape of [0.3, 1, 3]) {
      const random = mulberry32(3)
      const xs = Array.from({ length: N }, () => gammaVariate(shape, random))
      const mean = xs.reduce((a, b) => a + b, 0) / N
      const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (N - 1)
      expect(Math.abs(mean - shape) / shape).toBeLessThan(0.03)
      expect(Math.abs(variance - shape) / shape).toBeLessThan(0.08)
    }
  })

  test('the checks catch the wrong process: constant gaps fail the poisson CV, poisson gaps fail a bursty gamma', () => {
    expect(meanAndCv(gaps(take(50, { process: 'constant', seed: 11 }, N))).cv).toBeLessThan(0.01)
    expect(Math.abs(meanAndCv(gaps(take(10, { process: 'poisson', seed: 5 }, N))).cv - 2) / 2).toBeGreaterThan(0.06)
  })
})

describe('ramps', () => {
  const rate = 40
  const spanMs = 30_000

  test.each<[ArrivalPlan['process'], 'linear' | 'exponential']>([
    ['constant', 'linear'],
    ['constant', 'exponential'],
    ['poisson', 'linear'],
    ['poisson', 'exponential'],
  ])(
    '%s arrivals on a %s ramp: as many calls in the span as the integral of the rate, then the rate',
    (process, shape) => {
      const ramp = { shape, spanMs }
      const offsets = plannedOffsets(rate, spanMs + 20_000, { process, seed: 9, ramp }, 1_000_000)
      expect(offsets[0]).toBe(0)
      expect(offsets.every((at, i) => Number.isFinite(at) && (i === 0 || at >= (offsets[i - 1] as number)))).toBe(true)
      const expected = expectedArrivals(rate, spanMs, ramp)
      // Linear from 0: 40 × 30 / 2 = 600; exponential from 0.4/s: (40 - 0.4) / ln(100) × 30 ≈ 258.
      expect(expected).toBeCloseTo(shape === 'linear' ? 600 : (39.6 / Math.log(100)) * 30, 6)
      const inSpan = countBy(offsets, spanMs)
      // Constant: within one call; poisson: within four standard deviations (sqrt of the count).
      const tolerance = process === 'constant' ? 1 : 4 * Math.sqrt(expected)
      expect(Math.abs(inSpan - expected)).toBeLessThanOrEqual(tolerance)
      const after = offsets.length - inSpan
      expect(Math.abs(after - rate * 20)).toBeLessThanOrEqual(process === 'constant' ? 1 : 4 * Math.sqrt(rate * 20))
      // Rising: the last quarter of the ramp holds more calls than the first.
      expect(countBy(offsets, spanMs) - countBy(offsets, spanMs * 0.75)).toBeGreaterThan(
        2 * countBy(offsets, spanMs * 0.25),
      )
    },
  )

  test('a ramp from a given rate starts there', () => {
    const ramp = { shape: 'linear' as const, spanMs: 10_000, fromRate: 10 }
    expect(expectedArrivals(20, 10_000, ramp)).toBeCloseTo(150, 9)
    const offsets = plannedOffsets(20, 10_000, { process: 'constant', seed: 1, ramp }, 10_000)
    expect(offsets[1]).toBeCloseTo(1000 / 10, -0.5)
    expect(offsets.length).toBe(150)
  })

  test('planned offsets stop at the duration and at the cap', () => {
    expect(plannedOffsets(10, 1000, { process: 'poisson', seed: 2 }, 1_000_000).every((at) => at < 1000)).toBe(true)
    expect(plannedOffsets(1000, 60_000, { process: 'poisson', seed: 2 }, 100).length).toBe(100)
  })
})

describe('--arrival, --ramp and --seed on a plan', () => {
  const plan: PhasePlan = {
    name: 'p',
    description: '',
    engine: 'scheduler',
    slot: 'main',
    requests: [],
    rate: 5,
    connections: 2,
    durationMs: 1000,
    bucket: null,
    expectedLimit: null,
    fromRest: false,
    verdicts: [],
  }
  const ctx = { seed: 42, seedGiven: false } as PlanContext

  test('a phase given nothing stays as it was: no arrival, constant', () => {
    expect(arrivalFor(plan, 0, ctx)).toBe(plan)
  })

  test("--arrival replaces the process, keeps the phase's own seed unless --seed was given", () => {
    const own = { ...plan, arrival: { process: 'constant' as const, seed: 7 } }
    expect(arrivalFor(own, 0, { ...ctx, arrival: { process: 'poisson' } }).arrival).toEqual({
      process: 'poisson',
      seed: 7,
    })
    expect(arrivalFor(own, 0, { ...ctx, seedGiven: true, arrival: { process: 'poisson' } }).arrival?.seed).toBe(
      deriveSeed(42, 0),
    )
    expect(arrivalFor(plan, 1, { ...ctx, ramp: { shape: 'linear', spanMs: 5000 } }).arrival).toEqual({
      process: 'constant',
      ramp: { shape: 'linear', spanMs: 5000 },
      seed: deriveSeed(42, 1),
    })
  })

  test('closed-loop and client phases take no arrival; an autocannon phase at a fixed rate moves to the scheduler', () => {
    const closed = { ...plan, engine: 'autocannon' as const, rate: null }
    expect(arrivalFor(closed, 0, { ...ctx, arrival: { process: 'poisson' } })).toBe(closed)
    const clients = { ...plan, engine: 'clients' as const }
    expect(arrivalFor(clients, 0, { ...ctx, arrival: { process: 'poisson' } })).toBe(clients)
    const paced = { ...plan, engine: 'autocannon' as const, rate: 60 }
    expect(arrivalFor(paced, 0, { ...ctx, arrival: { process: 'poisson' } })).toMatchObject({
      engine: 'scheduler',
      arrival: { process: 'poisson' },
    })
    expect(arrivalFor(paced, 0, ctx)).toBe(paced)
  })
})
