/**
 * Objectives and goodput on their own (load/objectives.ts), and the capacity search's decisions (load/capacity.ts)
 * on steps judged by hand: the parser's one-line errors, which calls are good, a verdict that fails and one that
 * passes, the arithmetic of "beyond recovery", goodput merging exactly, and each way a search ends.
 */
import { describe, expect, test } from 'vitest'
import { ConfigError } from '../../../harness/errors.ts'
import { CAPACITY, conclude, decide, judgeStep, type Judged, type SearchBounds } from '../../../load/capacity.ts'
import { newHistogram, recordMs } from '../../../load/engine/histogram.ts'
import { mergeSeries, Series } from '../../../load/engine/series.ts'
import {
  beyondRecovery,
  countsOf,
  isGood,
  judgeObjectives,
  objectivesText,
  parseObjectives,
  shareAbove,
  type Measured,
} from '../../../load/objectives.ts'
import type { PhaseResult } from '../../../load/types.ts'
import { fixtureResult } from '../../load/fixture-result.ts'

describe('--slo', () => {
  test('reads each metric with a percentile, the mean or the max, and errors as a share', () => {
    const o = parseObjectives('ttft_p99=2s,itl_p99=150ms,e2e_p99.9=30s,tpot_mean=20ms,lag_max=1.5s,errors=1%')
    expect(o.map((x) => [x.metric, x.stat, x.bound])).toEqual([
      ['ttft', 99, 2000],
      ['itl', 99, 150],
      ['e2e', 99.9, 30_000],
      ['tpot', 'mean', 20],
      ['lag', 'max', 1500],
      ['errors', 'share', 0.01],
    ])
    expect(parseObjectives(objectivesText(o))).toEqual(o)
  })

  test.each([
    ['ttft_p99=fast', 'the value must be a duration in ms or s'],
    ['ttft_p99=2', 'the value must be a duration in ms or s'],
    ['speed_p99=2s', 'unknown objective "speed_p99"'],
    ['ttft_p0=2s', 'a percentile is above 0 and below 100'],
    ['ttft_p100=2s', 'unknown objective "ttft_p100"'],
    ['errors=2', 'errors takes a share from 0% to 100%'],
    ['ttft_p99', 'write name=value'],
    ['e2e_p99=1s,e2e_p99=2s', 'e2e_p99 is given twice'],
    ['', 'at least one objective'],
  ])('%j is a configuration error: %s', (text, message) => {
    let error: unknown
    try {
      parseObjectives(text)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toContain(message)
    expect((error as Error).message.split('\n')).toHaveLength(1)
  })
})

describe('goodput', () => {
  const slo = parseObjectives('e2e_p99=1s,ttft_p99=200ms,tpot_p99=50ms,itl_p99=40ms,lag_p99=1ms,errors=1%')
  const stream = { completed: true, ttftMs: 100, tpotMs: 20, meanGapMs: 20 }

  test('a call is good when it succeeded and each of its own figures is within its bound', () => {
    expect(isGood(slo, { status: 200, e2eMs: 900, stream })).toBe(true)
    expect(isGood(slo, { status: 200, e2eMs: 1100, stream })).toBe(false)
    expect(isGood(slo, { status: 200, e2eMs: 900, stream: { ...stream, ttftMs: 250 } })).toBe(false)
    expect(isGood(slo, { status: 200, e2eMs: 900, stream: { ...stream, tpotMs: 60 } })).toBe(false)
    expect(isGood(slo, { status: 200, e2eMs: 900, stream: { ...stream, meanGapMs: 45 } })).toBe(false)
    expect(isGood(slo, { status: 200, e2eMs: 900, stream: { ...stream, completed: false } })).toBe(false)
    expect(isGood(slo, { status: 200, e2eMs: 900, stream: { ...stream, ttftMs: null } })).toBe(false)
    expect(isGood(slo, { status: 429, e2eMs: 5, stream: null })).toBe(false)
    // Not streamed: no token timing bounds it; lag is the generator's figure, never a call's.
    expect(isGood(slo, { status: 200, e2eMs: 900, stream: null })).toBe(true)
    expect(isGood([], { status: 201, e2eMs: 60_000, stream: null })).toBe(true)
  })

  test('good calls add up slice by slice across shards', () => {
    const a = new Series()
    const b = new Series()
    for (const at of [100, 150, 250]) a.good(at)
    for (const at of [120, 330]) b.good(at)
    const merged = mergeSeries([a.buckets(), b.buckets()])
    expect(merged.map((x) => [x.t, x.good])).toEqual([
      [1, 3],
      [2, 1],
      [3, 1],
    ])
  })
})

describe('objective verdicts', () => {
  const streaming = (): ReturnType<typeof fixtureResult>['phases'][number] => fixtureResult().phases[1]!

  test('an objective the figures meet passes, one they breach fails, each with its figure', () => {
    const phase = streaming()
    const ttft = phase.stream!.ttft
    const [met, breached] = judgeObjectives(
      phase,
      parseObjectives(`ttft_p99=${Math.ceil(ttft.p99 + 1)}ms,ttft_p50=${Math.floor(ttft.p50 / 2)}ms`),
    )
    expect(met!.status).toBe('pass')
    expect(met!.figure).toMatch(/^ttft p99 [\d.]+ ms against \d+ ms \(\d+ samples\)$/)
    expect(breached!.status).toBe('fail')
    expect(breached!.detail).toMatch(/^ttft_p50 breached: ttft p50/)
  })

  test('a 3xx or 1xx is not a 2xx: an error; a 429 is neither an error nor judged', () => {
    expect(countsOf({ '200': 5, '302': 1, '103': 1, '429': 2 }, [], 0)).toEqual({
      ended: 9,
      judged: 7,
      failed: 2,
      refused: 2,
    })
  })

  test('a metric the phase did not measure proves nothing: inconclusive, never a pass', () => {
    const phase = fixtureResult().phases[0]!
    const [ttft] = judgeObjectives(phase, parseObjectives('ttft_p99=10s'))
    expect(ttft!.status).toBe('inconclusive')
  })

  test('errors count the calls without a 2xx, and a 429 is a refusal, counted apart', () => {
    // The fixture's 429s, its 404s (failed on purpose) and one call without an answer (ECONNRESET).
    const phase = fixtureResult().phases[0]!
    const [tight, loose] = judgeObjectives(phase, parseObjectives('errors=1%')).concat(
      judgeObjectives(phase, parseObjectives('errors=2%')),
    )
    expect(tight!.status).toBe('fail')
    expect(tight!.figure).toBe('errors 1.351% of 148 calls against 1%')
    expect(tight!.detail).toContain('210 429s are refusals')
    expect(loose!.status).toBe('pass')
  })
})

describe('beyond recovery', () => {
  const measured = (values: number[], failed = 0): Measured => {
    const h = newHistogram()
    for (const v of values) recordMs(h, v)
    return { histogram: () => h, judged: values.length, failed, refused: 0 }
  }

  test('the share above a bound, by bisection on percentiles', () => {
    const m = measured([...Array(90).fill(10), ...Array(10).fill(500)])
    expect(shareAbove(m.histogram('e2e')!, 100)).toBeCloseTo(0.1, 3)
    expect(shareAbove(m.histogram('e2e')!, 1000)).toBe(0)
  })

  test('a p99 breached by more calls than the rest of the phase can dilute is beyond recovery; fewer are not', () => {
    const [p99] = parseObjectives('e2e_p99=100ms')
    const m = measured([...Array(95).fill(10), ...Array(5).fill(500)])
    // 5 slow calls of 100: 1 % of 400 planned calls is 4, so no future can bring p99 back; of 1000 it can.
    expect(beyondRecovery(p99!, m, 100, 400)).toMatch(/^e2e p99 50\d(\.\d)? ms against 100 ms/)
    expect(beyondRecovery(p99!, m, 100, 1000)).toBeNull()
  })

  test('errors past their share of every planned call, a max breached once, a mean past recovery', () => {
    const [errors, max, mean] = parseObjectives('errors=1%,e2e_max=100ms,e2e_mean=50ms')
    expect(beyondRecovery(errors!, measured(Array(100).fill(10), 3), 100, 200)).not.toBeNull()
    expect(beyondRecovery(errors!, measured(Array(100).fill(10), 3), 100, 500)).toBeNull()
    expect(beyondRecovery(max!, measured([10, 200]), 2, 1000)).not.toBeNull()
    expect(beyondRecovery(mean!, measured(Array(10).fill(100)), 10, 15)).not.toBeNull()
    expect(beyondRecovery(mean!, measured(Array(10).fill(100)), 10, 100)).toBeNull()
  })
})

describe('a capacity step is judged by who fell behind', () => {
  /** A step of 100/s for 2 s that sent half its plan, every answer a 200; `inFlight` the most calls in flight. */
  const behindStep = (inFlight: number): PhaseResult => {
    const base = fixtureResult().phases[0]!
    const startedAt = base.startedAt
    return {
      ...base,
      plan: { ...base.plan, rate: 100, connections: 50, durationMs: 2000 },
      startedAt,
      endedAt: startedAt + 2000,
      sent: 100,
      answered: 100,
      byStatus: { '200': 100 },
      errors: {},
      series: [],
      goodput: { ok: 100, good: 100, throughputPerSecond: 50, goodputPerSecond: 50 },
      schedule: { ...base.schedule!, maxBehindCalls: 100 },
      maxInFlight: inFlight,
    }
  }

  test('behind its plan with every connection busy: the target held them (saturated)', () => {
    const j = judgeStep(behindStep(50), [], 100)
    expect(j.outcome).toBe('saturated')
    expect(j.why).toContain('every one of 50 connections was busy')
  })

  test("behind its plan with connections to spare: the generator's own ceiling", () => {
    const j = judgeStep(behindStep(3), [], 100)
    expect(j.outcome).toBe('generator')
    expect(j.why).toContain("at most 3 of 50 connections busy: the generator's own ceiling, not the target's")
  })
})

describe('the capacity search decides from its steps alone', () => {
  const bounds: SearchBounds = { start: 10, ceiling: 1000, tierBound: false, maxSteps: 14 }
  const steps = (...list: [number, Judged['outcome']][]): Judged[] =>
    list.map(([rate, outcome]) => ({ rate, outcome, why: outcome }))

  test('ramps by doubling, then bisects between the last held and the first broken rate to within 10 %', () => {
    expect(decide([], bounds).next).toEqual({ rate: 10, kind: 'ramp' })
    expect(decide(steps([10, 'held'], [20, 'held']), bounds).next).toEqual({ rate: 40, kind: 'ramp' })
    expect(decide(steps([10, 'held'], [20, 'held'], [40, 'saturated']), bounds).next).toEqual({
      rate: 30,
      kind: 'bisect',
    })
    expect(decide(steps([10, 'held'], [20, 'held'], [40, 'saturated'], [30, 'breached']), bounds).next).toEqual({
      rate: 25,
      kind: 'bisect',
    })
    const done = decide(
      steps([10, 'held'], [20, 'held'], [40, 'saturated'], [30, 'breached'], [25, 'held'], [27.5, 'breached']),
      bounds,
    )
    expect(done.next).toBeNull()
    expect(done.why).toMatch(/^resolved to within 10 %: 25\/s held, 27.5\/s broke/)
  })

  test('a 429 ends the search at once: the limit was met, not the capacity', () => {
    const d = decide(steps([10, 'held'], [20, 'refused']), bounds)
    expect(d.next).toBeNull()
    expect(d.why).toMatch(/limit was met before its capacity/)
    const c = conclude([], d, { objectives: [], tierLimit: null, stopped: null, ceiling: 1000 })
    expect(c.verdicts[0]!.status).toBe('inconclusive')
  })

  test("every step held up to a tier's ceiling: the limit is the bound met first", () => {
    const tier = { ...bounds, ceiling: 45, tierBound: true }
    expect(decide(steps([10, 'held'], [20, 'held']), tier).next).toEqual({ rate: 40, kind: 'ramp' })
    expect(decide(steps([10, 'held'], [20, 'held'], [40, 'held']), tier).next).toEqual({ rate: 45, kind: 'ramp' })
    expect(decide(steps([10, 'held'], [20, 'held'], [40, 'held'], [45, 'held']), tier).why).toMatch(
      /tier's limit .* was met before the target's capacity/,
    )
  })

  test('a first step that breaks halves the rate, and no rate holding is a failed search', () => {
    expect(decide(steps([10, 'breached']), bounds).next).toEqual({ rate: 5, kind: 'bisect' })
    const d = decide(steps([10, 'breached'], [5, 'breached'], [2.5, 'breached'], [1.25, 'breached']), bounds)
    expect(d.next).toBeNull()
    const row = {
      phase: 'ramp-1',
      kind: 'ramp' as const,
      offered: 10,
      achieved: 10,
      throughput: 10,
      goodput: 0,
      p50Ms: 1,
      p99Ms: 1,
      errors: 0,
      refused: 0,
      outcome: 'breached' as const,
      why: 'x',
    }
    const c = conclude([row], d, { objectives: [], tierLimit: null, stopped: null, ceiling: 1000 })
    expect(c.verdicts[0]!.status).toBe('fail')
    expect(c.capacity.sustainable).toBeNull()
    expect(c.capacity.bound).toBe('capacity')
  })

  test("the generator's own ceiling ends the search as inconclusive, never as the target's capacity", () => {
    const d = decide(steps([10, 'held'], [20, 'held'], [40, 'generator']), bounds)
    expect(d.next).toBeNull()
    expect(d.why).toMatch(
      /^the generator could not send 40\/s .*: the target's capacity lies beyond what this generator measures/,
    )
    const row = (offered: number, outcome: 'held' | 'generator') => ({
      phase: `ramp-${offered}`,
      kind: 'ramp' as const,
      offered,
      achieved: offered,
      throughput: offered,
      goodput: offered,
      p50Ms: 1,
      p99Ms: 1,
      errors: 0,
      refused: 0,
      outcome,
      why: outcome,
    })
    const c = conclude([row(10, 'held'), row(20, 'held'), row(40, 'generator')], d, {
      objectives: [],
      tierLimit: null,
      stopped: null,
      ceiling: 1000,
    })
    expect(c.capacity.bound).toBe('generator')
    expect(c.capacity.sustainable).toBe(20)
    expect(c.verdicts[0]!.status).toBe('inconclusive')
    expect(c.verdicts[0]!.figure).toMatch(/first broken 40\/s \(the generator's own ceiling\)/)
  })

  test('the search stops at its cap of steps', () => {
    const many = steps(
      ...Array.from({ length: CAPACITY.maxSteps }, (_, i): [number, Judged['outcome']] => [10 * 2 ** i, 'held']),
    )
    expect(decide(many, { ...bounds, ceiling: Infinity }).why).toMatch(/cap of 14 steps/)
  })
})
