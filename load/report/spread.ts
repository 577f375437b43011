/**
 * The spread of a repeated run's figures (`--repeat`), as rows for the terminal, summary.md and report.html:
 * the mean, range and standard deviation of each figure over the repeats.
 */
import { FIGURES, type Figure } from '../compare/figures.ts'
import type { FigureSpread, LoadResult } from '../types.ts'
import { ms, rate } from './lines.ts'

/** A figure's value in its unit: "12.3 ms", "250/s", "0.40 %". */
export function figureValue(unit: Figure['unit'], v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '-'
  if (unit === 'ms') return ms(v)
  if (unit === 'calls/s') return rate(v)
  if (unit === '%') return `${(v * 100).toFixed(2)} %`
  return Number(v.toPrecision(3)).toString()
}

export const SPREAD_HEAD = ['phase', 'figure', 'mean', 'min .. max', 'stddev']

/** Rows of SPREAD_HEAD, of every phase or of one. */
export function spreadRows(result: LoadResult, phase?: string): string[][] {
  const rows: string[][] = []
  for (const [name, figures] of Object.entries(result.repeats?.phases ?? {})) {
    if (phase !== undefined && name !== phase) continue
    for (const f of FIGURES) {
      const s: FigureSpread | undefined = figures[f.name]
      if (s === undefined) continue
      rows.push([
        name,
        f.label,
        figureValue(f.unit, s.mean),
        `${figureValue(f.unit, s.min)} .. ${figureValue(f.unit, s.max)}`,
        s.stddev === null ? '-' : figureValue(f.unit, s.stddev),
      ])
    }
  }
  return rows
}
