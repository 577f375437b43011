/** The shared-header audit and the aggregation to a verdict and exit code. */
import { describe, expect, test } from 'vitest'
import {
  auditExchange,
  duplicateIds,
  rateLimitHeaderProblems,
  xRequestIdFinding,
  xRequestIdPhase,
} from '../../../harness/report/audit.ts'
import type { Requirement } from '../../../harness/requirements.ts'
import type { ExchangeExcerpt } from '../../../harness/exchange.ts'
import { aggregate, EXIT, verdictOf, type Outcome } from '../../../harness/report/results.ts'
import { makeUuidV7 } from '../../../harness/uuid.ts'

const GOOD_LIMITS = {
  'x-ratelimit-limit-requests': '50',
  'x-ratelimit-remaining-requests': '49',
  'x-ratelimit-reset-requests': '59.5s',
  'x-ratelimit-limit-tokens': '1000',
  'x-ratelimit-remaining-tokens': '1000',
  'x-ratelimit-reset-tokens': '1m0s',
}

function exchange(headers: Record<string, string>, over: Partial<ExchangeExcerpt> = {}): ExchangeExcerpt {
  return {
    seq: 1,
    method: 'GET',
    url: 'http://t/v1/models',
    path: '/v1/models',
    key: 'main',
    auth: 'bearer',
    requestHeaders: {},
    startedAt: Date.now(),
    durationMs: 5,
    attempt: 1,
    status: 200,
    responseHeaders: headers,
    ...over,
  }
}

describe('x-request-id by as-of date (Part 1 §9.4)', () => {
  test('the window is inclusive at both ends', () => {
    expect(['2026-08-15', '2026-08-16', '2026-10-15', '2026-10-16'].map(xRequestIdPhase)).toEqual([
      'before',
      'during',
      'during',
      'after',
    ])
  })

  test.each([
    ['2026-08-15', undefined, true],
    ['2026-08-15', 'same', true],
    ['2026-09-01', 'same', true],
    ['2026-09-01', undefined, false],
    ['2026-09-01', 'other', false],
    ['2026-11-21', undefined, true],
    ['2026-11-21', 'other', true],
    ['2026-11-21', 'same', false],
  ])('at %s with x-request-id %s: ok %s', (asOf, x, ok) => {
    const finding = xRequestIdFinding('id-1', x === 'same' ? 'id-1' : x === 'other' ? 'proxy-7' : undefined, asOf)
    expect(finding?.ok).toBe(ok)
  })

  test('nothing to judge without svc-request-id, except before the window', () => {
    expect(xRequestIdFinding(undefined, undefined, '2026-09-01')).toBeUndefined()
    expect(xRequestIdFinding(undefined, undefined, '2026-01-01')?.ok).toBe(true)
  })
})

describe('rate-limit headers (Part 1 §4.1)', () => {
  test('well-formed headers have no problems', () => expect(rateLimitHeaderProblems(GOOD_LIMITS)).toEqual([]))
  test('each kind of problem is named', () => {
    expect(
      rateLimitHeaderProblems({
        ...GOOD_LIMITS,
        'x-ratelimit-reset-tokens': '1763721600',
        'x-ratelimit-remaining-requests': '51',
        'x-ratelimit-limit-tokens': '-1',
      }),
    ).toEqual([
      'x-ratelimit-remaining-requests 51 is above x-ratelimit-limit-requests 50',
      'x-ratelimit-limit-tokens "-1" is not a non-negative integer',
      'x-ratelimit-reset-tokens "1763721600" is not a time until reset: as seconds it lies more than a day ahead, past the longest limit window (§8.3)',
    ])
    expect(rateLimitHeaderProblems({})).toHaveLength(6)
  })
})

describe('auditExchange', () => {
  test('a good authenticated response passes every audited rule', () => {
    const id = makeUuidV7()
    const findings = auditExchange(
      exchange({ 'svc-request-id': id, ...GOOD_LIMITS }, { clientRequestId: 'gc-1' }),
      '2026-11-21',
    )
    expect(findings.filter((f) => !f.ok)).toEqual([])
    expect(findings.map((f) => f.requirement).sort()).toEqual([
      'P1-4.1-client-request-id',
      'P1-4.1-ratelimit-headers',
      'P1-4.1-svc-request-id',
      'P1-4.1-svc-request-id-time',
      'P1-9.4-x-request-id',
    ])
  })

  test('rate-limit headers are not due on refused keys or calls without a key', () => {
    for (const over of [
      { status: 401 },
      { key: null },
      { key: 'invalid' as const },
      { key: 'suspended' as const, status: 403 },
    ]) {
      const findings = auditExchange(exchange({ 'svc-request-id': makeUuidV7() }, over), '2026-11-21')
      expect(findings.map((f) => f.requirement)).not.toContain('P1-4.1-ratelimit-headers')
    }
  })

  test("another origin's answer (a storage host a redirect led to) is not judged", () => {
    const storage = exchange({ 'content-type': 'video/mp4' }, { key: null, crossOrigin: true })
    expect(auditExchange(storage, '2026-11-21')).toEqual([])
    expect(auditExchange(exchange({ 'content-type': 'video/mp4' }, { key: null }), '2026-11-21')).not.toEqual([])
  })

  test("the UUID time is judged against the target's Date header when it sends one", () => {
    const september = Date.parse('2026-09-01T12:00:00Z')
    const headers = { 'svc-request-id': makeUuidV7(september), date: new Date(september).toUTCString(), ...GOOD_LIMITS }
    const time = auditExchange(exchange(headers), '2026-09-01').find(
      (f) => f.requirement === 'P1-4.1-svc-request-id-time',
    )
    expect(time?.ok).toBe(true)
    const stale = auditExchange(
      exchange({ ...headers, 'svc-request-id': makeUuidV7(Date.parse('2020-01-01T00:00:00Z')) }),
      '2026-09-01',
    ).find((f) => f.requirement === 'P1-4.1-svc-request-id-time')
    expect(stale?.ok).toBe(false)
  })

  test('an echoed client id and a missing svc-request-id are found', () => {
    const clientId = makeUuidV7()
    const echoed = auditExchange(
      exchange({ 'svc-request-id': clientId, ...GOOD_LIMITS }, { clientRequestId: clientId }),
      '2026-11-21',
    )
    expect(echoed.find((f) => f.requirement === 'P1-4.1-client-request-id')?.ok).toBe(false)
    const missing = auditExchange(exchange({ ...GOOD_LIMITS }), '2026-11-21')
    expect(missing.find((f) => f.requirement === 'P1-4.1-svc-request-id')).toMatchObject({
      ok: false,
      detail: 'svc-request-id missing',
    })
  })

  test('no response, no findings', () => {
    expect(
      auditExchange(exchange({}, { status: undefined, responseHeaders: undefined, error: 'reset' }), '2026-11-21'),
    ).toEqual([])
  })

  test('duplicate ids across calls', () => {
    const a = exchange({ 'svc-request-id': 'x' })
    const b = exchange({ 'svc-request-id': 'x' }, { seq: 2 })
    const c = exchange({ 'svc-request-id': 'y' }, { seq: 3 })
    expect([...duplicateIds([a, b, c]).keys()]).toEqual(['x'])
  })
})

describe('aggregate and verdict', () => {
  const req = (id: string, level: 'MUST' | 'SHOULD', family = 'f'): Requirement => ({
    id,
    part: 1,
    section: '1',
    family,
    level,
    kind: 'shape',
    rule: id,
  })
  const out = (requirement: string, status: Outcome['status'], message?: string): Outcome => ({
    requirement,
    status,
    test: `t-${requirement}`,
    file: 'f.test.ts',
    source: 'test',
    ...(message ? { message } : {}),
  })

  test('a failure wins over passes; a SHOULD failure is a warning', () => {
    const results = aggregate({
      requirements: [req('A', 'MUST'), req('B', 'SHOULD')],
      outcomes: [out('A', 'pass'), out('A', 'fail', 'bad'), out('B', 'fail', 'meh')],
      selectedFamilies: null,
      filtered: false,
    })
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['A', 'fail'],
      ['B', 'warn'],
    ])
    expect(results[0]?.evidence[0]?.message).toBe('bad')
    expect(verdictOf(results, 0)).toBe('non-conformant')
  })

  test('a pass with some skipped tests is partial; only skips is skip; a skipped MUST makes the run incomplete', () => {
    const results = aggregate({
      requirements: [req('A', 'MUST'), req('B', 'MUST')],
      outcomes: [out('A', 'pass'), out('A', 'skip', 'no key for tier0'), out('B', 'skip', 'no key')],
      selectedFamilies: null,
      filtered: false,
    })
    expect(results.map((r) => [r.status, r.partial ?? false, r.reason])).toEqual([
      ['pass', true, 'no key for tier0'],
      ['skip', false, 'no key'],
    ])
    expect(verdictOf(results, 0)).toBe('incomplete')
    expect(EXIT[verdictOf(results, 0)]).toBe(3)
  })

  test('unreached requirements: disabled when not selected, skipped (unchecked) otherwise', () => {
    const results = aggregate({
      requirements: [req('A', 'MUST', 'models'), req('B', 'MUST', 'auth')],
      outcomes: [],
      selectedFamilies: ['auth'],
      filtered: false,
    })
    expect(results.map((r) => [r.status, r.reason])).toEqual([
      ['disabled', 'family not selected (--family)'],
      ['skip', 'no test checks this requirement'],
    ])
    const grepped = aggregate({
      requirements: [req('A', 'MUST')],
      outcomes: [out('A', 'unselected')],
      selectedFamilies: null,
      filtered: true,
    })
    expect(grepped[0]?.status).toBe('disabled')
    expect(verdictOf(grepped, 0)).toBe('conformant')
  })

  test('a harness error makes the verdict error (exit 2), even beside a failure', () => {
    const results = aggregate({
      requirements: [req('A', 'MUST'), req('B', 'MUST')],
      outcomes: [out('A', 'fail'), out('B', 'error', 'boom')],
      selectedFamilies: null,
      filtered: false,
    })
    expect(verdictOf(results, 0)).toBe('error')
    expect(
      verdictOf(
        aggregate({
          requirements: [req('A', 'MUST')],
          outcomes: [out('A', 'pass')],
          selectedFamilies: null,
          filtered: false,
        }),
        1,
      ),
    ).toBe('error')
  })
})
