/** What a run leaves: its report directory under <report-dir>/load/, and the table of figures and verdicts printed. */
import { resolve } from 'node:path'
import { pointLatest } from '../../harness/report/files.ts'
import { mergeRepeats } from '../repeat.ts'
import { columns } from '../report/compare.ts'
import type { LoadResult, PhaseResult } from '../types.ts'

export async function writeReport(result: LoadResult, reportRoot: string): Promise<string> {
  const { writeLoadReport } = await import('../report/write.ts')
  const root = resolve(reportRoot, 'load')
  const dir = resolve(root, result.runId)
  await writeLoadReport(result, dir)
  pointLatest(root, dir)
  return dir
}

/** The repeats in <run-id>/repeat-N/, their merge in <run-id>/ itself, which `latest` points at. */
export async function writeRepeats(
  repeats: LoadResult[],
  runId: string,
  reportRoot: string,
): Promise<{ merged: LoadResult; dir: string }> {
  const { writeLoadReport } = await import('../report/write.ts')
  const root = resolve(reportRoot, 'load')
  const dir = resolve(root, runId)
  const dirs = repeats.map((_, i) => `repeat-${i + 1}`)
  for (const [i, r] of repeats.entries()) await writeLoadReport(r, resolve(dir, dirs[i] as string))
  const merged = mergeRepeats(repeats, runId, dirs)
  await writeLoadReport(merged, dir)
  pointLatest(root, dir)
  return { merged, dir }
}

/** What a phase offered: its rate, else a client's pace, else a closed loop. */
function offered(p: PhaseResult): string {
  if (p.plan.rate !== null) return p.plan.rate.toFixed(1)
  const pace = p.plan.client?.pacePerSecond
  return pace != null ? `at most ${pace.toFixed(1)}` : 'closed loop'
}

export function verdictTable(result: LoadResult): string {
  const count = (by: Record<string, number>, test: (status: number) => boolean): number =>
    Object.entries(by)
      .filter(([s]) => test(Number(s)))
      .reduce((n, [, v]) => n + v, 0)
  const figures = [
    [
      'phase',
      'sent',
      'achieved/offered per s',
      '2xx/good per s',
      '2xx',
      '429',
      'other 4xx',
      '5xx',
      'no answer',
      'latency p50/p99 ms',
    ],
    ...result.phases.map((p) => [
      p.plan.name,
      String(p.sent),
      `${p.achievedRate.toFixed(1)}/${offered(p)}`,
      p.goodput ? `${p.goodput.throughputPerSecond.toFixed(1)}/${p.goodput.goodputPerSecond.toFixed(1)}` : '-',
      String(count(p.byStatus, (s) => s >= 200 && s < 300)),
      String(p.byStatus['429'] ?? 0),
      String(count(p.byStatus, (s) => s >= 400 && s < 500 && s !== 429)),
      String(count(p.byStatus, (s) => s >= 500)),
      String(Object.values(p.errors).reduce((a, b) => a + b, 0)),
      `${p.latency.p50}/${p.latency.p99}`,
    ]),
  ]
  const verdicts = [
    ['phase', 'verdict', 'status', 'figure'],
    ...result.verdicts.map((v) => [v.phase, v.id, v.status.toUpperCase(), v.figure]),
  ]
  return `${columns(figures)}\n\n${columns(verdicts)}`
}
