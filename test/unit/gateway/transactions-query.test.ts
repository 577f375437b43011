/** The query rules of GET /user/v1/transactions (Part 1 section 4.2) and its envelope (section 2.2). */
import { beforeAll, describe, expect, it } from 'vitest'
import { KEYS, manualClock, testGateway } from './helpers.ts'

// Calls are placed at known instants; queries run at NOW with the tier-5 key (750 usage calls a minute).
const NOW = '2026-09-10T12:00:00.000Z'
const clock = manualClock('2026-08-12T12:00:00Z')
const gw = testGateway({ clock })
const list = (query = '') => gw.call(`/user/v1/transactions${query}`, { key: 'tier5' })

const placed: Record<string, string> = {}
async function callAt(name: string, instant: string, path: string, key: 'tier5' | 'tier4' = 'tier5') {
  clock.set(instant)
  placed[name] = (await gw.call(path, { key })).id
}

beforeAll(async () => {
  await callAt('old', '2026-08-12T12:00:00Z', '/v1/models/gw-embed-1') // 29 days before NOW
  await callAt('dayBefore', '2026-09-08T23:59:59.999Z', '/v1/models/gw-chat-mini')
  await callAt('dayStart', '2026-09-09T00:00:00.000Z', '/v1/models/gw-chat')
  await callAt('missing', '2026-09-09T13:00:00Z', '/v1/models/no-such-model')
  await callAt('pro', '2026-09-10T10:30:00Z', '/v1/models/gw-chat-pro')
  await callAt('recent', '2026-09-10T11:30:00Z', '/v1/models/gw-reasoner')
  await callAt('list', '2026-09-10T11:45:00Z', '/v1/models')
  await callAt('otherAccount', '2026-09-10T11:50:00Z', '/v1/models/gw-chat', 'tier4')
  // No route takes a safety_identifier yet; place one directly, as a later route will record it.
  const record = gw.state.transactions.findById(placed.recent!)!
  gw.state.transactions.add({
    ...record,
    record: { ...record.record, id: 'with-safety-id', safety_identifier: 'user-42' },
  })
  clock.set(NOW)
})

const idsOf = (body: { transactions: { id: string }[] }) => body.transactions.map((t) => t.id)
/** The placed calls a list holds, by name; the list calls themselves (recorded at NOW) are left out. */
const named = (body: { transactions: { id: string }[] }) => {
  const names = new Map(Object.entries(placed).map(([name, id]) => [id, name]))
  names.set('with-safety-id', 'withSafetyId')
  return idsOf(body).flatMap((id) => names.get(id) ?? [])
}
/** Matches every placed call of the tier-5 account, and none of the list calls (whose model is ""). */
const PLACED_WITH_MODEL = '?hours_ago=720&model=gw-'

describe('defaults and envelope (sections 2.2, 4.2)', () => {
  it("lists the caller's last 24 hours, newest first, page 1 of size 100", async () => {
    const { status, body } = await list()
    expect(status).toBe(200)
    expect(body).toMatchObject({ page: 1, page_size: 100, has_more: false, total: body.transactions.length })
    expect(named(body)).toEqual(['withSafetyId', 'list', 'recent', 'pro', 'missing'])
  })

  it('pages without overlap; has_more is page * page_size < total', async () => {
    const pages = []
    for (const page of [1, 2, 3, 4]) pages.push((await list(`${PLACED_WITH_MODEL}&page=${page}&page_size=2`)).body)
    expect(pages.map((p) => p.transactions.length)).toEqual([2, 2, 2, 0])
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false, false])
    expect(pages.every((p, i) => p.total === 6 && p.page === i + 1 && p.page_size === 2)).toBe(true)
    expect(pages.flatMap(named)).toEqual(['withSafetyId', 'recent', 'pro', 'dayStart', 'dayBefore', 'old'])
  })

  it('a page size that does not divide the total ends with a short page', async () => {
    const first = (await list(`${PLACED_WITH_MODEL}&page_size=4`)).body
    const second = (await list(`${PLACED_WITH_MODEL}&page_size=4&page=2`)).body
    expect([first.transactions.length, first.has_more, second.transactions.length, second.has_more]).toEqual([
      4,
      true,
      2,
      false,
    ])
  })
})

describe('bounds: each refused just outside and accepted at the edge (sections 4.2, 8.5)', () => {
  it.each([
    ['hours_ago', '1', '720', ['0', '721']],
    ['page', '1', '10000', ['0', '10001']],
    ['page_size', '1', '1000', ['0', '1001']],
  ])('%s accepts %s and %s', async (name, low, high, outside) => {
    for (const value of [low, high]) expect((await list(`?${name}=${value}`)).status).toBe(200)
    for (const value of outside) {
      const response = await list(`?${name}=${value}`)
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(name) })
    }
  })

  it.each(['1.5', 'abc', '', '+1', '-1', '1e2', ' 1', '0x10'])(
    'integers are plain digits: %j is refused',
    async (value) => {
      for (const name of ['hours_ago', 'page', 'page_size', 'status_code', 'api_key_id']) {
        const response = await list(`?${name}=${encodeURIComponent(value)}`)
        expect(response.status, `${name}=${value}`).toBe(400)
        expect(response.body.message).toContain(name)
      }
    },
  )

  it('a parameter given twice is refused', async () => {
    expect((await list('?page=1&page=2')).status).toBe(400)
  })
})

describe('time window (section 4.2)', () => {
  it('hours_ago counts back from now', async () => {
    expect(named((await list('?hours_ago=1')).body)).toEqual(['withSafetyId', 'list', 'recent'])
    expect(named((await list('?hours_ago=720')).body)).toEqual([
      'withSafetyId',
      'list',
      'recent',
      'pro',
      'missing',
      'dayStart',
      'dayBefore',
      'old',
    ])
  })

  it('start_date and end_date are whole UTC days, both inclusive', async () => {
    expect(named((await list('?start_date=2026-09-09&end_date=2026-09-09')).body)).toEqual(['missing', 'dayStart'])
    expect(named((await list('?start_date=2026-09-08&end_date=2026-09-09')).body)).toEqual([
      'missing',
      'dayStart',
      'dayBefore',
    ])
  })

  it('dates replace hours_ago, which is then ignored', async () => {
    const response = await list('?start_date=2026-08-01&end_date=2026-08-31&hours_ago=0')
    expect(response.status).toBe(200)
    expect(named(response.body)).toEqual(['old'])
  })

  it.each([['start_date=2026-09-09'], ['end_date=2026-09-09']])('%s alone is refused (pairing)', async (query) => {
    const response = await list(`?${query}`)
    expect(response.status).toBe(400)
    expect(response.body.message).toMatch(/start_date|end_date/)
  })

  it.each([
    '2026/09/09',
    '20260909',
    '2026-09-09T00:00:00Z',
    '2026-9-9',
    '2026-02-30',
    '2026-02-29',
    '2026-13-01',
    '09-09-2026',
    '',
  ])('date %j is refused', async (date) => {
    const response = await list(`?start_date=${encodeURIComponent(date)}&end_date=2026-09-10`)
    expect(response.status).toBe(400)
    expect(response.body.message).toContain('start_date')
  })

  it('accepts a leap day, and refuses a start after the end', async () => {
    expect((await list('?start_date=2028-02-29&end_date=2028-02-29')).status).toBe(200)
    const reversed = await list('?start_date=2026-09-10&end_date=2026-09-09')
    expect(reversed.status).toBe(400)
  })
})

describe('filters (section 4.2)', () => {
  const window = '?hours_ago=720'

  it('status_code is exact', async () => {
    expect(named((await list(`${window}&status_code=404`)).body)).toEqual(['missing'])
    expect((await list(`${window}&status_code=500`)).body.total).toBe(0)
  })

  it('model is a case-insensitive partial match', async () => {
    expect(named((await list(`${window}&model=CHAT`)).body)).toEqual(['pro', 'dayStart', 'dayBefore'])
    expect(named((await list(`${window}&model=reason`)).body)).toEqual(['withSafetyId', 'recent'])
  })

  it('provider is exact, case-insensitive', async () => {
    expect(named((await list(`${window}&provider=Borealis`)).body)).toEqual(['withSafetyId', 'recent'])
    expect((await list(`${window}&provider=borea`)).body.total).toBe(0)
    expect(named((await list(`${window}&provider=GATEWAY&status_code=404`)).body)).toEqual(['missing'])
  })

  it('safety_identifier is exact', async () => {
    expect(named((await list(`${window}&safety_identifier=user-42`)).body)).toEqual(['withSafetyId'])
    expect((await list(`${window}&safety_identifier=user-4`)).body.total).toBe(0)
  })

  it("api_key_id selects the key's transactions", async () => {
    const keyId = gw.state.accounts.byKey(KEYS.tier5)!.key.id
    expect(named((await list(`${window}&api_key_id=${keyId}&status_code=404`)).body)).toEqual(['missing'])
    expect((await list(`${window}&api_key_id=1`)).body.total).toBe(0)
  })
})
