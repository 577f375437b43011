/**
 * `npm run load -- compare <baseline> <new>`: each figure of each phase against the baseline's. A change counts
 * (is significant) only where it exceeds what the two runs' spread explains; it is a regression when it is
 * significant, in the worse direction, and past the threshold (a share of the baseline, or percentage points for
 * figures that are shares). Runs of different profiles, phases or offered load do not compare: that is bad input.
 */
import { ConfigError } from '../../harness/errors.ts'
import type { LoadResult, PhaseResult } from '../types.ts'
import { FIGURES, type Figure, type FigureName } from './figures.ts'
import { noiseOfDifference, type Side } from './spread.ts'
import { COMPARE } from './thresholds.ts'

/** `same`: within the noise. `worse`: significant but within the threshold. `missing`: one side lacks the figure. */
export type ChangeStatus = 'regression' | 'worse' | 'better' | 'same' | 'missing'

export interface FigureChange {
  phase: string
  figure: FigureName
  label: string
  unit: Figure['unit']
  scale: Figure['scale']
  baseline: number | null
  next: number | null
  /** next - baseline, in the figure's unit (a share's as a fraction). */
  delta: number | null
  /** delta over the baseline (relative figures), or null. */
  relative: number | null
  /** Half the width of the band that noise explains, in the figure's unit. */
  noise: number | null
  /** `repeats`: the 95 % interval from the repeats' spread; `default`: the stated band (spread not measured). */
  noiseFrom: 'repeats' | 'default'
  /** The threshold applied: percent of the baseline, or percentage points for shares. */
  threshold: number
  status: ChangeStatus
}

export interface RunSummary {
  dir: string
  runId: string
  repeats: number
  partial: boolean
}

export interface Comparison {
  profile: string
  baseline: RunSummary
  next: RunSummary
  changes: FigureChange[]
  /** True when at least one side ran --repeat, so that noise was measured rather than assumed. */
  spreadMeasured: boolean
  regressions: number
  exitCode: 0 | 1
}

/**
 * Thresholds: a default for relative figures, and overrides by figure name or family (`latency` for every latency-pN).
 */
export interface Thresholds {
  percent: number
  byFigure: Record<string, number>
}

export function thresholdFor(figure: Figure, t: Thresholds): number {
  const family = figure.name.split('-')[0] as string
  return (
    t.byFigure[figure.name] ?? t.byFigure[family] ?? (figure.scale === 'share' ? COMPARE.thresholdPoints : t.percent)
  )
}

function runsOf(result: LoadResult): number {
  return result.repeats?.count ?? 1
}

/** The figure's value on one side (of the merge of its repeats, or their mean) and its spread. */
function sideOf(result: LoadResult, phase: PhaseResult, figure: Figure): { value: number | null; side: Side } {
  const spread = result.repeats?.phases[phase.plan.name]?.[figure.name]
  const read = spread !== undefined && !figure.exact ? null : figure.read(phase, result.target.minuteMs)
  const value = read !== null && Number.isFinite(read) ? read : (spread?.mean ?? null)
  return { value, side: { runs: spread?.values.length ?? 1, stddev: spread?.stddev ?? null } }
}

function sameOffer(a: PhaseResult, b: PhaseResult): boolean {
  const close = (x: number | null, y: number | null): boolean =>
    x === null || y === null ? x === y : Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x))
  return (
    a.plan.engine === b.plan.engine &&
    close(a.plan.rate, b.plan.rate) &&
    (a.plan.rate !== null || a.plan.connections === b.plan.connections)
  )
}

function offerLine(p: PhaseResult): string {
  return p.plan.rate === null
    ? `closed loop with ${p.plan.connections} connections`
    : `${Number(p.plan.rate.toFixed(3))}/s`
}

/** A result.json that parsed but whose phases lack what every figure reads: written by something else, or cut. */
function checkPhases(result: LoadResult, dir: string): void {
  const object = (v: unknown): boolean => typeof v === 'object' && v !== null
  for (const [i, p] of result.phases.entries()) {
    const ok =
      object(p) &&
      object(p.plan) &&
      typeof p.plan.name === 'string' &&
      object(p.byStatus) &&
      object(p.errors) &&
      object(p.latency) &&
      typeof p.sent === 'number' &&
      typeof p.startedAt === 'number' &&
      typeof p.endedAt === 'number'
    if (!ok)
      throw new ConfigError(
        `${dir}: phase ${i + 1} of its result.json lacks its plan, counts or latency: not a load result ` +
          `of this tool, or a damaged one`,
      )
  }
}

/** Bad input, as one line that says what to fix. */
export function checkComparable(base: LoadResult, next: LoadResult, dirs: { baseline: string; next: string }): void {
  checkPhases(base, dirs.baseline)
  checkPhases(next, dirs.next)
  if (base.profile.name !== next.profile.name)
    throw new ConfigError(
      `${dirs.baseline} ran ${base.profile.name} and ${dirs.next} ran ${next.profile.name}: ` +
        `compare two runs of one profile`,
    )
  const names = (r: LoadResult): string[] => r.phases.map((p) => p.plan.name)
  if (names(base).join(',') !== names(next).join(',')) {
    throw new ConfigError(
      `the phases differ: baseline ${names(base).join(', ') || 'none'}, new ${names(next).join(', ') || 'none'}; ` +
        `compare runs of the same phases (--phase), each run to its end`,
    )
  }
  for (const [i, b] of base.phases.entries()) {
    const n = next.phases[i] as PhaseResult
    if (!sameOffer(b, n))
      throw new ConfigError(
        `phase ${b.plan.name} offered ${offerLine(b)} in the baseline and ${offerLine(n)} in the new run: compare ` +
          `runs of the same load (--rate, --connections, the target's limits)`,
      )
  }
}

export function judgeChange(
  figure: Figure,
  baseline: number | null,
  next: number | null,
  noise: number | null,
  threshold: number,
): Pick<FigureChange, 'delta' | 'relative' | 'noise' | 'noiseFrom' | 'status'> {
  const noiseFrom = noise === null ? 'default' : 'repeats'
  if (baseline === null || next === null) return { delta: null, relative: null, noise, noiseFrom, status: 'missing' }
  const delta = next - baseline
  const relative =
    figure.scale === 'relative'
      ? baseline === 0
        ? delta === 0
          ? 0
          : Math.sign(delta) * Infinity
        : delta / Math.abs(baseline)
      : null
  const band =
    noise ??
    (figure.scale === 'share' ? COMPARE.noiseBandPoints / 100 : (COMPARE.noiseBandPercent / 100) * Math.abs(baseline))
  if (Math.abs(delta) <= band) return { delta, relative, noise: band, noiseFrom, status: 'same' }
  const worse = figure.better === 'lower' ? delta > 0 : delta < 0
  if (!worse) return { delta, relative, noise: band, noiseFrom, status: 'better' }
  const size = figure.scale === 'share' ? Math.abs(delta) * 100 : Math.abs(relative as number) * 100
  return { delta, relative, noise: band, noiseFrom, status: size > threshold ? 'regression' : 'worse' }
}

export function compareResults(
  base: LoadResult,
  next: LoadResult,
  dirs: { baseline: string; next: string },
  thresholds: Thresholds,
): Comparison {
  checkComparable(base, next, dirs)
  const changes: FigureChange[] = []
  for (const [i, b] of base.phases.entries()) {
    const n = next.phases[i] as PhaseResult
    for (const figure of FIGURES) {
      const was = sideOf(base, b, figure)
      const now = sideOf(next, n, figure)
      if (was.value === null && now.value === null) continue
      const threshold = thresholdFor(figure, thresholds)
      const judged = judgeChange(figure, was.value, now.value, noiseOfDifference(was.side, now.side), threshold)
      changes.push({
        phase: b.plan.name,
        figure: figure.name,
        label: figure.label,
        unit: figure.unit,
        scale: figure.scale,
        baseline: was.value,
        next: now.value,
        threshold,
        ...judged,
      })
    }
  }
  const regressions = changes.filter((c) => c.status === 'regression').length
  const summary = (r: LoadResult, dir: string): RunSummary => ({
    dir,
    runId: r.runId,
    repeats: runsOf(r),
    partial: r.partial,
  })
  return {
    profile: base.profile.name,
    baseline: summary(base, dirs.baseline),
    next: summary(next, dirs.next),
    changes,
    spreadMeasured: runsOf(base) > 1 || runsOf(next) > 1,
    regressions,
    exitCode: regressions > 0 ? 1 : 0,
  }
}
