/** The credit record, transaction records and lookup (Part 1 sections 2.1, 2.2, 4.2). */
import { describe, expect, it } from 'vitest'
import { EXCHANGE_RATE } from '../../../gateway/account/accounts.ts'
import { chargeUsd, remainingUsd } from '../../../gateway/account/billing.ts'
import { LATE_TRANSACTIONS_MS, unsettledIrt } from '../../../gateway/account/settling.ts'
import { TransactionStore, type StoredTransaction } from '../../../gateway/account/transactions.ts'
import { createState } from '../../../gateway/state.ts'
import { manualClock, testGateway } from './helpers.ts'

const DECIMAL = /^\d+(\.\d+)?$/
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

describe('GET /user/v1/credit (section 2.1)', () => {
  it('returns the credit record with the account tier and an integer exchange rate', async () => {
    const gw = testGateway()
    for (const [key, tier] of [
      ['tier0', 0],
      ['tier3', 3],
      ['main', 2],
    ] as const) {
      const { status, body } = await gw.call('/user/v1/credit', { key })
      expect(status).toBe(200)
      expect(body.account_tier).toBe(tier)
      expect(Number.isInteger(body.exchange_rate)).toBe(true)
      for (const field of ['limit', 'remaining_irt', 'remaining_unit', 'total_unit'])
        expect(typeof body[field]).toBe('number')
      expect(body.credit_sources.grants.length).toBeGreaterThan(0)
      expect(body.credit_sources.packages.length).toBeGreaterThan(0)
      for (const source of [...body.credit_sources.grants, ...body.credit_sources.packages]) {
        expect(source.amount_irt).toMatch(DECIMAL)
        expect(source.remaining_irt).toMatch(DECIMAL)
        expect(source.end_date).toMatch(ISO)
        expect(source.allowed_services).toEqual(['api'])
        expect(typeof source.scope_details).toBe('object')
      }
      for (const pack of body.credit_sources.packages)
        expect(pack).toMatchObject({ template_id: expect.any(String), name: expect.any(String) })
    }
  })
})

describe('transaction records (sections 1.4, 2.2)', () => {
  it('records a call under its svc-request-id with the fields of section 2.2', async () => {
    const clock = manualClock('2026-09-01T10:00:00Z')
    const gw = testGateway({ clock })
    const call = await gw.call('/v1/models/gw-reasoner')
    const { body } = await gw.call('/user/v1/transactions')
    expect(body.transactions[0]).toEqual({
      id: call.id,
      created_at: '2026-09-01T10:00:00.000Z',
      requested_at: '2026-09-01T10:00:00.000Z',
      safety_identifier: null,
      model: 'gw-reasoner',
      provider: 'borealis',
      status_code: 200,
      stream: false,
      tokens: { total: 0, prompt: 0, completion: 0, reasoning: 0, cached: 0 },
      // Beside the fields of section 2.2: the key api_key_id filters by, hidden under transactions-no-key-id.
      api_key_id: expect.any(Number),
    })
    const hidden = testGateway({ clock, variations: ['transactions-no-key-id'] })
    await hidden.call('/v1/models/gw-reasoner')
    expect((await hidden.call('/user/v1/transactions')).body.transactions[0]).not.toHaveProperty('api_key_id')
  })

  it('records failed calls too: unknown model ids, 400s and unknown routes', async () => {
    const gw = testGateway()
    const missing = await gw.call('/v1/models/no-such-model')
    const bad = await gw.call('/user/v1/transactions?page=0')
    const unknown = await gw.call('/v1/batches')
    const { body } = await gw.call('/user/v1/transactions')
    const byId = new Map(body.transactions.map((t: { id: string }) => [t.id, t]))
    expect(byId.get(missing.id)).toMatchObject({ status_code: 404, model: 'no-such-model', provider: 'gateway' })
    expect(byId.get(bad.id)).toMatchObject({ status_code: 400, model: '' })
    expect(byId.get(unknown.id)).toMatchObject({ status_code: 404, model: '' })
  })

  it('requested_at is the start of the call and never later than created_at', async () => {
    const gw = testGateway()
    for (let i = 0; i < 5; i += 1) await gw.call('/v1/models')
    const { body } = await gw.call('/user/v1/transactions')
    for (const t of body.transactions) expect(Date.parse(t.requested_at)).toBeLessThanOrEqual(Date.parse(t.created_at))
  })

  it('keeps only the newest transactions once the store is full', () => {
    const store = new TransactionStore(3)
    const entry = (n: number): StoredTransaction => ({
      record: {
        id: `t${n}`,
        created_at: '',
        requested_at: '',
        safety_identifier: null,
        model: '',
        provider: 'gateway',
        status_code: 200,
        stream: false,
        tokens: { total: 0, prompt: 0, completion: 0, reasoning: 0, cached: 0 },
      },
      accountId: 'a',
      apiKeyId: 1,
      path: '/',
      createdMs: n,
    })
    for (let n = 1; n <= 5; n += 1) store.add(entry(n))
    expect([...store.newestFirst()].map((e) => e.record.id)).toEqual(['t5', 't4', 't3'])
    expect(store.findById('t2')).toBeUndefined()
    expect(store.findById('t3')?.createdMs).toBe(3)
  })
})

describe('POST /user/v1/transactions/lookup (section 4.2)', () => {
  const gw = testGateway()

  it("finds the caller's transactions by id and reports the rest as not found", async () => {
    const mine = await gw.call('/v1/models')
    const theirs = await gw.call('/v1/models', { key: 'tier3' })
    const { status, body } = await gw.call('/user/v1/transactions/lookup', {
      method: 'POST',
      body: { ids: [mine.id, theirs.id, 'nope', mine.id] },
    })
    expect(status).toBe(200)
    expect(body.transactions.map((t: { id: string }) => t.id)).toEqual([mine.id])
    expect(body.not_found).toEqual([theirs.id, 'nope'])
  })

  it.each([
    ['no ids', { ids: [] }],
    ['1001 ids', { ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) }],
    ['ids not strings', { ids: [1, 2] }],
    ['no body field', { id: 'x' }],
  ])('refuses %s with 400 invalid_request', async (_label, body) => {
    const response = await gw.call('/user/v1/transactions/lookup', { method: 'POST', body, key: 'tier5' })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: 'invalid_request', message: expect.stringContaining('ids') })
  })

  it('accepts exactly 1000 ids', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `id-${i}`)
    const response = await gw.call('/user/v1/transactions/lookup', { method: 'POST', body: { ids }, key: 'tier5' })
    expect(response.status).toBe(200)
    expect(response.body.not_found.length).toBe(1000)
  })

  it('refuses a body that is not JSON with 400 in the usage dialect', async () => {
    const response = await gw.call('/user/v1/transactions/lookup', {
      method: 'POST',
      key: 'tier5',
      body: '{not json',
      headers: { 'content-type': 'application/json' },
    })
    expect(response.status).toBe(400)
    expect(response.body.error).toBe('invalid_request')
  })
})

describe('history and choices the reference leaves open (variations.ts)', () => {
  it('seeds older transactions: past the default 24 hours, within 720', async () => {
    const gw = testGateway({ clock: manualClock('2026-09-01T10:00:00Z') })
    const recent = await gw.call('/user/v1/transactions')
    expect(recent.body.transactions.every((t: { requested_at: string }) => t.requested_at >= '2026-08-31T10:00')).toBe(
      true,
    )
    const month = await gw.call('/user/v1/transactions?hours_ago=720')
    expect(month.body.total).toBeGreaterThanOrEqual(recent.body.total + 2)
    // hours_ago is ignored when dates are given: the 30-hour-old record is listed with hours_ago=1.
    const dated = await gw.call('/user/v1/transactions?start_date=2026-08-30&end_date=2026-09-01&hours_ago=1')
    expect(dated.body.transactions.some((t: { requested_at: string }) => t.requested_at < '2026-09-01')).toBe(true)
  })

  it('late-transactions: a call is listed some seconds after it, not at once', async () => {
    const clock = manualClock('2026-09-01T10:00:00Z')
    const gw = testGateway({ clock, variations: ['late-transactions'] })
    const call = await gw.call('/v1/models/gw-reasoner')
    const listed = async () =>
      (await gw.call('/user/v1/transactions?hours_ago=1')).body.transactions.some(
        (t: { id: string }) => t.id === call.id,
      )
    expect(await listed()).toBe(false)
    clock.advance(LATE_TRANSACTIONS_MS + 1)
    expect(await listed()).toBe(true)
  })

  it('late-credit: a charge is not shown at once', () => {
    const state = createState({ variations: ['late-credit'] })
    const account = state.accounts.main()
    const before = remainingUsd(account)
    chargeUsd(account, 1)
    expect(remainingUsd(account)).toBeCloseTo(before - 1, 6)
    expect(unsettledIrt(state, account) / EXCHANGE_RATE).toBeCloseTo(1, 6)
    expect(unsettledIrt(createState(), account)).toBe(0)
  })

  it('faults: hours-ago-with-dates and hours-ago-default-720 widen the window; api-key-id-refused', async () => {
    const clock = manualClock('2026-09-01T10:00:00Z')
    const dates = testGateway({ clock, faults: ['hours-ago-with-dates'] })
    const call = await dates.call('/v1/models/gw-reasoner')
    const past = await dates.call('/user/v1/transactions?start_date=2001-01-01&end_date=2001-01-02&hours_ago=1')
    expect(past.body.transactions.some((t: { id: string }) => t.id === call.id)).toBe(true)
    const wide = testGateway({ clock, faults: ['hours-ago-default-720'] })
    const all = await wide.call('/user/v1/transactions')
    expect(all.body.transactions.some((t: { requested_at: string }) => t.requested_at < '2026-08-31T10:00')).toBe(true)
    const refused = testGateway({ faults: ['api-key-id-refused'] })
    expect((await refused.call('/user/v1/transactions?api_key_id=1')).status).toBe(400)
  })
})
