/**
 * `npm run load -- --profile X --repeat k`: the profile run k times, one after another, against one target, and
 * the repeats made into one result. Histograms, counts and rate-limit facts merge exactly (as shards do); beside
 * them, result.json records each figure's value in every repeat and their spread (`repeats`), which is what
 * `compare` needs to tell a change from run-to-run noise.
 *
 * Verdicts are the worst repeat's, not judged again on the merge: the rate-limit verdicts read time order and
 * starts from rest, which runs made one after another do not share, and a nightly job should fail if any repeat did.
 */
import { ConfigError } from '../harness/errors.ts'
import { phaseFigures, type FigureName } from './compare/figures.ts'
import { spreadOf } from './compare/spread.ts'
import { mergePhase } from './merge.ts'
import type { FigureSpread, LoadResult, PhaseResult, ScheduleFigures, Verdict, VerdictStatus } from './types.ts'
import { outcomeOf } from './verdicts.ts'

/**
 * One phase over its repeats. The plan is the plan (a repeat offers the same load again, unlike a shard). The
 * phase's time is the sum of the repeats' (endedAt is set that far after the first start), so that every rate
 * read from it is over the time that load was offered; its time series are left out, since slices of runs made
 * one after another do not add up: each repeat's report.html charts its own.
 */
export function mergeRepeatedPhase(parts: readonly PhaseResult[]): PhaseResult {
  const first = parts[0]
  if (first === undefined) throw new Error('no repeat ran the phase')
  const merged = mergePhase([...parts])
  const activeMs = parts.reduce((ms, p) => ms + (p.endedAt - p.startedAt), 0)
  const schedules = parts.map((p) => p.schedule).filter((s): s is ScheduleFigures => s !== null)
  return {
    ...merged,
    plan: first.plan,
    startedAt: first.startedAt,
    endedAt: first.startedAt + activeMs,
    achievedRate: merged.sent / Math.max(0.001, activeMs / 1000),
    series: [],
    maxInFlight: Math.max(...parts.map((p) => p.maxInFlight)),
    // The worst repeat's schedule: each was judged against its own bound.
    schedule:
      schedules.length === 0
        ? null
        : {
            maxBehindCalls: Math.max(...schedules.map((s) => s.maxBehindCalls)),
            maxAheadCalls: Math.max(...schedules.map((s) => s.maxAheadCalls)),
            boundCalls: (schedules[0] as ScheduleFigures).boundCalls,
            lagP99Ms: schedules.some((s) => s.lagP99Ms !== null)
              ? Math.max(...schedules.map((s) => s.lagP99Ms ?? 0))
              : null,
            conclusive: schedules.every((s) => s.conclusive),
          },
  }
}

const RANK: Record<VerdictStatus, number> = { skip: 0, pass: 1, inconclusive: 2, fail: 3 }

/** Per phase and verdict, the worst status over the repeats, with the figure of the repeat that had it. */
export function worstVerdicts(results: readonly LoadResult[]): Verdict[] {
  const byKey = new Map<string, { worst: Verdict; repeat: number; statuses: VerdictStatus[] }>()
  for (const [i, r] of results.entries()) {
    for (const v of r.verdicts) {
      const key = `${v.phase}\u0000${v.id}`
      const seen = byKey.get(key)
      if (seen === undefined) byKey.set(key, { worst: v, repeat: i, statuses: [v.status] })
      else {
        seen.statuses.push(v.status)
        if (RANK[v.status] > RANK[seen.worst.status]) Object.assign(seen, { worst: v, repeat: i })
      }
    }
  }
  return [...byKey.values()].map(({ worst, repeat, statuses }) =>
    results.length === 1 || statuses.every((s) => s === worst.status)
      ? worst
      : {
          ...worst,
          figure: `repeat ${repeat + 1} of ${results.length}: ${worst.figure}`,
          detail: `${worst.detail} (by repeat: ${statuses.join(', ')})`,
        },
  )
}

export function mergeRepeats(results: readonly LoadResult[], runId: string, dirs: readonly string[]): LoadResult {
  const first = results[0]
  if (first === undefined) throw new ConfigError('no repeat ran')
  const names = [...new Set(results.flatMap((r) => r.phases.map((p) => p.plan.name)))]
  const phases: PhaseResult[] = []
  const spread: Record<string, Record<string, FigureSpread>> = {}
  for (const name of names) {
    const parts = results
      .map((r) => r.phases.find((p) => p.plan.name === name))
      .filter((p): p is PhaseResult => p !== undefined)
    phases.push(mergeRepeatedPhase(parts))
    const values = new Map<FigureName, number[]>()
    for (const part of parts) {
      for (const [figure, value] of Object.entries(phaseFigures(part, first.target.minuteMs)) as [FigureName, number][])
        values.set(figure, [...(values.get(figure) ?? []), value])
    }
    spread[name] = Object.fromEntries([...values].map(([figure, list]) => [figure, spreadOf(list)]))
  }
  const verdicts = worstVerdicts(results)
  const partial = results.some((r) => r.partial)
  const { outcome, exitCode } =
    partial && !verdicts.some((v) => v.status === 'fail')
      ? { outcome: 'inconclusive' as const, exitCode: 3 as const }
      : outcomeOf(verdicts)
  const last = results[results.length - 1] as LoadResult
  return {
    ...first,
    runId,
    endedAt: last.endedAt,
    partial,
    stopReason: results.map((r) => r.stopReason).find((s) => s !== null) ?? null,
    phases,
    verdicts,
    outcome,
    exitCode,
    repeats: { count: results.length, dirs: [...dirs], phases: spread },
  }
}
