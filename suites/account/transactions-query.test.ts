/**
 * GET /user/v1/transactions: the envelope, defaults, every query parameter's range and pairing rule (values within
 * them served; what lies past them refused, a SHOULD: §4.2 gives the ranges, not their refusal), paging and filters
 * (Part 1 §2.2, §4.2, §8.5). These checks spend many usage-endpoint calls, so they use the key with the most room
 * (§8.1).
 */
import { describe } from 'vitest'
import { expectSchema, expectThat, precondition, is2xx } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { addDays, todayUtc } from '../../harness/clock.ts'
import { memo, randomSuffix } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { expectAccepted, expectRefusals } from '../shared/refusals.ts'
import { modelCalls } from './billed-calls.ts'
import { roomiestKey } from '../shared/tier.ts'
import { answeredAt, AVAILABILITY_MS, awaitTransactions, listPages, listTransactions } from './transactions.ts'
import { defaultOf, rangeOf } from '../../common/request-schemas.ts'

const api = target()
const key = roomiestKey(api)
const today = todayUtc()

type Query = Record<string, string | number>

async function each(queries: readonly Query[]): Promise<Array<[string, Exchange]>> {
  const answers: Array<[string, Exchange]> = []
  for (const query of queries)
    answers.push([new URLSearchParams(query as Record<string, string>).toString(), await list(query)])
  return answers
}

function list(query: Query): Promise<Exchange> {
  return api.get('/user/v1/transactions', { key, query })
}

/** Values within a stated range, list or format are served (2xx). */
async function accepted(queries: readonly Query[], why: string): Promise<void> {
  expectAccepted(await each(queries), why)
}

/**
 * Values past a range, list or format are refused (any 4xx other than 429: a SHOULD). A list that refuses a value
 * within them too refuses nothing in particular: the refusal is judged only where the values `acceptance` judges
 * (`valid`) are served.
 */
async function refused(
  queries: readonly Query[],
  why: string,
  valid: readonly Query[],
  acceptance: string,
): Promise<void> {
  const wrong = (await each(valid)).filter(([, ex]) => !is2xx(ex))
  precondition(wrong.length === 0, acceptance, wrong.map(([query, ex]) => `${query} answered ${ex.status}`).join('; '))
  expectRefusals(await each(queries), why)
}

/** The stated ranges and defaults, read from the request schema the reference gateway enforces too. */
const TRANSACTIONS = 'GET /user/v1/transactions'
const HOURS_AGO = rangeOf(TRANSACTIONS, 'query', 'hours_ago')
const PAGE = rangeOf(TRANSACTIONS, 'query', 'page')
const PAGE_SIZE = rangeOf(TRANSACTIONS, 'query', 'page_size')
const DEFAULT_PAGE = defaultOf<number>(TRANSACTIONS, 'query', 'page')
const DEFAULT_PAGE_SIZE = defaultOf<number>(TRANSACTIONS, 'query', 'page_size')

/** The values each acceptance check judges: both edges of a range, both forms of a rule. */
const EDGES = {
  hoursAgo: [{ hours_ago: HOURS_AGO.min }, { hours_ago: HOURS_AGO.max }],
  page: [{ page: PAGE.min }, { page: PAGE.max }],
  pageSize: [{ page_size: PAGE_SIZE.min }, { page_size: PAGE_SIZE.max }],
  datePairing: [
    { start_date: addDays(today, -1), end_date: today },
    { start_date: today, end_date: today },
  ],
  dateFormat: [
    { start_date: '2024-02-28', end_date: '2024-02-29' },
    { start_date: '2025-12-31', end_date: '2026-01-01' },
  ],
} as const satisfies Record<string, readonly Query[]>

/** Calls of this key's own, so that the lists below have transactions of two statuses to filter. */
const seeded = memo(async () => {
  // Three failed calls: a list filtered to them is stable while the list calls themselves add transactions.
  const calls = await modelCalls(api, key, 3)
  const ids = [calls.ok, ...calls.failed].flatMap((ex) => (ex.svcRequestId ? [ex.svcRequestId] : []))
  const latest = Math.max(...[calls.ok, ...calls.failed].map(answeredAt))
  const found = await awaitTransactions(api, ids, key, undefined, latest)
  precondition(found.size > 0, 'P1-4.2-transaction-available', "none of this run's calls was listed within 30 seconds")
  const failedIds = calls.failed.flatMap((ex) => (ex.svcRequestId ? [ex.svcRequestId] : []))
  return { found, failedIds, failedStatus: calls.failed[0]?.status }
})

/** The status the run's failed calls answered, for the lists filtered to them. */
async function failedStatus(): Promise<number> {
  const status = (await seeded()).failedStatus
  if (status === undefined || status < 400)
    skipTest(`set-up failed: a responses call naming an unknown model answered ${String(status)}, not a failure`)
  return status
}

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
    `without page and page_size the list reports page ${DEFAULT_PAGE} and page_size ${DEFAULT_PAGE_SIZE}`,
    async () => {
      const { ex } = await listTransactions(api, {}, key)
      const body = ex.json
      precondition(isObject(body), 'P1-2.2-transactions-envelope', 'the list is not a JSON object')
      expectThat(
        body.page === DEFAULT_PAGE && body.page_size === DEFAULT_PAGE_SIZE,
        `page ${DEFAULT_PAGE} and page_size ${DEFAULT_PAGE_SIZE}`,
        `page ${JSON.stringify(body.page)}, page_size ${JSON.stringify(body.page_size)}`,
        ex,
      )
    },
  )
})

describe('query parameter ranges and pairing (Part 1 §4.2, §7, §8.5)', () => {
  const hours = `hours_ago is an integer from ${HOURS_AGO.min} to ${HOURS_AGO.max}`
  check('P1-4.2-hours-ago-range', `hours_ago=${HOURS_AGO.min} and hours_ago=${HOURS_AGO.max} are accepted`, () =>
    accepted(EDGES.hoursAgo, `hours_ago is ${HOURS_AGO.min} to ${HOURS_AGO.max}`),
  )

  check('P1-4.2-hours-ago-refused', `hours_ago ${HOURS_AGO.min - 1}, ${HOURS_AGO.max + 1} and 1.5 are refused`, () =>
    refused(
      [{ hours_ago: HOURS_AGO.min - 1 }, { hours_ago: HOURS_AGO.max + 1 }, { hours_ago: '1.5' }],
      hours,
      EDGES.hoursAgo,
      'P1-4.2-hours-ago-range',
    ),
  )

  check('P1-4.2-page-range', `page=${PAGE.min} and page=${PAGE.max} are accepted`, () =>
    accepted(EDGES.page, `page is ${PAGE.min} to ${PAGE.max}`),
  )

  check('P1-4.2-page-refused', `page ${PAGE.min - 1}, ${PAGE.max + 1} and "two" are refused`, () =>
    refused(
      [{ page: PAGE.min - 1 }, { page: PAGE.max + 1 }, { page: 'two' }],
      `page is an integer from ${PAGE.min} to ${PAGE.max}`,
      EDGES.page,
      'P1-4.2-page-range',
    ),
  )

  check('P1-4.2-page-size-range', `page_size=${PAGE_SIZE.min} and page_size=${PAGE_SIZE.max} are accepted`, () =>
    accepted(EDGES.pageSize, `page_size is ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`),
  )

  check('P1-4.2-page-size-refused', `page_size ${PAGE_SIZE.min - 1}, ${PAGE_SIZE.max + 1} and 2.5 are refused`, () =>
    refused(
      [{ page_size: PAGE_SIZE.min - 1 }, { page_size: PAGE_SIZE.max + 1 }, { page_size: '2.5' }],
      `page_size is an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`,
      EDGES.pageSize,
      'P1-4.2-page-size-range',
    ),
  )

  check('P1-4.2-date-pairing', 'start_date and end_date together are accepted, one day as both ends too', () =>
    accepted(EDGES.datePairing, 'start_date and end_date are given together'),
  )

  check('P1-4.2-date-pairing-refused', 'start_date or end_date alone is refused', () =>
    refused(
      [{ start_date: addDays(today, -1) }, { end_date: today }],
      'start_date requires end_date and end_date requires start_date',
      EDGES.datePairing,
      'P1-4.2-date-pairing',
    ),
  )

  check('P1-4.2-date-format', 'YYYY-MM-DD dates are accepted: a leap day and the last day of a year', () =>
    accepted(EDGES.dateFormat, 'dates are YYYY-MM-DD'),
  )

  check('P1-4.2-date-format-refused', 'dates other than YYYY-MM-DD are refused', () =>
    refused(
      ['2026/01/02', '20260102', `${today}T00:00:00Z`, '2026-02-30', 'yesterday'].map((bad) => ({
        start_date: bad,
        end_date: today,
      })),
      'dates are calendar dates written YYYY-MM-DD',
      EDGES.dateFormat,
      'P1-4.2-date-format',
    ),
  )
})

describe('paging (Part 1 §4.2)', () => {
  check(
    'P1-4.2-transactions-paging',
    'a page holds at most page_size transactions and echoes page and page_size',
    async () => {
      await seeded()
      // page_size 1, an edge of its range, is P1-4.2-page-size-range's to judge.
      for (const [page, pageSize] of [
        [1, 2],
        [2, 2],
        [1, 3],
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
      // Every list call is a transaction too, and the newest come first: unfiltered pages shift between two calls.
      // Paging through this key's failed calls keeps the pages still.
      const failed = await failedStatus()
      const query = { hours_ago: 1, status_code: failed }
      const pageSize = 2
      const first = await listTransactions(api, { ...query, page: 1, page_size: pageSize }, key)
      const second = await listTransactions(api, { ...query, page: 2, page_size: pageSize }, key)
      for (const { ex, items } of [first, second]) {
        const body = ex.json
        precondition(
          isObject(body) && Number.isInteger(body.total),
          'P1-2.2-transactions-envelope',
          'the list has no integer total',
        )
        precondition(
          items.length <= pageSize,
          'P1-4.2-transactions-paging',
          `page_size=${pageSize} returned more transactions`,
        )
        precondition(
          items.every((t) => t.status_code === failed),
          'P1-4.2-filter-status-code',
          `status_code=${failed} listed other statuses`,
        )
        const page = Number(body.page)
        const expected = page * pageSize < (body.total as number)
        expectThat(
          body.has_more === expected,
          `has_more ${expected} on page ${page} of total ${String(body.total)}`,
          `has_more ${JSON.stringify(body.has_more)}`,
          ex,
        )
      }
      const shared = first.items.filter((t) => second.items.some((u) => u.id === t.id)).map((t) => String(t.id))
      expectThat(shared.length === 0, 'different transactions on pages 1 and 2', `both pages hold ${shared}`, second.ex)
    },
  )
})

describe('filters (Part 1 §4.2)', () => {
  check(
    'P1-4.2-filter-status-code',
    "status_code lists only transactions with that status, the run's failed calls among them",
    async () => {
      const failed = await failedStatus()
      const { found, failedIds } = await seeded()
      // The run's failed calls listed unfiltered with their status: a list filtered to it holds them too.
      const mine = failedIds.filter((id) => found.get(id)?.status_code === failed)
      precondition(
        mine.length > 0,
        'P1-2.2-failed-call-recorded',
        `none of the run's failed calls was listed with status_code ${failed} within 30 seconds`,
      )
      for (const code of new Set([200, failed])) {
        const { ex, items } = await listPages(api, { hours_ago: 1, status_code: code }, key)
        const other = items
          .filter((t) => t.status_code !== code)
          .map((t) => `${String(t.id)} has status_code ${String(t.status_code)}`)
        expectThat(other.length === 0, `only status_code ${code}`, other, ex)
        if (code !== failed) continue
        const missing = mine.filter((id) => !items.some((t) => t.id === id))
        expectThat(
          missing.length === 0,
          `the run's failed calls (${mine.join(', ')}, listed unfiltered with status_code ${failed}) listed with status_code=${failed}`,
          `${items.length} transactions; missing: ${missing.join(', ')}`,
          ex,
        )
      }
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )

  check('P1-4.2-filter-provider', 'provider lists only transactions of that provider', async () => {
    const { found } = await seeded()
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
