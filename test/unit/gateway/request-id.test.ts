/** svc-request-id and x-request-id (Part 1 sections 1.4, 4.1, 9.4). */
import { describe, expect, it } from 'vitest'
import { uuid7Timestamp } from '../../../gateway/uuid7.ts'
import { manualClock, testGateway, UUID_V7 } from './helpers.ts'

describe('svc-request-id on every response (section 4.1)', () => {
  const gw = testGateway({ minuteMs: 60_000, faults: ['unknown-model-500'] })

  it.each([
    ['200', '/v1/models', {}, 200],
    ['401 compatible', '/v1/models', { key: null }, 401],
    ['401 usage', '/user/v1/credit', { key: null }, 401],
    ['403', '/user/v1/credit', { key: 'suspended' as const }, 403],
    ['404 unknown route', '/no/such/route', {}, 404],
    ['400', '/user/v1/transactions?page=0', {}, 400],
    ['500', '/v1/models/no-such-model', {}, 500],
  ])('%s carries a UUID v7', async (_label, path, options, status) => {
    const response = await gw.call(path, options)
    expect(response.status).toBe(status)
    expect(response.id).toMatch(UUID_V7)
  })

  it('a 429 carries a UUID v7', async () => {
    const limited = testGateway()
    for (let i = 0; i < 3; i += 1) await limited.call('/user/v1/credit', { key: 'tier0' })
    const response = await limited.call('/user/v1/credit', { key: 'tier0' })
    expect(response.status).toBe(429)
    expect(response.id).toMatch(UUID_V7)
  })

  it('an undecodable URL (answered by the framework) carries one too', async () => {
    const response = await gw.call('/v1/models/%E0%A4%A')
    expect(response.status).toBe(400)
    expect(response.id).toMatch(UUID_V7)
  })

  it('is fresh for every call and timestamped by the gateway clock', async () => {
    const clock = manualClock('2026-09-01T08:00:00Z')
    const timed = testGateway({ clock })
    const ids = new Set<string>()
    for (let i = 0; i < 20; i += 1) ids.add((await timed.call('/v1/models')).id)
    expect(ids.size).toBe(20)
    for (const id of ids) expect(uuid7Timestamp(id)).toBe(Date.parse('2026-09-01T08:00:00Z'))
  })

  it('is not replaced by X-Client-Request-Id, even when that is a UUID v7', async () => {
    const client = '01920000-0000-7000-8000-000000000000'
    const response = await gw.call('/v1/models', { headers: { 'x-client-request-id': client } })
    expect(response.id).not.toBe(client)
  })
})

describe('x-request-id during the header migration (section 9.4)', () => {
  it.each([
    ['2026-08-15T23:59:59.999Z', false],
    ['2026-08-16T00:00:00Z', true],
    ['2026-09-01T12:00:00Z', true],
    ['2026-10-15T23:59:59.999Z', true],
    ['2026-10-16T00:00:00Z', false],
  ])('at %s: sent = %s', async (instant, sent) => {
    const gw = testGateway({ clock: manualClock(instant) })
    for (const path of ['/v1/models', '/no/such/route']) {
      const response = await gw.call(path)
      expect(response.headers['x-request-id']).toBe(sent ? response.id : undefined)
    }
  })

  it('follows the clock as it crosses the last day', async () => {
    const clock = manualClock('2026-10-15T23:59:59.990Z')
    const gw = testGateway({ clock })
    expect((await gw.call('/v1/models')).headers['x-request-id']).toBeDefined()
    clock.advance(10)
    expect((await gw.call('/v1/models')).headers['x-request-id']).toBeUndefined()
  })

  it('uses --now as the start of an offset clock, for the ids and the Date header alike', async () => {
    const gw = testGateway({ now: '2026-08-16' })
    const response = await gw.call('/v1/models')
    expect(response.headers['x-request-id']).toBe(response.id)
    expect(Math.abs(uuid7Timestamp(response.id) - Date.parse('2026-08-16T00:00:00Z'))).toBeLessThan(5_000)
    expect(Math.abs(Date.parse(String(response.headers.date)) - uuid7Timestamp(response.id))).toBeLessThan(2_000)
  })
})
