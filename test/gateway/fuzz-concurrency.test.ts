/**
 * 500 concurrent calls on one account lose nothing: a mix of billable searches (Part 2 §4.5, charged per
 * query), free model lists and free /user/v1 credit reads, sent at once over real sockets to one tier-5 account, whose limits
 * (Part 1 §8.1 usage 750 a minute; the account and model limits of §8.3) admit them all.
 *
 * - transactions (Part 1 §2.2, §4.2): the list holds exactly one record per call, its id the call's
 *   svc-request-id (§4.1), with the call's status and, for a search, the tool as its model;
 * - rate-limit counts (§4.1, §7): every call of a bucket reports a different x-ratelimit-remaining-requests, and
 *   the next call after the burst reports the limit minus every call made so far;
 * - credit (§2.1): the burst's searches cost exactly as many times one identical search.
 */
import { Agent, request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'

const BURST = { search: 200, models: 200, credit: 100 } as const
const SEARCH_BODY = JSON.stringify({ search_tool_name: 'p1-search', query: 'concurrency', max_results: 1 })

interface Call {
  kind: 'search' | 'models' | 'credit'
  status: number
  id: string
  remaining: number
  limit: number
  body: unknown
}

let gateway: EmbeddedGateway
// Unlimited connections per origin: the 500 calls really are in flight together, one socket each.
const agent = new Agent({ connections: null, pipelining: 1 })
/** Every svc-request-id this account has been answered with, in order. */
const made: string[] = []
/** Calls made so far per bucket: the search tool's, the account's (every /v1 call), the usage limit's (/user/v1). */
const counted = { model: 0, account: 0, usage: 0 }

beforeAll(async () => {
  gateway = await startEmbeddedGateway()
})
afterAll(async () => {
  await agent.close()
  await gateway.close()
})

async function send(kind: Call['kind']): Promise<Call> {
  const target =
    kind === 'search'
      ? { path: '/v1/search', method: 'POST' as const, body: SEARCH_BODY }
      : { path: kind === 'models' ? '/v1/models' : '/user/v1/credit', method: 'GET' as const }
  const response = await request(`${gateway.url}${target.path}`, {
    dispatcher: agent,
    method: target.method,
    headers: {
      authorization: `Bearer ${gateway.keys.tier5}`,
      ...(target.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(target.body === undefined ? {} : { body: target.body }),
  })
  const body = (await response.body.json()) as unknown
  const header = (name: string): string => String(response.headers[name] ?? '')
  if (kind === 'search') counted.model += 1
  if (kind === 'credit') counted.usage += 1
  else counted.account += 1
  made.push(header('svc-request-id'))
  return {
    kind,
    status: response.statusCode,
    id: header('svc-request-id'),
    remaining: Number(header('x-ratelimit-remaining-requests')),
    limit: Number(header('x-ratelimit-limit-requests')),
    body,
  }
}

/** A free call on another account, only to open a keep-alive socket in the agent. */
async function warm(): Promise<void> {
  const response = await request(`${gateway.url}/v1/models`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${gateway.keys.tier4}` },
  })
  await response.body.dump()
}

/** The burst in a fixed interleaving: search, models, search, models, credit, ... */
function burstKinds(): Array<Call['kind']> {
  const kinds: Array<Call['kind']> = []
  const left: Record<Call['kind'], number> = { ...BURST }
  while (left.search + left.models + left.credit > 0) {
    for (const kind of ['search', 'models', 'search', 'models', 'credit'] as const) {
      if (left[kind] > 0) {
        kinds.push(kind)
        left[kind] -= 1
      }
    }
  }
  return kinds
}

const remainingIrt = (call: Call): number => (call.body as { remaining_irt: number }).remaining_irt

describe('500 concurrent calls on one tier-5 account (Part 1 §2.2, §4.1, §7, §8)', () => {
  let before: Call
  let after: Call
  let single: number
  let burst: Call[]

  beforeAll(async () => {
    // One search alone, between two credit reads: what one such call costs.
    const start = await send('credit')
    const alone = await send('search')
    before = await send('credit')
    expect(alone.status).toBe(200)
    single = remainingIrt(start) - remainingIrt(before)
    // Open the sockets first, with another account's key: a burst on fresh connections arrives one connect at a
    // time, and the gateway sees the calls one after another. On 500 idle keep-alive sockets the 500 requests land
    // in the same turn of its loop.
    await Promise.all(Array.from({ length: BURST.search + BURST.models + BURST.credit }, () => warm()))
    burst = await Promise.all(burstKinds().map((kind) => send(kind)))
    after = await send('credit')
  }, 60_000)

  it('answers every call of the burst 200, a search costing something', () => {
    expect(burst).toHaveLength(500)
    expect(burst.filter((call) => call.status !== 200).map((call) => `${call.kind} ${call.status}`)).toEqual([])
    // The credit comparison below proves nothing unless a call costs something.
    expect(single).toBeGreaterThan(0)
  })

  it('counts every call once in its request bucket: distinct remaining values, then limit minus every call', async () => {
    for (const kind of ['search', 'models', 'credit'] as const) {
      const calls = burst.filter((call) => call.kind === kind)
      const values = calls.map((call) => call.remaining)
      // A lost count shows as two calls reading the same remaining.
      expect(new Set(values).size, `${kind}: distinct x-ratelimit-remaining-requests`).toBe(calls.length)
    }
    // The searches are the only calls in the tool's bucket: exactly the next BURST.search values below the one alone.
    const search = burst
      .filter((call) => call.kind === 'search')
      .map((call) => call.remaining)
      .sort((a, b) => b - a)
    const searchLimit = burst.find((call) => call.kind === 'search')?.limit as number
    expect(search[0]).toBe(searchLimit - 2)
    expect(search.at(-1)).toBe(searchLimit - 1 - BURST.search)

    const afterModels = await send('models')
    expect(afterModels.remaining, 'account bucket after the burst').toBe(afterModels.limit - counted.account)
    const afterCredit = await send('credit')
    expect(afterCredit.remaining, 'usage bucket after the burst').toBe(afterCredit.limit - counted.usage)
    const afterSearch = await send('search')
    expect(afterSearch.remaining, "the search tool's bucket after the burst").toBe(afterSearch.limit - counted.model)
  })

  it('charges the burst exactly as many times one identical search', () => {
    const spent = remainingIrt(before) - remainingIrt(after)
    expect(spent / single).toBeCloseTo(BURST.search, 6)
  })

  it('lists exactly one transaction per call, each with its status and model', async () => {
    // One page holds every call of the account (fewer than 1000), so no record can shift between pages.
    expect(made.length).toBeLessThan(1000)
    const response = await request(`${gateway.url}/user/v1/transactions?page_size=1000`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${gateway.keys.tier5}` },
    })
    expect(response.statusCode).toBe(200)
    const list = (await response.body.json()) as {
      transactions: Array<{ id: string; status_code: number; model: string }>
      total: number
      has_more: boolean
    }
    const own = String(response.headers['svc-request-id'])
    // The listing call may or may not see itself (it is recorded as it is answered); every other call is there once.
    const listed = list.transactions.map((t) => t.id).filter((id) => id !== own)
    expect(listed.length - new Set(listed).size, 'ids listed twice').toBe(0)
    expect([...made].sort()).toEqual([...listed].sort())
    expect(list).toMatchObject({ total: list.transactions.length, has_more: false })
    const byId = new Map(list.transactions.map((t) => [t.id, t]))
    for (const call of burst) {
      const record = byId.get(call.id)
      expect(record?.status_code, `transaction of a ${call.kind} call`).toBe(200)
      if (call.kind === 'search') expect(record?.model).toBe('p1-search')
    }
  })
})
