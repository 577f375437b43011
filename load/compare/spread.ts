/**
 * The run-to-run spread of a figure over repeats, and how much two figures may differ by noise alone.
 *
 * The spread is the sample standard deviation of the repeats (min, max and mean beside it, for readers). Two runs
 * differ significantly when their difference is outside its 95 % confidence interval: Student's t with Welch's
 * degrees of freedom, because a nightly job has few repeats (three or five), for which t is much wider than the
 * normal 1.96 and a normal interval would flag noise.
 */

import type { FigureSpread } from '../types.ts'

export function spreadOf(values: readonly number[]): FigureSpread {
  const n = values.length
  const mean = n === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / n
  const stddev = n < 2 ? null : Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1))
  return { values: [...values], min: Math.min(...values), max: Math.max(...values), mean, stddev }
}

/** Student's t at 97.5 % for 1 to 30 degrees of freedom (two-sided 95 %). */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
]

/** Fractional degrees of freedom round down: the wider interval. */
export function t975(df: number): number {
  if (!(df >= 1)) return T_975[0] as number
  const whole = Math.floor(df)
  return whole <= T_975.length ? (T_975[whole - 1] as number) : 1.96
}

/** One side of a comparison: how many runs its figure aggregates and their standard deviation, if measured. */
export interface Side {
  runs: number
  stddev: number | null
}

/**
 * Half the width of the 95 % interval of the difference between two sides' figures, or null when neither side
 * measured its spread. A side of one run borrows the other side's spread: the same generator against the same
 * kind of target, whose noise is the best estimate there is; its degrees of freedom are then the measured side's.
 */
export function noiseOfDifference(a: Side, b: Side): number | null {
  const measured = (s: Side): s is Side & { stddev: number } => s.runs >= 2 && s.stddev !== null
  if (!measured(a) && !measured(b)) return null
  const sa = measured(a) ? a.stddev : (b.stddev as number)
  const sb = measured(b) ? b.stddev : (a.stddev as number)
  const va = (sa * sa) / a.runs
  const vb = (sb * sb) / b.runs
  const se = Math.sqrt(va + vb)
  if (se === 0) return 0
  let df: number
  if (measured(a) && measured(b)) df = (va + vb) ** 2 / ((va * va) / (a.runs - 1) + (vb * vb) / (b.runs - 1))
  else df = (measured(a) ? a.runs : b.runs) - 1
  return t975(df) * se
}
