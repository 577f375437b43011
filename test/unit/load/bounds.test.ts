/**
 * The rate-limit arithmetic on its own, with calls placed by hand: the admission bounds (load/bounds.ts) that
 * every allowed limiter meets, and the promises a 429 makes (load/engine/rate-limit-book.ts). The end-to-end proof
 * against the reference gateway in each --limiter mode is load-faults.test.ts.
 */
import { describe, expect, test } from 'vitest'
import { admissionFigures, leaked, throttledEarly } from '../../../load/bounds.ts'
import { RateLimitBook, type Answer } from '../../../load/engine/rate-limit-book.ts'
import { BUCKET_MS, Series } from '../../../load/engine/series.ts'
import type { AlgorithmSigns, PhaseResult } from '../../../load/types.ts'
import { histogram } from '../../load/fixture-result.ts'

const MINUTE_MS = 4000
const T0 = 1_000_000

/** A phase from rest whose calls were sent at `sends` (ms after its start) and answered 200 or 429. */
function phaseOf(sends: Array<[number, number]>, durationMs: number, signs: Partial<AlgorithmSigns> = {}): PhaseResult {
  const series = new Series(BUCKET_MS)
  let first: number | null = null
  for (const [at, status] of sends) {
    series.admission(T0 + at, status, false)
    if (status === 429 && first === null) first = T0 + at
  }
  return {
    plan: {
      name: 'p',
      description: '',
      engine: 'scheduler',
      slot: 'tier0',
      rate: 1.5,
      connections: 1,
      durationMs,
      bucket: 'requests',
      expectedLimit: 3,
      fromRest: true,
      verdicts: ['admission'],
      routes: ['GET /user/v1/credit'],
    },
    startedAt: T0,
    endedAt: T0 + durationMs,
    sent: sends.length,
    answered: sends.length,
    byStatus: {},
    errors: {},
    retries: 0,
    achievedRate: 1.5,
    latency: histogram([2, 2, 3]),
    schedule: null,
    series: series.buckets(),
    maxInFlight: 1,
    rateLimit: {
      firstRefusedSentAt: first,
      refusedWithRoom: {},
      refusedReportingRoom: {},
      tested: { reset: 0, retryAfter: 0 },
      suspects: [],
      limits: {},
      algorithm: { answers: 0, still: 0, period: 0, whole: 0, partial: 0, other: 0, maxResetMs: 0, ...signs },
    },
    algorithm: null,
    headers: {
      responses: 0,
      refused: 0,
      missing: 0,
      missingOnRefused: 0,
      unparsable: 0,
      refusedWithoutRetryAfter: 0,
      resetFractional: sends.length,
      limitNotTable: 0,
      remainingOverLimit: 0,
      resetOverPeriod: 0,
    },
  }
}

/** Calls every 667 ms (twice a limit of 3 a minute of 4 s) for `ms`, admitted by `admits(i, at)`. */
function twiceTheLimit(ms: number, admits: (at: number) => boolean): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let at = 0; at < ms; at += MINUTE_MS / 6) out.push([Math.round(at), admits(at) ? 200 : 429])
  return out
}

/** A fixed window of `perWindow` calls a minute, opened by the first call after the last one ended. */
function fixedWindow(perWindow: number): (at: number) => boolean {
  let end = -1
  let used = 0
  return (at) => {
    if (at >= end) {
      end = at + MINUTE_MS
      used = 0
    }
    used += 1
    return used <= perWindow
  }
}

/** Calls every 100 ms (ten times a limit of 3 a minute of 4 s) for `ms`, admitted by `admits(at)`. */
function tenTimesTheLimit(ms: number, admits: (at: number) => boolean): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let at = 0; at < ms; at += 100) out.push([at, admits(at) ? 200 : 429])
  return out
}

/** Fixed windows of `perWindow` calls aligned to the clock: the first ends `firstEndMs` after the phase's start. */
function clockWindow(perWindow: number, firstEndMs: number): (at: number) => boolean {
  let end = firstEndMs
  let used = 0
  return (at) => {
    while (at >= end) {
      end += MINUTE_MS
      used = 0
    }
    used += 1
    return used <= perWindow
  }
}

/** What the headers of clock-aligned windows show: the instant held between calls, the first window's end. */
const clockSigns = (firstEndMs: number): Partial<AlgorithmSigns> => ({
  answers: 20,
  still: 15,
  period: 5,
  maxResetMs: MINUTE_MS,
  firstFullAt: T0 + firstEndMs,
})

/** A token bucket of `capacity`, refilled at `capacity` a minute. */
function tokenBucket(capacity: number): (at: number) => boolean {
  let tokens = capacity
  let last = 0
  return (at) => {
    tokens = Math.min(capacity, tokens + ((at - last) * capacity) / MINUTE_MS)
    last = at
    if (tokens < 1) return false
    tokens -= 1
    return true
  }
}

describe('the admission bounds', () => {
  test.each([
    ['a fixed window of the limit', fixedWindow(3)],
    ['a token bucket of the limit', tokenBucket(3)],
  ])('%s meets them at twice the limit', (_name, admits) => {
    const f = admissionFigures(phaseOf(twiceTheLimit(3.2 * MINUTE_MS, admits), 3.2 * MINUTE_MS), 3, MINUTE_MS)
    expect(f.beforeFirstRefusal).toBeGreaterThanOrEqual(3)
    expect(throttledEarly(f, 3)).toBe(false)
    expect(leaked(f), JSON.stringify(f.tightest)).toBe(false)
  })

  test.each([
    ['a fixed window', fixedWindow(4)],
    ['a token bucket', tokenBucket(4)],
  ])('%s of one call more than the limit passes L + L·T/minute within three minutes', (_name, admits) => {
    const f = admissionFigures(phaseOf(twiceTheLimit(3.2 * MINUTE_MS, admits), 3.2 * MINUTE_MS), 3, MINUTE_MS)
    expect(leaked(f), JSON.stringify(f.tightest)).toBe(true)
  })

  test('a window aligned to the clock meets them from where its first window began, which its headers show', () => {
    const sends = tenTimesTheLimit(3.2 * MINUTE_MS, clockWindow(3, 0.3 * MINUTE_MS))
    // Told nothing of the window, L + L·T/minute from the phase's start is wrong for it: 2L within 0.3 minutes.
    expect(leaked(admissionFigures(phaseOf(sends, 3.2 * MINUTE_MS), 3, MINUTE_MS))).toBe(true)
    const f = admissionFigures(phaseOf(sends, 3.2 * MINUTE_MS, clockSigns(0.3 * MINUTE_MS)), 3, MINUTE_MS)
    expect(f.headMs).toBe(0.7 * MINUTE_MS)
    expect(leaked(f), JSON.stringify(f.tightest)).toBe(false)
  })

  test('a window aligned to the clock of one call more than the limit still leaks', () => {
    const sends = tenTimesTheLimit(8 * MINUTE_MS, clockWindow(4, 0.3 * MINUTE_MS))
    const f = admissionFigures(phaseOf(sends, 8 * MINUTE_MS, clockSigns(0.3 * MINUTE_MS)), 3, MINUTE_MS)
    expect(leaked(f), JSON.stringify(f.tightest)).toBe(true)
  })

  test('headers of a continuous refill give no head start, whatever their first reset', () => {
    const sends = tenTimesTheLimit(3.2 * MINUTE_MS, clockWindow(3, 0.3 * MINUTE_MS))
    const f = admissionFigures(
      phaseOf(sends, 3.2 * MINUTE_MS, { answers: 20, partial: 20, firstFullAt: T0 + 100 }),
      3,
      MINUTE_MS,
    )
    expect(f.headMs).toBe(0)
    expect(leaked(f)).toBe(true)
  })

  test('a 429 before the limit from rest is an early throttle', () => {
    const f = admissionFigures(phaseOf(twiceTheLimit(2 * MINUTE_MS, fixedWindow(2)), 2 * MINUTE_MS), 3, MINUTE_MS)
    expect(throttledEarly(f, 3)).toBe(true)
  })
})

describe('admission counts what the target served', () => {
  test('a spent bucket answered 503 is refused otherwise: never admitted, so a target that served its limit passes', () => {
    // A fixed window of 3 a minute, its spent bucket answered 503: the same calls as 429s would pass.
    const window = fixedWindow(3)
    const sends = twiceTheLimit(3 * MINUTE_MS, () => true).map(([at]): [number, number] => [at, window(at) ? 200 : 503])
    const f = admissionFigures(phaseOf(sends, 3 * MINUTE_MS), 3, MINUTE_MS)
    const served = sends.filter(([, status]) => status === 200).length
    expect(f.admitted).toBe(served)
    expect(f.refused).toBe(0)
    expect(f.otherRefused).toBe(sends.length - served)
    expect(f.otherRefused).toBeGreaterThan(5)
    expect(leaked(f)).toBe(false)
  })

  test("a deliberate failure's 4xx is its own fault and counts as admitted; its 503 does not", () => {
    const series = new Series(BUCKET_MS)
    series.admission(T0, 400, true)
    series.admission(T0 + 1, 503, true)
    series.admission(T0 + 2, 400, false)
    series.admission(T0 + 3, 204, false)
    const [b] = series.buckets()
    expect([b!.admittedSent, b!.failedSent, b!.otherSent, b!.refusedSent]).toEqual([2, 1, 2, 0])
  })
})

describe('the promises of a 429', () => {
  const answer = (sentAt: number, status: number, book: RateLimitBook, extra: Partial<Answer> = {}): void => {
    const mark = book.mark()
    const tests = book.sent(sentAt)
    book.answered(
      {
        sentAt,
        receivedAt: sentAt + 2,
        status,
        limit: 3,
        remaining: 0,
        resetMs: 3000,
        retryAfterMs: status === 429 ? 3000 : null,
        inFlightAtSend: 1,
        inFlightAtAnswer: 1,
        mark,
        ...extra,
      },
      tests,
    )
  }

  test('a refusal after the reset, before the limit was admitted again, breaks it; one after the limit does not', () => {
    const broken = new RateLimitBook(MINUTE_MS, true)
    answer(0, 429, broken)
    answer(3100, 200, broken)
    answer(3200, 429, broken)
    expect(broken.facts().suspects.map((s) => s.kind)).toEqual(['reset'])
    const kept = new RateLimitBook(MINUTE_MS, true)
    answer(0, 429, kept)
    for (const at of [3100, 3200, 3300]) answer(at, 200, kept)
    answer(3400, 429, kept)
    expect(kept.facts().suspects).toEqual([])
    // Kept once the third admission after the reset came; the Retry-After by the first call after it.
    expect(kept.facts().tested).toEqual({ reset: 1, retryAfter: 1 })
  })

  test('the first call after Retry-After is refused with nobody admitted meanwhile: broken; after an admission: fair', () => {
    const broken = new RateLimitBook(MINUTE_MS, true)
    answer(0, 429, broken, { resetMs: null })
    answer(3100, 429, broken, { resetMs: null })
    expect(broken.facts().suspects.map((s) => s.kind)).toEqual(['retry-after'])
    const fair = new RateLimitBook(MINUTE_MS, true)
    answer(0, 429, fair, { resetMs: null })
    answer(1000, 200, fair, { resetMs: null })
    answer(3100, 429, fair, { resetMs: null })
    expect(fair.facts().suspects).toEqual([])
  })

  test('a 429 while the answer before reported room is counted by that room', () => {
    const book = new RateLimitBook(MINUTE_MS, true)
    answer(0, 200, book, { remaining: 2 })
    answer(100, 429, book)
    expect(book.facts().refusedWithRoom).toEqual({ 2: 1 })
  })
})
