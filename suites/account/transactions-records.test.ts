/**
 * A call's own transaction (Part 1 §1.4, §2.2, §4.2): listed within 30 seconds under the call's svc-request-id,
 * reflecting the call, a failed call's too; found by part of its model id, by a date range around it, by its
 * safety_identifier; and the time window: hours_ago's default of 24, and hours_ago ignored when dates are given.
 */
import { describe } from 'vitest'
import {
  expectJudgeableRefusal,
  expectSchema,
  expectSetup,
  expectThat,
  isRefusal,
  precondition,
  is2xx,
} from '../../harness/worker/assert.ts'
import { addDays, isCalendarDate, todayUtc } from '../../harness/clock.ts'
import { memo, randomSuffix } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, runConfig, target } from '../../harness/worker/suite.ts'
import { create, firstChat, modelsFixture } from '../responses/fixtures.ts'
import { modelCalls } from './billed-calls.ts'
import {
  answeredAt,
  AVAILABILITY_MS,
  awaitTransactions,
  findTransactions,
  listPages,
  listTransactions,
  transactionsOf,
  type Transaction,
} from './transactions.ts'

const api = target()
const models = modelsFixture(api)

interface Call {
  ex: Exchange
  id: string
}

/** One served model call and one failed model call (a model the target does not serve), both with the main key. */
const calls = memo(async () => {
  const { model, ok, failed } = await modelCalls(api, 'main', 1)
  precondition(ok.svcRequestId !== undefined, 'P1-4.1-svc-request-id', 'the successful call has no svc-request-id')
  const miss = failed[0] as Exchange
  return {
    modelId: model,
    ok: { ex: ok, id: ok.svcRequestId } as Call,
    failed: miss.svcRequestId ? ({ ex: miss, id: miss.svcRequestId } as Call) : undefined,
    failedEx: miss,
  }
})

/** Polled once, for at most 30 seconds, by the first test that needs it. */
const listed = memo(async () => {
  const c = await calls()
  const ids = [c.ok.id, ...(c.failed ? [c.failed.id] : [])]
  return awaitTransactions(api, ids, 'main', undefined, Math.max(answeredAt(c.ok.ex), answeredAt(c.failedEx)))
})

async function ownTransaction(): Promise<{ call: Call; t: Transaction }> {
  const c = await calls()
  const t = (await listed()).get(c.ok.id)
  precondition(
    t !== undefined,
    'P1-4.2-transaction-available',
    `transaction ${c.ok.id} was not listed within 30 seconds`,
  )
  return { call: c.ok, t }
}

/**
 * POST /user/v1/transactions/lookup exists (§4.2), but its request and response shapes are not shown: what the
 * target does with the likeliest body is recorded for the reader, never judged.
 */
async function observeLookup(id: string): Promise<void> {
  const ex = await api.post('/user/v1/transactions/lookup', { ids: [id] })
  const mentions = ex.text.includes(id) ? 'the answer mentions the id' : 'the answer does not mention the id'
  observe(
    'transactions lookup (shape not shown, §4.2)',
    `POST /user/v1/transactions/lookup {"ids":[…]} answered ${ex.status}; ${mentions}`,
  )
}

describe("a call's transaction (Part 1 §2.2, §4.2)", () => {
  check(
    'P1-4.2-transaction-available',
    'a call is listed under its svc-request-id within 30 seconds',
    async () => {
      const c = await calls()
      const found = (await listed()).get(c.ok.id)
      expectThat(
        found !== undefined,
        `a transaction with id ${c.ok.id} (the svc-request-id of ${c.ok.ex.excerpt.method} ${c.ok.ex.excerpt.path}) within ${AVAILABILITY_MS / 1000} s`,
        'not listed',
        c.ok.ex,
      )
      await observeLookup(c.ok.id)
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )

  check(
    'P1-2.2-transaction-fields',
    'the transaction reflects its call: status_code, stream, safety_identifier, times',
    async () => {
      const { call, t } = await ownTransaction()
      const problems: string[] = []
      if (t.status_code !== call.ex.status)
        problems.push(`status_code ${JSON.stringify(t.status_code)}, the call answered ${call.ex.status}`)
      if (t.stream !== false) problems.push(`stream ${JSON.stringify(t.stream)} for a call that did not stream`)
      if (t.safety_identifier !== null)
        problems.push(`safety_identifier ${JSON.stringify(t.safety_identifier)} though none was given`)
      expectThat(problems.length === 0, 'a transaction matching the call', problems, call.ex)
      // Times that are no ISO 8601 strings are the envelope's to report; their order is judged here.
      const [requested, created] = [t.requested_at, t.created_at].map((time) =>
        typeof time === 'string' ? Date.parse(time) : Number.NaN,
      ) as [number, number]
      precondition(
        Number.isFinite(requested) && Number.isFinite(created),
        'P1-2.2-transactions-envelope',
        `transaction ${call.id} has requested_at ${JSON.stringify(t.requested_at)} and created_at ${JSON.stringify(t.created_at)}, not both ISO 8601 times`,
      )
      expectThat(
        requested <= created,
        'requested_at not later than created_at',
        `requested_at ${String(t.requested_at)}, created_at ${String(t.created_at)}`,
        call.ex,
      )
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )

  check(
    'P1-2.2-failed-call-recorded',
    'a failed call is listed too, with its status_code',
    async () => {
      const c = await calls()
      if (c.failedEx.status < 400)
        skipTest(`set-up failed: a responses call naming an unknown model answered ${c.failedEx.status}, not a failure`)
      precondition(c.failed !== undefined, 'P1-4.1-svc-request-id', 'the failed call has no svc-request-id')
      const t = (await listed()).get(c.failed.id)
      expectThat(
        t !== undefined,
        `a transaction with id ${c.failed.id} (${c.failed.ex.excerpt.path} answered ${c.failed.ex.status})`,
        'not listed within 30 seconds',
        c.failed.ex,
      )
      expectThat(
        t.status_code === c.failed.ex.status,
        `status_code ${c.failed.ex.status}`,
        `status_code ${JSON.stringify(t.status_code)}`,
        c.failed.ex,
      )
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )

  check(
    'P1-4.2-filter-model',
    "model matches part of the model: a prefix and a middle part each list this call's transaction",
    async () => {
      const { call, t } = await ownTransaction()
      // The model the transaction records is the one the filter matches (it may name the snapshot that served).
      const model = typeof t.model === 'string' && t.model !== '' ? t.model : (await calls()).modelId
      // Proper parts where the name is long enough to keep some: its first half, and it without its ends.
      const parts = [
        ['a prefix', model.slice(0, Math.max(1, Math.ceil(model.length / 2)))],
        ['a middle part', model.length > 3 ? model.slice(1, -1) : model],
      ] as const
      for (const [what, part] of parts) {
        const { ex, items } = await listPages(api, { hours_ago: 1, model: part }, 'main')
        const other = items
          .filter((x) => typeof x.model !== 'string' || !x.model.toLowerCase().includes(part.toLowerCase()))
          .map((x) => `${String(x.id)} has model ${String(x.model)}`)
        expectThat(other.length === 0, `only models containing "${part}" (${what} of ${model})`, other, ex)
        expectThat(
          items.some((x) => x.id === call.id),
          `this run's call ${call.id} (model ${model}) listed by ${what}, "${part}"`,
          `${items.length} transactions, not this one`,
          ex,
        )
      }
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )

  check(
    'P1-4.2-date-range',
    'a range from yesterday to tomorrow lists the call',
    async () => {
      const { call, t } = await ownTransaction()
      // The call's day as the target dated it: the target's clock, not ours, decides which day a call falls on.
      const day =
        typeof t.requested_at === 'string' && isCalendarDate(t.requested_at.slice(0, 10))
          ? t.requested_at.slice(0, 10)
          : todayUtc()
      const range = { start_date: addDays(day, -1), end_date: addDays(day, 1) }
      const found = await findTransactions(api, [call.id], 'main', range)
      expectThat(
        found.has(call.id),
        `transaction ${call.id} in start_date=${range.start_date}..end_date=${range.end_date}`,
        'not listed',
      )
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )
})

/** An api_key_id no caller is likely to hold: the largest 32-bit integer. */
const UNLIKELY_KEY_ID = '2147483647'

/** Clock skew allowed between the target and this machine when a transaction's time is judged against a window. */
const SKEW_MS = 5 * 60_000
const HOUR_MS = 3_600_000

function requestedMs(t: Transaction): number {
  return Date.parse(String(t.requested_at ?? t.created_at))
}

/**
 * The target's "now": when it says the run's call of a moment ago was requested. Its clock, not ours, bounds its
 * windows (a target may run at another date); this machine's time only where the target gave no time.
 */
function targetNowMs(own: Transaction, ex: Exchange): number {
  const ms = requestedMs(own)
  return Number.isFinite(ms) ? Math.max(ms, 0) : ex.excerpt.startedAt
}

describe('the time window of the list (Part 1 §4.2)', () => {
  check(
    'P1-4.2-hours-ago-default',
    'without hours_ago or dates, the list covers the last 24 hours',
    async () => {
      const { call, t: own } = await ownTransaction()
      const { ex, items } = await listPages(api, {}, 'main')
      expectThat(
        items.some((t) => t.id === call.id),
        `this run's call ${call.id} listed without hours_ago (default 24 hours)`,
        `${items.length} transactions, not this one`,
        ex,
      )
      const since = targetNowMs(own, ex) - 24 * HOUR_MS - SKEW_MS
      const older = items
        .filter((t) => requestedMs(t) < since)
        .map((t) => `${String(t.id)} requested_at ${String(t.requested_at)}`)
      expectThat(older.length === 0, 'no transaction requested more than 24 hours before the list', older, ex)
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )

  check(
    'P1-4.2-hours-ago-dates',
    'hours_ago is ignored when start_date and end_date are given',
    async () => {
      const { call, t } = await ownTransaction()
      // Days long past: with hours_ago obeyed instead, the call of a moment ago would be listed.
      const past = { start_date: '2001-01-01', end_date: '2001-01-02', hours_ago: 1 }
      const { ex, items } = await listPages(api, past, 'main')
      expectThat(
        !items.some((x) => x.id === call.id),
        `this run's call ${call.id} not listed for ${past.start_date}..${past.end_date} (hours_ago=1 ignored)`,
        'listed',
        ex,
      )
      // Around today, with hours_ago=1: a transaction older than an hour still belongs to the dates.
      const day =
        typeof t.requested_at === 'string' && isCalendarDate(t.requested_at.slice(0, 10))
          ? t.requested_at.slice(0, 10)
          : todayUtc()
      const range = { start_date: addDays(day, -2), end_date: addDays(day, 1) }
      const wide = await listPages(api, range, 'main')
      const old = wide.items.find((x) => requestedMs(x) < targetNowMs(t, wide.ex) - HOUR_MS - SKEW_MS)
      if (old === undefined) {
        observe(
          'hours_ago with dates',
          'the account has no transaction older than an hour in the last days, so only the past range was judged',
        )
        return
      }
      const found = await findTransactions(api, [String(old.id)], 'main', { ...range, hours_ago: 1 })
      expectThat(
        found.has(String(old.id)),
        `${String(old.id)} (requested_at ${String(old.requested_at)}) listed for ${range.start_date}..${range.end_date} with hours_ago=1`,
        'not listed',
        wide.ex,
      )
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )
})

describe('more filters (Part 1 §4.2)', () => {
  check(
    'P1-4.2-filter-safety-identifier-match',
    'a responses call made with a safety_identifier is listed by that identifier',
    async () => {
      const model = await firstChat(models)
      const identifier = `gc-${runConfig().runId}-${randomSuffix()}`.slice(0, 64)
      const ex = await create(api, {
        model: model.id,
        input: 'Say hello.',
        safety_identifier: identifier,
        max_output_tokens: 16,
      })
      expectSetup(ex, '2xx', 'a responses call with a safety_identifier')
      precondition(ex.svcRequestId !== undefined, 'P1-4.1-svc-request-id', 'the call has no svc-request-id')
      const query = { hours_ago: 1, safety_identifier: identifier }
      const found = await awaitTransactions(api, [ex.svcRequestId], 'main', query, answeredAt(ex))
      // A call not listed at all is P1-4.2-transaction-available's failure, not the filter's.
      if (!found.has(ex.svcRequestId))
        precondition(
          (await findTransactions(api, [ex.svcRequestId], 'main')).has(ex.svcRequestId),
          'P1-4.2-transaction-available',
          `the call ${ex.svcRequestId} was not listed within ${AVAILABILITY_MS / 1000} s, filtered or not`,
        )
      const list = await listTransactions(api, { ...query, page_size: 1000 })
      expectThat(
        found.has(ex.svcRequestId),
        `the call ${ex.svcRequestId} listed with safety_identifier=${identifier} within ${AVAILABILITY_MS / 1000} s`,
        'not listed',
        list.ex,
      )
      const other = list.items
        .filter((x) => x.safety_identifier !== identifier)
        .map((x) => `${String(x.id)} has safety_identifier ${JSON.stringify(x.safety_identifier)}`)
      expectThat(other.length === 0, `only transactions with safety_identifier ${identifier}`, other, list.ex)
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )

  check(
    'P1-4.2-filter-api-key-id',
    "api_key_id filters by key: another key's id lists none of the run's calls; the caller's own, where shown, lists them",
    async () => {
      const { call, t } = await ownTransaction()
      const c = await calls()
      const own = [call.id, ...(c.failed && (await listed()).has(c.failed.id) ? [c.failed.id] : [])]
      // §2.2 lists no key id and no answer shows one: only an id the target shows on the caller's own transaction
      // is known to be the caller's. Any other id, or one unlikely to be the caller's, is another key's.
      const keyId = t.api_key_id
      const known = Number.isInteger(keyId) || (typeof keyId === 'string' && /^\d+$/.test(keyId))
      const other = known ? String(Number(keyId) + 1) : UNLIKELY_KEY_ID
      const probe = await api.get('/user/v1/transactions', {
        query: { hours_ago: 1, api_key_id: other, page_size: 1000 },
      })
      // A list without the run's calls, or a refusal of the value: either way none of them is listed.
      expectJudgeableRefusal(probe)
      if (!isRefusal(probe.status)) {
        expectThat(
          is2xx(probe),
          `a list or a refusal (any 4xx other than 429) for api_key_id=${other}`,
          `status ${probe.status}`,
          probe,
        )
        const shown = transactionsOf(probe).filter((x) => own.includes(String(x.id)))
        expectThat(
          shown.length === 0,
          `none of the run's own calls (${own.join(', ')}) listed with api_key_id=${other}, ${known ? `not the ${String(keyId)} its transaction shows` : "an id unlikely to be the caller's"}`,
          shown.map((x) => `${String(x.id)} listed`),
          probe,
        )
      }
      if (!known) {
        observe(
          'api_key_id',
          `the run's transaction ${call.id} shows no api_key_id, so the filter was judged with another key's id only`,
        )
        return
      }
      const query = { hours_ago: 1, api_key_id: String(keyId) }
      const filtered = await api.get('/user/v1/transactions', { query: { ...query, page_size: 1000 } })
      expectThat(
        is2xx(filtered),
        `a 2xx for api_key_id=${String(keyId)}, the id the run's transaction shows`,
        `status ${filtered.status}`,
        filtered,
      )
      expectSchema(filtered, 'account/transactions-list.json')
      const { ex, items } = await listPages(api, query, 'main')
      expectThat(
        items.some((x) => x.id === call.id),
        `this run's call ${call.id} listed with api_key_id=${String(keyId)}`,
        `${items.length} transactions, not this one`,
        ex,
      )
      const foreign = items
        .filter((x) => x.api_key_id !== undefined && String(x.api_key_id) !== String(keyId))
        .map((x) => `${String(x.id)} shows api_key_id ${JSON.stringify(x.api_key_id)}`)
      expectThat(foreign.length === 0, `only transactions of key ${String(keyId)}`, foreign, ex)
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )
})
