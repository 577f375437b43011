/**
 * Limits the operator states (--limit, a workload file's limits:): the one-line form and its mistakes, which phases
 * a stated limit judges, and the refusal verdict (Part 1 section 7: a rate limit is answered 429; Retry-After "may"
 * accompany it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { ConfigError } from '../../../harness/errors.ts'
import { combineLimits, parseLimitFlag, withStatedLimit } from '../../../load/stated-limits.ts'
import type { PhasePlan, PhaseResult } from '../../../load/types.ts'
import { judgeRefusal } from '../../../load/verdicts.ts'
import { readWorkload } from '../../../load/workload.ts'
import { fixtureResult } from '../../load/fixture-result.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-stated-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('--limit', () => {
  test('takes a method and path, or a route kind, a limit per period, a key and the headers', () => {
    expect(parseLimitFlag('POST /v1/chat/completions=600/1m')).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      limit: 600,
      periodMs: 60_000,
      slot: 'main',
    })
    const kind = parseLimitFlag('chat=30/10s,key=tier2,headers=requests')
    expect(kind).toMatchObject({ method: 'POST', path: '/v1/chat/completions', kind: 'chat', slot: 'tier2' })
    expect(kind.headers).toBe('requests')
    expect(parseLimitFlag('GET /user/v1/credit?x=1=5/m')).toMatchObject({ path: '/user/v1/credit', periodMs: 60_000 })
    expect(parseLimitFlag('chat=5/1m,headers=none').headers).toBeUndefined()
  })

  test.each([
    ['chat', 'must be ROUTE=N/PERIOD'],
    ['chat=ten/1m', 'must be ROUTE=N/PERIOD'],
    ['chat=0/1m', 'the limit must be a whole number of calls from 1'],
    ['chat=5/2h', 'the period must be a duration from 1s to 1h'],
    ['chat=5/soon', 'the period must be a duration from 1s to 1h'],
    ['PUT /v1/files=5/1m', 'the route must be a method and a path'],
    ['chats=5/1m', 'the route must be a method and a path'],
    ['chat=5/1m,key=tier9', 'key must be one of main, tier0'],
    ['chat=5/1m,headers=tokens', 'headers must be one of requests or none'],
    ['chat=5/1m,burst=2', 'options after the limit are key=SLOT and headers=BUCKET'],
  ])('%j is a ConfigError saying what to fix: %s', (raw, message) => {
    expect(() => parseLimitFlag(raw)).toThrow(ConfigError)
    expect(() => parseLimitFlag(raw)).toThrow(message)
  })

  test('a flag wins over a file on the same route and key', () => {
    const flag = parseLimitFlag('chat=5/1m')
    const file = [parseLimitFlag('POST /v1/chat/completions=9/1m'), parseLimitFlag('chat=9/1m,key=tier1')]
    expect(combineLimits([flag], file).map((l) => `${l.limit} ${l.slot}`)).toEqual(['5 main', '9 tier1'])
  })
})

const plan = (over: Partial<PhasePlan>): PhasePlan => ({
  name: 'p',
  description: 'd',
  engine: 'scheduler',
  slot: 'main',
  requests: [{ method: 'POST', path: '/v1/chat/completions' }],
  rate: 4,
  connections: 4,
  durationMs: 10_000,
  bucket: null,
  expectedLimit: null,
  fromRest: false,
  verdicts: ['throughput'],
  ...over,
})

describe('which phases a stated limit judges', () => {
  const limit = parseLimitFlag('chat=30/10s,headers=requests')

  test('an open-loop phase whose every call is on the route, with the key: from rest, against the limit', () => {
    const judged = withStatedLimit(plan({}), [limit])
    expect(judged).toMatchObject({ expectedLimit: 30, periodMs: 10_000, bucket: 'requests', fromRest: true })
    expect(judged.verdicts).toEqual(['throughput', 'admission', 'recovery', 'refusal', 'headers'])
    expect(judged.stated).toEqual({ text: 'chat=30/10s,headers=requests', headers: true })
    expect(withStatedLimit(plan({}), [parseLimitFlag('chat=30/10s')]).verdicts).not.toContain('headers')
  })

  test('not a phase with calls off the route, another key, a closed loop, or a token bucket of its own', () => {
    for (const other of [
      plan({
        requests: [
          { method: 'POST', path: '/v1/chat/completions' },
          { method: 'GET', path: '/v1/models' },
        ],
      }),
      plan({ slot: 'tier1' }),
      plan({ rate: null, engine: 'autocannon' }),
      plan({ bucket: 'tokens' }),
    ])
      expect(withStatedLimit(other, [limit])).toBe(other)
  })

  test("a workload file's limits: block, its mistakes at their JSON pointer", () => {
    const file = join(scratch, 'limited.yaml')
    const body = (limits: string): string =>
      `name: limited\ndescription: d\nlimits:\n${limits}\nphases:\n  - { name: a, routes: [{ kind: chat }], rate: 2, duration: 5s }\n`
    writeFileSync(file, body('  - { route: chat, limit: 30, period: 10s, key: tier2, headers: requests }'))
    expect(readWorkload(file).limits?.[0]).toMatchObject({ limit: 30, periodMs: 10_000, slot: 'tier2' })
    writeFileSync(file, body('  - { route: chat, limit: 30, period: 2h }'))
    expect(() => readWorkload(file)).toThrow(`${file}: /limits/0: the period must be a duration from 1s to 1h`)
    writeFileSync(
      file,
      body(
        '  - { route: chat, limit: 30, period: 1m }\n  - { route: POST /v1/chat/completions, limit: 3, period: 1m }',
      ),
    )
    expect(() => readWorkload(file)).toThrow('two limits are stated for POST /v1/chat/completions with the main key')
  })
})

/** The fixture's usage phase with the statuses given. */
function refusedAs(byStatus: Record<string, number>, withoutRetryAfter = 0, failedSent = 0): PhaseResult {
  const phase = structuredClone(fixtureResult().phases[0] as PhaseResult)
  phase.byStatus = byStatus
  phase.errors = {}
  phase.headers.refusedWithoutRetryAfter = withoutRetryAfter
  phase.series = phase.series.map((s, i) => ({ ...s, failedSent: i === 0 ? failedSent : 0 }))
  return phase
}

describe('the refusal verdict (section 7)', () => {
  test('passes when every refusal was a 429, recording those without Retry-After', () => {
    const v = judgeRefusal(refusedAs({ '200': 50, '429': 40 }, 40))
    expect(v.status).toBe('pass')
    expect(v.figure).toContain('40 answered 429 (0 with Retry-After)')
    expect(v.detail).toContain('40 came without Retry-After, which "may" accompany a 429 (recorded, not judged)')
  })

  test('fails a spent bucket answered another status, naming it', () => {
    const v = judgeRefusal(refusedAs({ '200': 50, '503': 40 }))
    expect(v.status).toBe('fail')
    expect(v.detail).toBe('the spent bucket was answered 503, never 429: section 7 answers a rate limit with 429')
    const mixed = judgeRefusal(refusedAs({ '200': 50, '429': 30, '500': 2 }))
    expect(mixed.status).toBe('fail')
    expect(mixed.detail).toContain('beside 30 429s, 2 x 500')
  })

  test('does not count the calls failed on purpose, and proves nothing when nothing was refused', () => {
    expect(judgeRefusal(refusedAs({ '200': 50, '400': 25, '429': 30 }, 0, 25)).status).toBe('pass')
    expect(judgeRefusal(refusedAs({ '200': 50, '400': 26, '429': 30 }, 0, 25)).status).toBe('fail')
    expect(judgeRefusal(refusedAs({ '200': 50 })).status).toBe('inconclusive')
  })
})
