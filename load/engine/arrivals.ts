/**
 * When an open-loop phase's calls are meant to leave: planned send offsets (ms from the phase's start) for a
 * rate, an arrival process and an optional ramp. Pure and deterministic for a seed, so a run repeats call for call.
 *
 * Arrivals are drawn in operational time, where the process has rate 1 (constant: a step of 1; poisson: steps
 * Exp(1); gamma: steps Gamma(shape = burstiness, scale = 1 / burstiness), mean 1 and coefficient of variation
 * 1 / sqrt(burstiness)), and mapped to clock time through the inverse of the expected count Λ(t), the integral
 * of the rate. Without a ramp Λ(t) = rate·t, so gamma steps in clock time have scale 1 / (rate·burstiness), as
 * vLLM's `bench serve` defines them: burstiness 1 is poisson, below 1 burstier, above 1 more even.
 *
 * The PRNG is mulberry32: 32 bits of state, a full period of 2^32, and enough quality for inter-arrival times.
 */

import type { ArrivalPlan } from '../types.ts'

export type { ArrivalPlan }
export type ArrivalProcess = ArrivalPlan['process']
export type Ramp = NonNullable<ArrivalPlan['ramp']>

/** mulberry32: a uniform in [0, 1) per call. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A seed for the n-th of several streams drawn from one seed (phases of a run, shards of a phase). */
export function deriveSeed(seed: number, n: number): number {
  return Math.floor(mulberry32((seed ^ Math.imul(n + 1, 0x9e3779b9)) >>> 0)() * 4294967296) >>> 0
}

/** A standard normal (Box-Muller), from uniforms that are never 0. */
export function normal(random: () => number): number {
  const u = 1 - random()
  const v = random()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

/** Gamma(shape, 1) by Marsaglia and Tsang; a shape below 1 is boosted by U^(1/shape). */
export function gammaVariate(shape: number, random: () => number): number {
  if (shape < 1) return gammaVariate(shape + 1, random) * (1 - random()) ** (1 / shape)
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  for (;;) {
    let x: number
    let v: number
    do {
      x = normal(random)
      v = 1 + c * x
    } while (v <= 0)
    v = v * v * v
    const u = 1 - random()
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v
  }
}

function rampStart(rate: number, ramp: Ramp): number {
  return ramp.fromRate ?? (ramp.shape === 'linear' ? 0 : rate / 100)
}

/** Λ(t): the calls the plan expects by `ms` after the start (the integral of the rate). */
export function expectedArrivals(rate: number, ms: number, ramp?: Ramp): number {
  const t = ms / 1000
  if (!ramp || ramp.spanMs <= 0) return rate * t
  const span = ramp.spanMs / 1000
  const r0 = rampStart(rate, ramp)
  const inRamp = Math.min(t, span)
  let count: number
  if (ramp.shape === 'linear' || r0 === rate) count = r0 * inRamp + ((rate - r0) * inRamp * inRamp) / (2 * span)
  else {
    const k = Math.log(rate / r0) / span
    count = (r0 * (Math.exp(k * inRamp) - 1)) / k
  }
  return count + rate * Math.max(0, t - span)
}

/** Λ⁻¹(u) in ms: the instant by which `u` calls are expected. */
function instantOf(rate: number, u: number, ramp?: Ramp): number {
  if (u <= 0) return 0
  if (!ramp || ramp.spanMs <= 0) return (u / rate) * 1000
  const span = ramp.spanMs / 1000
  const r0 = rampStart(rate, ramp)
  const atSpan = expectedArrivals(rate, ramp.spanMs, ramp)
  if (u >= atSpan) return (span + (u - atSpan) / rate) * 1000
  if (ramp.shape === 'linear' || r0 === rate) {
    // r0·t + a·t² = u, written so that r0 = 0 and a = 0 both stay exact.
    const a = (rate - r0) / (2 * span)
    return ((2 * u) / (r0 + Math.sqrt(r0 * r0 + 4 * a * u))) * 1000
  }
  const k = Math.log(rate / r0) / span
  return (Math.log(1 + (k * u) / r0) / k) * 1000
}

/**
 * The planned send offsets of a phase, in ms from its start, non-decreasing and endless (the caller stops at the
 * phase's end or its cap). The first call leaves at the start. `rate` is calls per second once any ramp is over.
 */
export function* arrivalOffsets(rate: number, arrival?: ArrivalPlan): Generator<number, never, undefined> {
  if (!(rate > 0)) throw new RangeError(`an arrival rate must be above 0 (got ${rate})`)
  const process = arrival?.process ?? 'constant'
  const random = mulberry32(arrival?.seed ?? 0)
  const shape = process === 'poisson' ? 1 : (arrival?.burstiness ?? 1)
  if (!(shape > 0)) throw new RangeError(`burstiness must be above 0 (got ${shape})`)
  const step =
    process === 'constant'
      ? () => 1
      : process === 'poisson'
        ? () => -Math.log(1 - random())
        : () => gammaVariate(shape, random) / shape
  const ramp = arrival?.ramp
  // Constant arrivals without a ramp stay exactly i / rate, as the engine always planned (no sum of rounding errors).
  const exact = process === 'constant' && !ramp
  for (let i = 0, u = 0; ; i += 1, u += step()) yield exact ? i * (1000 / rate) : instantOf(rate, u, ramp)
}

/** The offsets before `durationMs`, at most `max` of them: what the scheduler and the recorder plan with. */
export function plannedOffsets(
  rate: number,
  durationMs: number,
  arrival: ArrivalPlan | undefined,
  max: number,
): Float64Array {
  const out: number[] = []
  for (const at of arrivalOffsets(rate, arrival)) {
    if (at >= durationMs || out.length >= max) break
    out.push(at)
  }
  return Float64Array.from(out)
}

/** How many offsets are at or before `ms` (they are sorted). */
export function countBy(offsets: Float64Array, ms: number): number {
  let lo = 0
  let hi = offsets.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((offsets[mid] as number) <= ms) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** "poisson", "gamma (burstiness 0.5)", "constant, linear ramp from 0/s over 30 s", "...; seed 42": for reports. */
export function describeArrival(arrival: ArrivalPlan | undefined, rate: number | null): string {
  if (!arrival) return 'constant'
  const process = arrival.process === 'gamma' ? `gamma (burstiness ${arrival.burstiness ?? 1})` : arrival.process
  const r = arrival.ramp
  const ramp =
    r && rate !== null
      ? `, ${r.shape} ramp from ${+rampStart(rate, r).toFixed(3)}/s over ${+(r.spanMs / 1000).toFixed(1)} s`
      : ''
  return `${process}${ramp}; seed ${arrival.seed}`
}
