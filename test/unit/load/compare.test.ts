/**
 * Comparing two load runs: a change counts only beyond the run-to-run spread, a regression
 * is a significant change in the worse direction past the threshold, and `--repeat` merges histograms exactly
 * while keeping each figure's spread. Pure: constructed results, no target.
 */
import { describe, expect, test } from 'vitest'
import { FIGURES, phaseFigures, type Figure, type FigureName } from '../../../load/compare/figures.ts'
import { compareResults, judgeChange, type Thresholds } from '../../../load/compare/judge.ts'
import { COMPARE } from '../../../load/compare/thresholds.ts'
import { noiseOfDifference, spreadOf, t975 } from '../../../load/compare/spread.ts'
import { mergeRepeats } from '../../../load/repeat.ts'
import { renderCompareHtml, renderCompareMd, renderCompareText } from '../../../load/report/compare.ts'
import { renderHtml } from '../../../load/report/html.ts'
import { renderSummaryMd } from '../../../load/report/summary-md.ts'
import type { LoadResult, PhaseResult } from '../../../load/types.ts'
import { configErrorOf } from '../../support/config-error.ts'
import { fixtureResult, histogram } from '../../load/fixture-result.ts'

const DIRS = { baseline: 'base', next: 'new' }
const DEFAULT: Thresholds = { percent: COMPARE.thresholdPercent, byFigure: {} }
const figure = (name: FigureName): Figure => FIGURES.find((f) => f.name === name) as Figure

/** The fixture's streaming phase alone, with its latency p99 set (the figure read from the summary). */
function withP99(p99: number): LoadResult {
  const r = fixtureResult()
  const phase = r.phases[1] as PhaseResult
  r.phases = [{ ...phase, latency: { ...phase.latency, p99 } }]
  return r
}

/** As if the run had used --repeat with these p99s: the spread compare reads. */
function repeated(p99s: number[]): LoadResult {
  const r = withP99(p99s.reduce((a, b) => a + b, 0) / p99s.length)
  r.repeats = {
    count: p99s.length,
    dirs: p99s.map((_, i) => `repeat-${i + 1}`),
    phases: { streaming: { 'latency-p99': spreadOf(p99s) } },
  }
  return r
}

const p99Change = (base: LoadResult, next: LoadResult, t: Thresholds = DEFAULT) =>
  compareResults(base, next, DIRS, t).changes.find((c) => c.figure === 'latency-p99')!

describe('significance against the spread', () => {
  test("a change within the repeats' spread is not flagged, though past the threshold", () => {
    // Means 1000 and 1150 ms (+15 %), but the repeats vary by about 100 ms: noise explains it.
    const change = p99Change(repeated([900, 1000, 1100]), repeated([1050, 1150, 1250]))
    expect(change.noiseFrom).toBe('repeats')
    expect(change.relative).toBeCloseTo(0.15, 9)
    expect(change.noise).toBeGreaterThan(150)
    expect(change.status).toBe('same')
  })

  test('the same change beyond a tight spread is a regression, and makes exit 1', () => {
    const base = repeated([995, 1000, 1005])
    const next = repeated([1145, 1150, 1155])
    const comparison = compareResults(base, next, DIRS, DEFAULT)
    const change = comparison.changes.find((c) => c.figure === 'latency-p99')!
    expect(change.noise).toBeLessThan(20)
    expect(change.status).toBe('regression')
    expect(comparison.exitCode).toBe(1)
    expect(comparison.regressions).toBe(1)
  })

  test('significant but within the threshold is worse, not a regression; a per-figure threshold overrides', () => {
    expect(p99Change(repeated([995, 1000, 1005]), repeated([1045, 1050, 1055])).status).toBe('worse')
    expect(
      p99Change(repeated([995, 1000, 1005]), repeated([1145, 1150, 1155]), { percent: 10, byFigure: { latency: 20 } })
        .status,
    ).toBe('worse')
    expect(
      p99Change(repeated([995, 1000, 1005]), repeated([1145, 1150, 1155]), {
        percent: 10,
        byFigure: { 'latency-p99': 14 },
      }).status,
    ).toBe('regression')
  })

  test('faster is better, never a regression', () => {
    const comparison = compareResults(repeated([995, 1000, 1005]), repeated([495, 500, 505]), DIRS, DEFAULT)
    expect(comparison.changes.find((c) => c.figure === 'latency-p99')!.status).toBe('better')
    expect(comparison.exitCode).toBe(0)
  })

  test('without repeats the default band judges, and the output says the spread was not measured', () => {
    expect(p99Change(withP99(1000), withP99(1040)).status).toBe('same')
    const comparison = compareResults(withP99(1000), withP99(1200), DIRS, DEFAULT)
    expect(comparison.spreadMeasured).toBe(false)
    expect(comparison.changes.find((c) => c.figure === 'latency-p99')!.noiseFrom).toBe('default')
    expect(comparison.exitCode).toBe(1)
    expect(renderCompareText(comparison)).toContain('spread NOT measured')
  })

  test('one side with repeats lends its spread to a side of one run', () => {
    expect(p99Change(repeated([900, 1000, 1100]), withP99(1150)).status).toBe('same')
    expect(p99Change(repeated([995, 1000, 1005]), withP99(1150)).status).toBe('regression')
  })

  test('throughput is worse when it falls; errors are judged in percentage points', () => {
    const throughput = figure('throughput')
    expect(judgeChange(throughput, 100, 80, null, 10).status).toBe('regression')
    expect(judgeChange(throughput, 100, 130, null, 10).status).toBe('better')
    const errors = figure('error-share')
    expect(judgeChange(errors, 0, 0.003, null, 1).status).toBe('same')
    expect(judgeChange(errors, 0, 0.008, null, 1).status).toBe('worse')
    expect(judgeChange(errors, 0, 0.03, null, 1).status).toBe('regression')
  })
})

test("a figure the merge keeps only a bound of (schedule lag: the worst repeat's) is compared by the repeats' mean", () => {
  const base = repeated([1000, 1000, 1000])
  base.repeats!.phases.streaming!['schedule-lag-p99'] = spreadOf([1, 2, 3])
  base.phases[0] = { ...base.phases[0]!, schedule: { ...base.phases[0]!.schedule!, lagP99Ms: 3 } }
  const change = compareResults(base, withP99(1000), DIRS, DEFAULT).changes.find(
    (c) => c.figure === 'schedule-lag-p99',
  )!
  expect(change.baseline).toBe(2)
})

test('goodput is read as the run states it, without trusting its shape', () => {
  const phase = fixtureResult().phases[1] as PhaseResult
  const stated = { ok: 20, good: 12, throughputPerSecond: 20, goodputPerSecond: 12 }
  expect(phaseFigures({ ...phase, goodput: stated }, 6000).goodput).toBe(12)
  expect(phaseFigures({ ...phase, goodput: undefined }, 6000).goodput).toBeUndefined()
  expect(
    phaseFigures({ ...phase, goodput: { ...stated, goodputPerSecond: 'lots' } } as unknown as PhaseResult, 6000)
      .goodput,
  ).toBeUndefined()
  expect(phaseFigures({ ...phase, goodput: 0.9 } as unknown as PhaseResult, 6000).goodput).toBeUndefined()
  // The backoff phase's clients: their successes as a share of the limit's rate, a figure of its own.
  expect(phaseFigures(fixtureResult().phases[2] as PhaseResult, 6000)['client-goodput']).toBeGreaterThan(0)
  expect(phaseFigures(phase, 6000)['client-goodput']).toBeUndefined()
})

describe('spread', () => {
  test("sample standard deviation, and Student's t for few repeats", () => {
    const s = spreadOf([2, 4, 4, 4, 5, 5, 7, 9])
    expect(s.mean).toBe(5)
    expect(s.stddev).toBeCloseTo(2.138, 3)
    expect([s.min, s.max]).toEqual([2, 9])
    expect(spreadOf([3]).stddev).toBeNull()
    expect(t975(2)).toBe(4.303)
    expect(t975(2.9)).toBe(4.303)
    expect(t975(100)).toBe(1.96)
  })

  test('the noise of a difference: Welch with both sides measured, borrowed with one, none with neither', () => {
    // Equal spreads and counts: df = 2(n - 1) = 4; se = s * sqrt(2 / n).
    expect(noiseOfDifference({ runs: 3, stddev: 10 }, { runs: 3, stddev: 10 })).toBeCloseTo(
      2.776 * 10 * Math.sqrt(2 / 3),
      6,
    )
    expect(noiseOfDifference({ runs: 3, stddev: 10 }, { runs: 1, stddev: null })).toBeCloseTo(
      4.303 * Math.sqrt(100 / 3 + 100),
      6,
    )
    expect(noiseOfDifference({ runs: 1, stddev: null }, { runs: 1, stddev: null })).toBeNull()
  })
})

describe('bad input is one line', () => {
  test('runs of different profiles', () => {
    const other = { ...fixtureResult(), profile: { ...fixtureResult().profile, name: 'streaming' } }
    expect(configErrorOf(() => compareResults(fixtureResult(), other, DIRS, DEFAULT))).toBe(
      'base ran tier1 and new ran streaming: compare two runs of one profile',
    )
  })

  test('phases that do not match', () => {
    expect(configErrorOf(() => compareResults(fixtureResult(), withP99(1), DIRS, DEFAULT))).toMatch(
      /^the phases differ: baseline tier1-requests, streaming, backoff-spec7, new streaming;/,
    )
  })

  test('another offered load', () => {
    const faster = withP99(1)
    faster.phases = faster.phases.map((p) => ({ ...p, plan: { ...p.plan, rate: 10 } }))
    expect(configErrorOf(() => compareResults(withP99(1), faster, DIRS, DEFAULT))).toMatch(
      /^phase streaming offered 5\/s in the baseline and 10\/s in the new run/,
    )
  })
})

describe('--repeat: the merge of repeats', () => {
  function repeat(p99Scale: number, verdict: 'pass' | 'fail'): LoadResult {
    const r = fixtureResult()
    const phase = r.phases[1] as PhaseResult
    r.phases = [{ ...phase, latency: histogram(Array.from({ length: 50 }, (_, i) => (100 + i) * p99Scale)) }]
    r.verdicts = [
      {
        id: 'streaming',
        phase: 'streaming',
        status: verdict,
        figure: `scale ${p99Scale}`,
        detail: 'd',
        section: 'P1-5.2',
      },
    ]
    r.outcome = verdict
    r.exitCode = verdict === 'pass' ? 0 : 1
    return r
  }

  test('histograms merge exactly, time adds up, each figure keeps its value per repeat, the worst verdict stands', () => {
    const parts = [repeat(1, 'pass'), repeat(2, 'fail'), repeat(1, 'pass')]
    const merged = mergeRepeats(parts, 'run', ['repeat-1', 'repeat-2', 'repeat-3'])
    const phase = merged.phases[0] as PhaseResult
    expect(phase.latency.count).toBe(150)
    expect(phase.latency.max).toBeCloseTo(298, 0)
    expect(phase.plan.rate).toBe(5)
    expect(phase.endedAt - phase.startedAt).toBe(3 * 10_000)
    expect(phaseFigures(phase, merged.target.minuteMs).throughput).toBeCloseTo(5, 9)
    const p99 = merged.repeats!.phases.streaming!['latency-p99']!
    expect(p99.values).toEqual(parts.map((p) => p.phases[0]!.latency.p99))
    expect(p99.stddev).toBeGreaterThan(0)
    expect(merged.outcome).toBe('fail')
    expect(merged.exitCode).toBe(1)
    expect(merged.verdicts[0]!.figure).toBe('repeat 2 of 3: scale 2')
    expect(merged.verdicts[0]!.detail).toContain('(by repeat: pass, fail, pass)')
    // Its reports show the spread and send the reader to each repeat's charts.
    expect(renderSummaryMd(merged)).toMatch(/## Spread over 3 repeats[\s\S]*\| streaming \| latency p99 \|/)
    expect(renderHtml(merged)).toContain("Charts over time are in each repeat's report (repeat-1/report.html")
  })
})

describe('the written comparison', () => {
  test('markdown and a self-contained page, escaped', () => {
    const base = repeated([995, 1000, 1005])
    const next = repeated([1145, 1150, 1155])
    next.runId = '<b>run</b>'
    const comparison = compareResults(base, next, DIRS, DEFAULT)
    const md = renderCompareMd(comparison)
    expect(md).toMatch(/^# Load compare: tier1: REGRESSION \(exit 1\)/)
    expect(md).toContain('**REGRESSION**')
    const html = renderCompareHtml(comparison)
    expect(html).toContain('&lt;b&gt;run&lt;/b&gt;')
    expect(html).toContain('default-src &#39;none&#39;')
    expect(html).not.toMatch(/https?:\/\/|<(script|link|img)\b/)
  })
})
