/**
 * --route-limit: a limit an operator puts on one route, beside the reference's (Part 1 sections 4.1, 7): counted
 * per account with refused and failed calls, announced in the request headers on its route only, refused with 429
 * and Retry-After; and the `route-limit-503` fault, the 503 without Retry-After that some gateways answer.
 */
import { describe, expect, it } from 'vitest'
import { parseCommandLine } from '../../../gateway/options.ts'
import { parseRouteLimit } from '../../../gateway/route-limits.ts'
import { manualClock, testGateway } from './helpers.ts'

const chat = (content = 'Hi') => ({
  method: 'POST' as const,
  body: { model: 'gw-chat-mini', messages: [{ role: 'user', content }], max_tokens: 1 },
})

describe('--route-limit', () => {
  it('parses a method, a path, a limit and a period in real time', () => {
    expect(parseRouteLimit('post /v1/chat/completions=30/10s')).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      limit: 30,
      periodMs: 10_000,
    })
    expect(parseRouteLimit('GET /user/v1/credit = 5/m').periodMs).toBe(60_000)
  })

  it.each([
    'POST /v1/chat/completions',
    'POST /v1/chat/completions=0/1m',
    'POST /v1/chat/completions=30/1d',
    'POST /v1/chat/completions=30/500ms',
    'chat=30/1m',
    'POST /v1/chat/completions?x=1=30/1m',
  ])('refuses %j with what to write', (text) => {
    expect(() => parseRouteLimit(text)).toThrow(/--route-limit must be 'METHOD \/path=N\/PERIOD'/)
  })

  it('refuses two limits on one route', () => {
    expect(() =>
      parseCommandLine(['--route-limit', 'POST /v1/responses=1/1s', '--route-limit', 'post /v1/responses=2/1s']),
    ).toThrow('--route-limit: POST /v1/responses is limited twice')
  })

  it('admits the limit per account, then refuses with 429 and Retry-After, and the headers announce it', async () => {
    const clock = manualClock('2026-09-01T00:00:00Z')
    const gw = testGateway({ clock, routeLimits: ['POST /v1/chat/completions=3/10s'] })
    for (let i = 0; i < 3; i += 1) {
      const ok = await gw.call('/v1/chat/completions', chat())
      expect(ok.status).toBe(200)
      expect(ok.headers['x-ratelimit-limit-requests']).toBe('3')
      expect(ok.headers['x-ratelimit-remaining-requests']).toBe(String(2 - i))
    }
    const refused = await gw.call('/v1/chat/completions', chat())
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe('rate_limit_exceeded')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0')
    // Another account, and another route of the same account, are not limited by it.
    expect((await gw.call('/v1/chat/completions', { key: 'tier3', ...chat() })).status).toBe(200)
    const other = await gw.call('/v1/models')
    expect(other.status).toBe(200)
    expect(other.headers['x-ratelimit-limit-requests']).not.toBe('3')
    clock.advance(10_000)
    expect((await gw.call('/v1/chat/completions', chat())).status).toBe(200)
  })

  it('counts failed calls (section 7)', async () => {
    const gw = testGateway({
      clock: manualClock('2026-09-01T00:00:00Z'),
      routeLimits: ['POST /v1/chat/completions=2/10s'],
    })
    expect((await gw.call('/v1/chat/completions', { method: 'POST', body: { model: 'gw-chat-mini' } })).status).toBe(
      400,
    )
    expect((await gw.call('/v1/chat/completions', chat())).status).toBe(200)
    expect((await gw.call('/v1/chat/completions', chat())).status).toBe(429)
  })

  it('answers 503 without Retry-After under route-limit-503', async () => {
    const gw = testGateway({
      clock: manualClock('2026-09-01T00:00:00Z'),
      routeLimits: ['POST /v1/chat/completions=1/10s'],
      faults: ['route-limit-503'],
    })
    expect((await gw.call('/v1/chat/completions', chat())).status).toBe(200)
    const refused = await gw.call('/v1/chat/completions', chat())
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBeUndefined()
  })
})
