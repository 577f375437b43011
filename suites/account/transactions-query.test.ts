/**
 * GET /user/v1/transactions: the envelope, defaults, every query parameter's range and pairing rule (an
 * out-of-range value is an invalid request: 400, §7), paging and filters (Part 1 §2.2, §4.2, §8.5).
 * These checks spend many usage-endpoint calls, so they use the key with the most room (§8.1).
 */
import { describe } from 'vitest'
import { expectSchema, expectSetup, expectThat, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { addDays, todayUtc } from '../../harness/clock.ts'
import { memo, randomSuffix } from '../../harness/worker/helpers.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { modelIds, modelItems } from '../models/model-list.ts'
import { awaitTransactions, listTransactions, roomiestKey } from './transactions.ts'

const api = target()
const key = roomiestKey(api)
const today = todayUtc()

/** Status of the list for a query; the body is not judged here. */
async function statusFor(query: Record<string, string | number>): Promise<{ status: number; path: string }> {
  const ex = await api.get('/user/v1/transactions', { key, query })
  return { status: ex.status, path: ex.excerpt.path }
}

/** Accepted values answer 200 and refused ones 400; one failure lists every value that did otherwise. */
async function expectRange(
  accepted: Array<Record<string, string | number>>,
  refused: Array<Record<string, string | number>>,
): Promise<void> {
  const wrong: string[] = []
  for (const query of accepted) {
    const { status, path } = await statusFor(query)
    if (status !== 200) wrong.push(`${path} -> ${status} (expected 200)`)
  }
  for (const query of refused) {
    const { status, path } = await statusFor(query)
    if (status !== 400) wrong.push(`${path} -> ${status} (expected 400)`)
  }
  expectThat(wrong.length === 0, 'values in range accepted, values out of range refused with 400', wrong)
}

/** Calls of this key's own, so that the lists below have transactions of two statuses and providers to filter. */
const seeded = memo(async () => {
  const list = await api.get('/v1/models', { key })
  expectSetup(list, 200, 'the model list, to find a model to call')
  const modelId = modelIds(modelItems(list))[0]
  const calls = [list, await api.get(`/v1/models/${encodeURIComponent(modelId ?? 'gc-none')}`, { key })]
  // Three failed calls: a list filtered to them is stable while the list calls themselves add transactions.
  for (let i = 0; i < 3; i += 1) calls.push(await api.get(`/v1/models/gc-no-such-model-${randomSuffix()}`, { key }))
  const ids = calls.flatMap((ex) => (ex.svcRequestId ? [ex.svcRequestId] : []))
  const found = await awaitTransactions(api, ids, key)
  precondition(found.size > 0, 'P1-4.2-transaction-available', "none of this run's calls was listed within 30 seconds")
  return found
})

describe('transaction list envelope and defaults (Part 1 §2.2, §4.2)', () => {
  check(
    'P1-2.2-transactions-envelope',
    'the list returns transactions, total, page, page_size and has_more, each transaction with the fields of §2.2',
    async () => {
      await seeded()
      const { ex } = await listTransactions(api, { hours_ago: 1 }, key)
      expectSchema(ex, 'account/transactions-list.json')
    },
  )

  check(
    'P1-4.2-transactions-defaults',
    'without page and page_size the list reports page 1 and page_size 100',
    async () => {
      const { ex } = await listTransactions(api, {}, key)
      const body = ex.json
      precondition(isObject(body), 'P1-2.2-transactions-envelope', 'the list is not a JSON object')
      expectThat(
        body.page === 1 && body.page_size === 100,
        'page 1 and page_size 100',
        `page ${JSON.stringify(body.page)}, page_size ${JSON.stringify(body.page_size)}`,
        ex,
      )
    },
  )
})

describe('query parameter ranges and pairing (Part 1 §4.2, §7, §8.5)', () => {
  check('P1-4.2-hours-ago-range', 'hours_ago accepts 1 and 720; 0, 721 and 1.5 are refused with 400', () =>
    expectRange([{ hours_ago: 1 }, { hours_ago: 720 }], [{ hours_ago: 0 }, { hours_ago: 721 }, { hours_ago: '1.5' }]),
  )

  check('P1-4.2-page-range', 'page accepts 1 and 10000; 0, 10001 and "two" are refused with 400', () =>
    expectRange([{ page: 1 }, { page: 10000 }], [{ page: 0 }, { page: 10001 }, { page: 'two' }]),
  )

  check('P1-4.2-page-size-range', 'page_size accepts 1 and 1000; 0, 1001 and 2.5 are refused with 400', () =>
    expectRange([{ page_size: 1 }, { page_size: 1000 }], [{ page_size: 0 }, { page_size: 1001 }, { page_size: '2.5' }]),
  )

  check('P1-4.2-date-pairing', 'start_date and end_date are accepted together and refused alone', () =>
    expectRange(
      [{ start_date: addDays(today, -1), end_date: today }],
      [{ start_date: addDays(today, -1) }, { end_date: today }],
    ),
  )

  check('P1-4.2-date-format', 'dates other than YYYY-MM-DD are refused with 400', () =>
    expectRange(
      [{ start_date: addDays(today, -2), end_date: addDays(today, -1) }],
      ['2026/01/02', '20260102', `${today}T00:00:00Z`, '2026-02-30', 'yesterday'].map((bad) => ({
        start_date: bad,
        end_date: today,
      })),
    ),
  )
})

describe('paging (Part 1 §4.2)', () => {
  check(
    'P1-4.2-transactions-paging',
    'a page holds at most page_size transactions and echoes page and page_size',
    async () => {
      await seeded()
      for (const [page, pageSize] of [
        [1, 1],
        [2, 1],
        [1, 2],
      ] as const) {
        const { ex, items } = await listTransactions(api, { hours_ago: 1, page, page_size: pageSize }, key)
        const body = ex.json
        precondition(isObject(body), 'P1-2.2-transactions-envelope', 'the list is not a JSON object')
        expectThat(
          items.length <= pageSize,
          `at most ${pageSize} transaction(s) on page ${page}`,
          `${items.length}`,
          ex,
        )
        expectThat(
          body.page === page && body.page_size === pageSize,
          `page ${page} and page_size ${pageSize} echoed`,
          `page ${JSON.stringify(body.page)}, page_size ${JSON.stringify(body.page_size)}`,
          ex,
        )
      }
    },
  )

  check(
    'P1-4.2-transactions-has-more',
    'consecutive pages do not overlap and has_more tells whether more follow',
    async () => {
      await seeded()
      // Every list call is a transaction too, and the newest come first: unfiltered pages shift between two calls.
      // Paging through this key's failed calls (404) keeps the pages still.
      const query = { hours_ago: 1, status_code: 404 }
      const first = await listTransactions(api, { ...query, page: 1, page_size: 1 }, key)
      const second = await listTransactions(api, { ...query, page: 2, page_size: 1 }, key)
      for (const { ex, items } of [first, second]) {
        const body = ex.json
        precondition(
          isObject(body) && Number.isInteger(body.total),
          'P1-2.2-transactions-envelope',
          'the list has no integer total',
        )
        precondition(items.length <= 1, 'P1-4.2-transactions-paging', 'page_size=1 returned more than one transaction')
        precondition(
          items.every((t) => t.status_code === 404),
          'P1-4.2-filter-status-code',
          'status_code=404 listed other statuses',
        )
        const page = Number(body.page)
        const expected = page * 1 < (body.total as number)
        expectThat(
          body.has_more === expected,
          `has_more ${expected} on page ${page} of total ${String(body.total)}`,
          `has_more ${JSON.stringify(body.has_more)}`,
          ex,
        )
      }
      const a = first.items[0]?.id
      const b = second.items[0]?.id
      expectThat(
        a === undefined || a !== b,
        'different transactions on pages 1 and 2',
        `both pages hold ${String(a)}`,
        second.ex,
      )
    },
  )
})

describe('filters (Part 1 §4.2)', () => {
  check('P1-4.2-filter-status-code', 'status_code lists only transactions with that status', async () => {
    await seeded()
    for (const code of [200, 404]) {
      const { ex, items } = await listTransactions(api, { hours_ago: 1, status_code: code, page_size: 1000 }, key)
      const other = items
        .filter((t) => t.status_code !== code)
        .map((t) => `${String(t.id)} has status_code ${String(t.status_code)}`)
      expectThat(other.length === 0, `only status_code ${code}`, other, ex)
    }
  })

  check('P1-4.2-filter-provider', 'provider lists only transactions of that provider', async () => {
    const found = await seeded()
    const provider = [...found.values()]
      .map((t) => t.provider)
      .find((p): p is string => typeof p === 'string' && p !== '')
    precondition(provider !== undefined, 'P1-2.2-transactions-envelope', 'no listed transaction names a provider')
    const { ex, items } = await listTransactions(api, { hours_ago: 1, provider, page_size: 1000 }, key)
    expectThat(items.length > 0, `at least this run's ${provider} transaction`, 'none', ex)
    const other = items
      .filter((t) => typeof t.provider !== 'string' || t.provider.toLowerCase() !== provider.toLowerCase())
      .map((t) => `${String(t.id)} has provider ${String(t.provider)}`)
    expectThat(other.length === 0, `only provider ${provider}`, other, ex)
  })

  check('P1-4.2-filter-safety-identifier', 'a safety_identifier that no call used lists nothing', async () => {
    await seeded()
    const { ex, items } = await listTransactions(
      api,
      { hours_ago: 1, safety_identifier: `gc-unused-${randomSuffix()}` },
      key,
    )
    expectThat(items.length === 0, 'no transactions', `${items.length} transactions`, ex)
  })
})
