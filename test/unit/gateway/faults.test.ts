/**
 * The fault registry (ARCHITECTURE.md, The contracts: every MUST is proven able to fail against a named fault)
 * and a smoke test of a few faults against the gateway itself.
 */
import { describe, expect, it } from 'vitest'
import requirements from '../../../schemas/requirements.json' with { type: 'json' }
import { createGateway } from '../../../gateway/server.ts'
import { existsSync } from 'node:fs'
import { describeFaults, familyOf, FAULT_NAMES, FAULTS, toFaultSet } from '../../../gateway/faults/registry.ts'
import { CHAT_STREAM_RESHAPES } from '../../../gateway/chat/reshapes.ts'
import { eachEvent, reshapeEvents, type StreamEvent } from '../../../gateway/faults/events.ts'
import { uuid7Timestamp } from '../../../gateway/uuid7.ts'
import { testGateway, UUID_V7 } from './helpers.ts'

const requirementIds = new Set(requirements.requirements.map((r) => r.id))

describe('registry', () => {
  it('names distinct faults, each breaking known requirement ids', () => {
    expect(FAULTS.length).toBeGreaterThan(0)
    expect(new Set(FAULT_NAMES).size).toBe(FAULTS.length)
    for (const fault of FAULTS) {
      expect(fault.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect(fault.description.length).toBeGreaterThan(10)
      expect(fault.description).not.toContain('\n')
      expect(fault.breaks.length + (fault.loadVerdicts?.length ?? 0), `${fault.name} breaks nothing`).toBeGreaterThan(0)
      for (const id of fault.breaks) expect(requirementIds, `${fault.name} breaks ${id}`).toContain(id)
    }
  })

  it('gives the date faults an as-of date', () => {
    const dated = FAULTS.filter((fault) => fault.asOf !== undefined).map((fault) => [fault.name, fault.asOf])
    expect(dated).toEqual([
      ['x-request-id-after-cutoff', '2026-11-21'],
      ['x-request-id-missing', '2026-09-01'],
    ])
  })

  it('prints one line per fault for --fault list, naming its family and what it does', () => {
    const lines = describeFaults().split('\n')
    expect(lines).toHaveLength(FAULTS.length)
    FAULTS.forEach((fault, i) => {
      expect(lines[i]).toMatch(new RegExp(`^${fault.name} +${familyOf(fault.name)} `))
      expect(lines[i]!.endsWith(fault.description)).toBe(true)
    })
  })

  it('files each fault under a family of suites/', () => {
    // The families that judge every route keep their faults beside the hooks that do it.
    const hooked = new Set(['headers', 'auth', 'tiers'])
    for (const family of new Set(FAULT_NAMES.map(familyOf))) {
      const faults = hooked.has(family) ? `gateway/hooks/${family}-faults.ts` : `gateway/${family}/faults.ts`
      for (const room of [`suites/${family}`, faults]) {
        expect(existsSync(new URL(`../../../${room}`, import.meta.url)), room).toBe(true)
      }
    }
  })

  it('every fault can be switched on', () => {
    for (const name of FAULT_NAMES) expect(() => createGateway({ faults: [name] })).not.toThrow()
  })
})

describe('the answer-reshaping layer (gateway/faults/answers.ts)', () => {
  it('bends only the successful answers of its own family', async () => {
    const gw = testGateway({ faults: ['search-object-wrong'] })
    const search = await gw.call('/v1/search', {
      method: 'POST',
      body: { search_tool_name: 'p1-search', query: 'conformance' },
    })
    expect(search.status).toBe(200)
    expect(search.body.object).toBe('search_result')
    const refused = await gw.call('/v1/search', { method: 'POST', body: { search_tool_name: 'p1-search' } })
    expect(refused.status).toBe(400)
    expect(refused.body.object).toBeUndefined()
    const models = await gw.call('/v1/models')
    expect(models.body.object).toBe('list')
  })

  it('applies each reshape of a family to every route it names, in list and single answers', async () => {
    const gw = testGateway({ faults: ['file-bytes-string'] })
    const form = { 'content-type': 'multipart/form-data; boundary=b' }
    const payload = [
      '--b',
      'Content-Disposition: form-data; name="purpose"',
      '',
      'user_data',
      '--b',
      'Content-Disposition: form-data; name="file"; filename="a.txt"',
      'Content-Type: text/plain',
      '',
      'hello',
      '--b--',
      '',
    ].join('\r\n')
    const upload = await gw.call('/v1/files', { method: 'POST', headers: form, body: payload })
    expect(upload.status).toBe(200)
    expect(upload.body.bytes).toBe('5')
    expect((await gw.call(`/v1/files/${upload.body.id}`)).body.bytes).toBe('5')
    expect((await gw.call('/v1/files')).body.data.map((file: { bytes: unknown }) => file.bytes)).toEqual(['5'])
  })
})

describe('the event-reshaping layer (gateway/faults/events.ts)', () => {
  const events: StreamEvent[] = [
    { name: 'a', data: { type: 'a' } },
    { name: 'b', data: { type: 'b' } },
    { data: '[DONE]' },
  ]

  it('leaves a stream alone when no fault of the family is on', () => {
    expect(reshapeEvents(events, toFaultSet([]), CHAT_STREAM_RESHAPES)).toBe(events)
    expect(reshapeEvents(events, toFaultSet(['chat-stream-cut']), CHAT_STREAM_RESHAPES)).toBe(events)
  })

  it('lets a reshape drop, repeat or bend each JSON event, and passes raw lines through', () => {
    const reshape = eachEvent((event) =>
      event.name === 'a' ? null : [event, { ...event, data: { ...event.data, twice: true } }],
    )
    expect(reshape(events)).toEqual([
      { name: 'b', data: { type: 'b' } },
      { name: 'b', data: { type: 'b', twice: true } },
      { data: '[DONE]' },
    ])
  })

  it('applies the reshape of a fault that is on', () => {
    const cut = [{ data: { choices: [{ index: 0, finish_reason: 'length' }] } }]
    const out = reshapeEvents(cut, toFaultSet(['chat-length-reported-as-stop']), CHAT_STREAM_RESHAPES)
    expect(out).toEqual([{ data: { choices: [{ index: 0, finish_reason: 'stop' }] } }])
  })
})

describe('smoke: a few faults do what they say', () => {
  it('no-svc-request-id-on-errors: errors carry no id, successes do', async () => {
    const gw = testGateway({ faults: ['no-svc-request-id-on-errors'] })
    expect((await gw.call('/v1/models')).headers['svc-request-id']).toMatch(UUID_V7)
    expect((await gw.call('/v1/models', { key: null })).headers['svc-request-id']).toBeUndefined()
  })

  it('svc-request-id-reused-on-errors: every error has the same id', async () => {
    const gw = testGateway({ faults: ['svc-request-id-reused-on-errors'] })
    const [a, b, ok] = await Promise.all([
      gw.call('/nope'),
      gw.call('/v1/models', { key: null }),
      gw.call('/v1/models'),
    ])
    expect(a.id).toMatch(UUID_V7)
    expect(a.id).toBe(b.id)
    expect(ok.id).not.toBe(a.id)
  })

  it('echo-client-request-id: a UUID in X-Client-Request-Id becomes the id, and its transaction id', async () => {
    const gw = testGateway({ faults: ['echo-client-request-id'] })
    const client = '0191d3c1-0000-7000-8000-000000000001'
    const response = await gw.call('/v1/models', { headers: { 'x-client-request-id': client } })
    expect(response.id).toBe(client)
    expect(gw.state.transactions.findById(client)).toBeDefined()
  })

  it('svc-request-id-stale: ids are valid v7 stamped 2020-01-01', async () => {
    const gw = testGateway({ faults: ['svc-request-id-stale'] })
    const { id } = await gw.call('/v1/models')
    expect(id).toMatch(UUID_V7)
    expect(uuid7Timestamp(id)).toBe(Date.UTC(2020, 0, 1))
  })

  it('x-request-id-after-cutoff and x-request-id-missing', async () => {
    const after = await testGateway({ now: '2026-11-21', faults: ['x-request-id-after-cutoff'] }).call('/v1/models')
    expect(after.headers['x-request-id']).toBe(after.id)
    const missing = await testGateway({ now: '2026-09-01', faults: ['x-request-id-missing'] }).call('/v1/models')
    expect(missing.headers['x-request-id']).toBeUndefined()
  })

  it('ratelimit-reset-epoch: reset headers hold Unix seconds', async () => {
    const { headers } = await testGateway({ faults: ['ratelimit-reset-epoch'] }).call('/v1/models')
    expect(Number(headers['x-ratelimit-reset-requests'])).toBeGreaterThan(Date.now() / 1000)
  })

  it('missing-key-allowed serves /v1 only; bearer-refused-on-transactions refuses the main key', async () => {
    const open = testGateway({ faults: ['missing-key-allowed'] })
    expect((await open.call('/v1/models', { key: null })).status).toBe(200)
    expect((await open.call('/user/v1/credit', { key: null })).status).toBe(401)
    const refusing = testGateway({ faults: ['bearer-refused-on-transactions'] })
    expect((await refusing.call('/user/v1/transactions')).body).toEqual({
      error: 'unauthorized',
      message: expect.any(String),
    })
    expect((await refusing.call('/user/v1/credit')).status).toBe(200)
    // Suspension is judged first, so the fault leaves the 403 rule alone.
    expect((await refusing.call('/user/v1/transactions', { key: 'suspended' })).status).toBe(403)
  })

  it('rate-limit faults bend extra.rate_limits', async () => {
    const named = await testGateway({ faults: ['rate-limit-tiers-named'] }).call('/v1/models/gw-chat-pro')
    expect(Object.keys(named.body.extra.rate_limits.tiers)).toEqual(['tier_3', 'tier_4', 'tier_5'])
    const all = await testGateway({ faults: ['rate-limit-disallowed-tiers'] }).call('/v1/models/gw-chat-pro')
    expect(all.body.extra.rate_limits.tiers['0']).toEqual({ rpm: 0, tpm: 0 })
    expect(all.body.extra.rate_limits.current).toEqual({ tier: 2, ...all.body.extra.rate_limits.tiers['2'] })
  })

  it('usage-429-wrong-body and usage-limit-off', async () => {
    const wrong = testGateway({ faults: ['usage-429-wrong-body'] })
    for (let i = 0; i < 3; i += 1) await wrong.call('/user/v1/credit', { key: 'tier0' })
    expect((await wrong.call('/user/v1/credit', { key: 'tier0' })).body.error.code).toBe('rate_limit_exceeded')
    const off = testGateway({ faults: ['usage-limit-off'] })
    for (let i = 0; i < 3; i += 1) await off.call('/user/v1/credit', { key: 'tier0' })
    const unlimited = await off.call('/user/v1/credit', { key: 'tier0' })
    expect(unlimited.status).toBe(200)
    expect(unlimited.headers['x-ratelimit-remaining-requests']).toBe('0')
  })

  it('transaction faults: not recorded, stream true, failed calls dropped', async () => {
    const notRecorded = testGateway({ faults: ['transaction-not-recorded'] })
    const served = await notRecorded.call('/v1/responses', {
      method: 'POST',
      body: { model: 'gw-chat', input: 'Hi', max_output_tokens: 16, store: false },
    })
    expect(served.status).toBe(200)
    expect(notRecorded.state.transactions.findById(served.id)).toBeUndefined()
    expect(notRecorded.state.transactions.findById((await notRecorded.call('/v1/models/gw-chat')).id)).toBeDefined()
    const missing = await notRecorded.call('/v1/models/nope')
    expect(notRecorded.state.transactions.findById(missing.id)).toBeDefined()
    const streaming = testGateway({ faults: ['transaction-stream-true'] })
    expect(streaming.state.transactions.findById((await streaming.call('/v1/models')).id)?.record.stream).toBe(true)
    const dropping = testGateway({ faults: ['failed-calls-not-recorded'] })
    expect(dropping.state.transactions.findById((await dropping.call('/v1/models/nope')).id)).toBeUndefined()
  })

  it('query faults: page-size-not-honoured, date-format-lenient, dates-unpaired-accepted, date-range-ignored', async () => {
    const sloppy = testGateway({ faults: ['page-size-not-honoured'] })
    for (let i = 0; i < 5; i += 1) await sloppy.call('/v1/models')
    const page = await sloppy.call('/user/v1/transactions?page_size=2')
    expect(page.body.page_size).toBe(2)
    expect(page.body.transactions.length).toBe(5)
    const lenient = testGateway({ faults: ['date-format-lenient'] })
    expect(
      (await lenient.call('/user/v1/transactions?start_date=2026%2F09%2F01&end_date=Sep%202%2C%202026')).status,
    ).toBe(200)
    const unpaired = testGateway({ faults: ['dates-unpaired-accepted'] })
    expect((await unpaired.call('/user/v1/transactions?start_date=2026-01-01')).status).toBe(200)
    const ignored = testGateway({ faults: ['date-range-ignored'] })
    await ignored.call('/v1/models')
    const today = new Date().toISOString().slice(0, 10)
    expect(
      (await ignored.call(`/user/v1/transactions?start_date=${today}&end_date=${today}`)).body.transactions,
    ).toEqual([])
  })

  it('range faults clamp out-of-range values but still refuse non-integers', async () => {
    const gw = testGateway({ faults: ['hours-ago-unchecked', 'page-unchecked', 'page-size-unchecked'] })
    expect((await gw.call('/user/v1/transactions?hours_ago=0&page=0&page_size=5000')).body).toMatchObject({
      page: 1,
      page_size: 1000,
    })
    expect((await gw.call('/user/v1/transactions?hours_ago=1.5')).status).toBe(400)
  })

  it('model faults: no owned_by on the Bearer list only, extra on the Bearer list only', async () => {
    const gw = testGateway({ faults: ['model-list-no-owned-by', 'extra-on-list'] })
    const bearer = await gw.call('/v1/models')
    const pub = await gw.call('/public/models', { key: null })
    expect(bearer.body.data[0]).not.toHaveProperty('owned_by')
    expect(bearer.body.data[0]).toHaveProperty('extra')
    expect(pub.body.data[0]).toHaveProperty('owned_by')
    expect(pub.body.data[0]).not.toHaveProperty('extra')
  })
})
