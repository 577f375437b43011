/**
 * npm run load -- compare <baseline dir> <new dir> [--threshold ...] [--report-dir DIR]
 *
 * Exit codes: 0 no regression; 1 a figure regressed past its threshold; 2 bad input (not a result directory, a
 * corrupt result.json, runs of different profiles, phases or offered load), one line saying what to fix.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError } from '../../harness/errors.ts'
import { COMPARE, compareResults, type Thresholds } from '../compare/judge.ts'
import { FIGURE_NAMES } from '../compare/figures.ts'
import { readResult } from '../merge.ts'
import { renderCompareText, writeCompareReport } from '../report/compare.ts'

const SYNOPSIS =
  'npm run load -- compare BASELINE_DIR NEW_DIR [--threshold PCT] [--threshold FIGURE=N ...] [--report-dir DIR]'
const { thresholdPercent: percent, thresholdPoints: points } = COMPARE

export const COMPARE_USAGE = `Usage: ${SYNOPSIS}

Compares each figure of each phase of two load runs (their reports/load/<run-id> directories). A change is
significant only outside the run-to-run spread (measured when a run used --repeat); a regression is a significant
change in the worse direction past the threshold. Writes compare.md and compare.html to --report-dir, else to NEW_DIR.

  --threshold PCT         regression threshold of rates and latencies, percent of the baseline (default ${percent})
  --threshold FIGURE=N    for one figure or family (latency, ttft, itl, throughput, goodput, schedule-lag-p99, ...);
                          error-share is in percentage points (default ${points})
  -h, --help              this text
Exit codes: 0 no regression, 1 regression, 2 bad input.
`

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

function parseCompareArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        threshold: { type: 'string', multiple: true },
        'report-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run load -- compare --help)`)
  }
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
