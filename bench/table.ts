/**
 * The one table `npm run bench` prints: a row per benchmark, then a note per row saying how it was measured, so
 * that a reader can judge a figure without opening the code.
 */

export interface Row {
  benchmark: string
  measured: string
  baseline: string
  /** The ratio of measured to baseline, or the figure the goal is judged on when there is no ratio. */
  figure: string
  goal: string
  /** null: the row has no goal, only a figure to track. */
  met: boolean | null
  /** How it was measured (rounds, durations, what the processes were), one or two sentences. */
  note: string
}

const HEADER = ['benchmark', 'measured', 'baseline', 'ratio or figure', 'goal', 'met?']

/** A benchmark that threw still gets its row, so that one broken part does not hide the others. */
export function errorRow(benchmark: string, goal: string, error: unknown): Row {
  const message = error instanceof Error ? error.message : String(error)
  return {
    benchmark,
    measured: 'error',
    baseline: '-',
    figure: '-',
    goal,
    met: false,
    note: `failed: ${message.split('\n')[0]}`,
  }
}

export function formatTable(rows: readonly Row[]): string {
  const cells = [
    HEADER,
    ...rows.map((r) => [
      r.benchmark,
      r.measured,
      r.baseline,
      r.figure,
      r.goal,
      r.met === null ? '-' : r.met ? 'yes' : 'NO',
    ]),
  ]
  const widths = HEADER.map((_, c) => Math.max(...cells.map((row) => (row[c] as string).length)))
  const lines = cells.map((row) =>
    row.map((cell, c) => (c < row.length - 1 ? cell.padEnd(widths[c] as number) : cell)).join('  '),
  )
  const notes = rows.map((r) => `- ${r.benchmark}: ${r.note}`)
  return `${lines.join('\n')}\n\n${notes.join('\n')}\n`
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}
