/** Rate limits and their headers (Part 1 sections 4.1, 7, 8.1, 8.3). */
import { describe, expect, it } from 'vitest'
import { classLimits, usageRequestsPerMinute } from '../../../gateway/limit-tables.ts'
import { manualClock, sleep, testGateway } from './helpers.ts'

const DURATION = /^(\d+h)?(\d+m)?(\d+(\.\d{1,3})?s)?$|^\d+ms$/

describe('x-ratelimit-* headers (section 4.1)', () => {
  it('are on every authenticated response, errors included', async () => {
    const gw = testGateway()
    for (const path of [
      '/v1/models',
      '/v1/models/no-such-model',
      '/user/v1/credit',
      '/user/v1/transactions?page=0',
      '/v1/batches',
    ]) {
      const { headers } = await gw.call(path)
      for (const bucket of ['requests', 'tokens']) {
        expect(Number(headers[`x-ratelimit-remaining-${bucket}`])).toBeLessThanOrEqual(
          Number(headers[`x-ratelimit-limit-${bucket}`]),
        )
        expect(headers[`x-ratelimit-reset-${bucket}`]).toMatch(DURATION)
      }
    }
  })

  it('use the usage limit on /user/v1 and the account class on /v1 (sections 8.1, 8.3)', async () => {
    const gw = testGateway()
    const usage = await gw.call('/user/v1/credit', { key: 'tier3' })
    expect(usage.headers['x-ratelimit-limit-requests']).toBe(String(usageRequestsPerMinute(3)))
    expect(usage.headers['x-ratelimit-remaining-requests']).toBe(String(usageRequestsPerMinute(3) - 1))
    expect(usage.headers['x-ratelimit-limit-tokens']).toBe(String(classLimits('account', 3).tpm))
    const v1 = await gw.call('/v1/models', { key: 'tier3' })
    expect(v1.headers['x-ratelimit-limit-requests']).toBe(String(classLimits('account', 3).rpm))
    expect(v1.headers['x-ratelimit-remaining-tokens']).toBe(v1.headers['x-ratelimit-limit-tokens'])
  })

  it('count the reset down to the end of the window', async () => {
    const clock = manualClock('2026-09-01T00:00:00Z')
    const gw = testGateway({ clock })
    expect((await gw.call('/user/v1/credit')).headers['x-ratelimit-reset-requests']).toBe('1m0s')
    clock.advance(47_500)
    expect((await gw.call('/user/v1/credit')).headers['x-ratelimit-reset-requests']).toBe('12.5s')
    clock.advance(12_480)
    expect((await gw.call('/user/v1/credit')).headers['x-ratelimit-reset-requests']).toBe('20ms')
  })

  it('reset-seconds: the reset counts down in bare seconds, a form §4.1 leaves open', async () => {
    const clock = manualClock('2026-09-01T00:00:00Z')
    const gw = testGateway({ clock, variations: ['reset-seconds'] })
    expect((await gw.call('/user/v1/credit')).headers['x-ratelimit-reset-requests']).toBe('60')
    clock.advance(47_500)
    const { headers } = await gw.call('/user/v1/credit')
    expect(headers['x-ratelimit-reset-requests']).toBe('12.5')
    expect(headers['x-ratelimit-reset-tokens']).toMatch(/^\d+(\.\d{1,3})?$/)
  })

  it('are absent on unauthenticated calls', async () => {
    const gw = testGateway()
    expect((await gw.call('/public/models', { key: null })).headers['x-ratelimit-limit-requests']).toBeUndefined()
  })
})

describe('the usage rate limit (sections 7, 8.1)', () => {
  it('admits the limit, then answers 429 rate_limit_exceeded with Retry-After not earlier than the reset', async () => {
    const clock = manualClock('2026-09-01T00:00:00Z')
    const gw = testGateway({ clock })
    const limit = usageRequestsPerMinute(1)
    for (let i = 0; i < limit; i += 1) {
      expect((await gw.call('/user/v1/credit', { key: 'tier1' })).status).toBe(200)
      clock.advance(100)
    }
    const refused = await gw.call('/user/v1/transactions', { key: 'tier1' })
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String) })
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0')
    // The window opened at 0 and ends at 60 s; 1.5 s have passed, so 58.5 s remain: Retry-After rounds up.
    expect(refused.headers['x-ratelimit-reset-requests']).toBe('58.5s')
    expect(refused.headers['retry-after']).toBe('59')
    clock.advance(58_499)
    expect((await gw.call('/user/v1/credit', { key: 'tier1' })).status).toBe(429)
    clock.advance(1)
    expect((await gw.call('/user/v1/credit', { key: 'tier1' })).status).toBe(200)
  })

  it('counts refused and failed calls, and is kept per account', async () => {
    const gw = testGateway({ minuteMs: 60_000 })
    expect((await gw.call('/user/v1/transactions?page=0', { key: 'tier0' })).status).toBe(400)
    expect((await gw.call('/user/v1/credit', { key: 'tier0' })).status).toBe(200)
    expect((await gw.call('/user/v1/credit', { key: 'tier0' })).status).toBe(200)
    expect((await gw.call('/user/v1/credit', { key: 'tier0' })).status).toBe(429)
    expect((await gw.call('/user/v1/credit', { key: 'tier0' })).headers['x-ratelimit-remaining-requests']).toBe('0')
    expect((await gw.call('/user/v1/credit', { key: 'tier1' })).status).toBe(200)
  })

  it('counts nothing for missing, invalid or suspended keys', async () => {
    const gw = testGateway()
    for (let i = 0; i < 10; i += 1) {
      await gw.call('/user/v1/credit', { key: null })
      await gw.call('/user/v1/credit', { key: 'suspended' })
    }
    expect((await gw.call('/user/v1/credit', { key: 'tier0' })).headers['x-ratelimit-remaining-requests']).toBe('2')
  })

  it('opens a new window once --minute-ms has elapsed (real time)', async () => {
    const gw = testGateway({ minuteMs: 200 })
    const statuses = []
    for (let i = 0; i < 4; i += 1) statuses.push((await gw.call('/user/v1/credit', { key: 'tier0' })).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    const refused = await gw.call('/user/v1/credit', { key: 'tier0' })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    await sleep(220)
    expect((await gw.call('/user/v1/credit', { key: 'tier0' })).status).toBe(200)
  })

  it('admits exactly the limit out of many concurrent calls', async () => {
    const gw = testGateway()
    const limit = usageRequestsPerMinute(2)
    const responses = await Promise.all(
      Array.from({ length: limit * 3 }, () => gw.call('/user/v1/credit', { key: 'tier2' })),
    )
    expect(responses.filter((r) => r.status === 200).length).toBe(limit)
    expect(responses.filter((r) => r.status === 429).length).toBe(limit * 2)
  })
})

describe('the account class limit on /v1 (sections 7, 8.3)', () => {
  it('refuses the call after the rpm with the compatible 429 body', async () => {
    const gw = testGateway()
    const { rpm } = classLimits('account', 0)
    for (let i = 0; i < rpm; i += 1) expect((await gw.call('/v1/models', { key: 'tier0' })).status).toBe(200)
    const refused = await gw.call('/v1/models', { key: 'tier0' })
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({
      error: { message: expect.any(String), type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' },
    })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  })
})

describe('the usage rate limit under the other limiter algorithms (--limiter)', () => {
  it('token-bucket: Retry-After is the time until one call, the reset the time until the bucket is full', async () => {
    const clock = manualClock('2026-09-01T00:00:00Z')
    const gw = testGateway({ clock, limiter: 'token-bucket' })
    const limit = usageRequestsPerMinute(0)
    for (let i = 0; i < limit; i += 1) expect((await gw.call('/user/v1/credit', { key: 'tier0' })).status).toBe(200)
    const refused = await gw.call('/user/v1/credit', { key: 'tier0' })
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe(String(60 / limit))
    expect(refused.headers['x-ratelimit-reset-requests']).toBe('1m0s')
    clock.advance((60 / limit) * 1000)
    const again = await gw.call('/user/v1/credit', { key: 'tier0' })
    expect(again.status).toBe(200)
    expect(again.headers['x-ratelimit-remaining-requests']).toBe('0')
  })

  it('sliding-window: a call is admitted again when the oldest one leaves the window', async () => {
    const clock = manualClock('2026-09-01T00:00:00Z')
    const gw = testGateway({ clock, limiter: 'sliding-window' })
    const limit = usageRequestsPerMinute(0)
    for (let i = 0; i < limit; i += 1) {
      expect((await gw.call('/user/v1/credit', { key: 'tier0' })).status).toBe(200)
      clock.advance(10_000)
    }
    const refused = await gw.call('/user/v1/credit', { key: 'tier0' })
    expect(refused.status).toBe(429)
    // Calls at 0, 10 and 20 s, refused at 30 s: the first leaves at 60 s, the last at 80 s.
    expect(refused.headers['retry-after']).toBe('30')
    expect(refused.headers['x-ratelimit-reset-requests']).toBe('50s')
    clock.advance(30_000)
    expect((await gw.call('/user/v1/credit', { key: 'tier0' })).status).toBe(200)
  })
})
