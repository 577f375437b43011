/**
 * npm run load -- compare <baseline dir> <new dir> [--threshold ...] [--report-dir DIR]
 *
 * Exit codes: 0 no regression; 1 a figure regressed past its threshold; 2 bad input (not a result directory, a
 * corrupt result.json, runs of different profiles, phases or offered load), one line saying what to fix.
 */
import { resolve } from 'node:path'
import { ConfigError } from '../../harness/errors.ts'
import { compareResults, type Thresholds } from '../compare/judge.ts'
import { COMPARE } from '../compare/thresholds.ts'
import { FIGURE_NAMES } from '../compare/figures.ts'
import { readResult } from '../merge.ts'
import { renderCompareText, writeCompareReport } from '../report/compare.ts'
import { COMPARE_USAGE, parseCompareArgs } from './compare-flags.ts'

const FAMILIES = new Set([...FIGURE_NAMES, ...FIGURE_NAMES.map((n) => n.split('-')[0] as string)])

export function parseThresholds(raw: readonly string[]): Thresholds {
  const t: Thresholds = { percent: COMPARE.thresholdPercent, byFigure: {} }
  for (const item of raw
    .flatMap((r) => r.split(','))
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^(?:([a-z0-9-]+)=)?(\d+(?:\.\d+)?)$/.exec(item)
    if (!match) throw new ConfigError(`--threshold takes PCT or FIGURE=N, e.g. 10 or latency-p99=25 (got "${item}")`)
    const [, figure, n] = match
    if (figure === undefined) t.percent = Number(n)
    else if (!FAMILIES.has(figure))
      throw new ConfigError(`--threshold: no figure "${figure}"; the figures: ${FIGURE_NAMES.join(', ')}`)
    else t.byFigure[figure] = Number(n)
  }
  return t
}

export async function compareCommand(argv: string[], io: { stdout: (t: string) => void }): Promise<number> {
  const { values, positionals } = parseCompareArgs(argv)
  if (values.help) {
    io.stdout(COMPARE_USAGE)
    return 0
  }
  if (positionals.length !== 2)
    throw new ConfigError(
      `compare takes two report directories, the baseline's and the new run's (got ${positionals.length}): ` +
        'npm run load -- compare BASELINE_DIR NEW_DIR',
    )
  const [baseDir, newDir] = positionals as [string, string]
  const thresholds = parseThresholds(values.threshold ?? [])
  const [base, next] = [await readResult(baseDir), await readResult(newDir)]
  const comparison = compareResults(base, next, { baseline: baseDir, next: newDir }, thresholds)
  const written = await writeCompareReport(comparison, resolve(values['report-dir'] ?? newDir))
  io.stdout(`${renderCompareText(comparison)}Written: ${written.join(', ')}\n`)
  return comparison.exitCode
}
