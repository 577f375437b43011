/**
 * The video list and what it is for (Part 2 §2.1, §3, §4.1): the envelope, the safety_identifier and request_id
 * filters, the order, and cost: a job that starts is charged, one that did not start is not, and after an
 * interrupted create the list finds the job that was created and its status tells whether it was charged.
 *
 * Cost is read from GET /user/v1/credit (Part 1 §2.1) of an account that other suites do not charge where the
 * run has its key (tier 3: the OCR and search cost checks charge tiers 4 and 5), else of the main account. A check
 * that credit did NOT change is repeated a few times (COST_CHECK.rounds) and passes if one round shows no change:
 * another call charged to the same account at the same moment must not make a correct target fail, while a target
 * that charges failed jobs fails every round.
 */
import { afterAll, describe } from 'vitest'
import {
  expectSchema,
  expectSuccess,
  expectThat,
  fail,
  notObserved,
  precondition,
} from '../../harness/worker/assert.ts'
import type { KeySlot } from '../../harness/keys.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { dropCreate, findDropped } from './interrupt.ts'
import {
  acceptedVideo,
  CANNOT_START_MARKER,
  createVideo,
  defaultVideoModel,
  deleteCreated,
  expectCreated,
  listUntil,
  settleMs,
  settlingTimeout,
  someVideoModel,
  tag,
  type Created,
} from './jobs.ts'
import { CREDIT_SETTLE } from '../shared/credit.ts'
import {
  CREDIT_EPSILON_USD,
  creditAfterCharge,
  creditSettled,
  POLLING_TEST_TIMEOUT_MS,
  pollUntilTerminal,
  remainingUsd,
  requireCredit,
} from './poll.ts'

const api = target()
afterAll(() => deleteCreated(api))

const COST_CHECK = {
  rounds: 2, // attempts at seeing credit unchanged across a free call, against others' charges at the same moment
  marginMs: 60_000, // a round's calls besides its wait for charges to settle
}

/** A test that waits for charges to settle in each round: the settle bound (GATEWAY_SETTLE_MS) per round, and room. */
const costTimeout = (besides = 0): { timeout: number } => ({
  timeout: (COST_CHECK.rounds + 1) * (CREDIT_SETTLE.timeoutMs + COST_CHECK.marginMs) + besides,
})

/** The account whose credit the cost checks read (see the file comment). */
const LEDGER: KeySlot = (['tier3', 'main'] as const).find((slot) => api.hasKey(slot)) ?? 'main'

const CANNOT_START_PROMPT = `gateway-conformance ${CANNOT_START_MARKER}: a job that cannot start`

/** Three jobs: two with one safety_identifier, made one after the other, and one with another. */
const filtered = memo(async () => {
  const x = tag('filter-x')
  const older = await acceptedVideo(api, { label: 'filter-x-1', safetyIdentifier: x })
  const newer = await acceptedVideo(api, { label: 'filter-x-2', safetyIdentifier: x })
  const other = await acceptedVideo(api, { label: 'filter-y', safetyIdentifier: tag('filter-y') })
  return { x, older, newer, other }
})

/** The list under a filter, read until it shows every one of `ids` or the settle bound passes. */
function listShowing(query: Record<string, string>, ids: readonly string[]) {
  return listUntil(api, query, (items) => ids.every((id) => items.some((item) => item.id === id)))
}

/** The items of a list, after checking they are video jobs (P2-2.1-video-job reports those that are not). */
function jobsOf(items: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const bad = items.find((item) => !schemas().validate('videos/job.json', item).ok)
  precondition(
    bad === undefined,
    'P2-2.1-video-job',
    `a listed item is not a video job of §2.1: ${String(JSON.stringify(bad)).slice(0, 200)}`,
  )
  return items
}

describe('the list (Part 2 §2.1, §4.1)', () => {
  check(
    'P2-2.1-video-list',
    'GET /v1/videos, with and without a filter, answers an object whose data is an array',
    async () => {
      // First with no job of the run's: a target that does not serve the route fails here, and only here.
      const plain = await api.get('/v1/videos')
      expectSuccess(plain, 'GET /v1/videos lists jobs')
      expectSchema(plain, 'videos/list.json')
      // The filtered list of the run's own jobs, where the target has a model to make them with.
      if ((await someVideoModel(api)) === undefined) return
      const { x } = await filtered()
      const ex = await api.get('/v1/videos', { query: { safety_identifier: x } })
      expectSuccess(ex, 'GET /v1/videos lists jobs')
      expectSchema(ex, 'videos/list.json')
    },
  )

  check(
    'P2-4.1-list-filter-safety',
    "safety_identifier lists only the jobs with that identifier, and all of the run's",
    async () => {
      const { x, older, newer, other } = await filtered()
      const list = await listShowing({ safety_identifier: x }, [older.id, newer.id])
      const items = jobsOf(list.items)
      const strangers = items
        .filter((item) => item.safety_identifier !== x)
        .map((item) => `${String(item.id)}: ${JSON.stringify(item.safety_identifier)}`)
      expectThat(strangers.length === 0, `only jobs with safety_identifier ${x}`, strangers, list.ex)
      const ids = items.map((item) => item.id)
      const missing = [older, newer].filter((c) => !ids.includes(c.id)).map((c) => c.id)
      expectThat(
        missing.length === 0,
        `both jobs made with ${x} listed within ${settleMs()} ms`,
        `not listed: ${missing.join(', ')}`,
        list.ex,
      )
      expectThat(!ids.includes(other.id), `the job with another identifier (${other.id}) not listed`, 'listed', list.ex)
    },
    settlingTimeout(),
  )

  check(
    'P2-4.1-list-filter-request-id',
    'request_id lists exactly the job of that call',
    async () => {
      const { older } = await filtered()
      const requestId = older.job.request_id
      precondition(
        typeof requestId === 'string' && requestId !== '',
        'P2-2.1-video-job',
        `the job's request_id is ${JSON.stringify(requestId)}`,
      )
      const list = await listShowing({ request_id: requestId }, [older.id])
      const ids = jobsOf(list.items).map((item) => String(item.id))
      expectThat(
        ids.length === 1 && ids[0] === older.id,
        `exactly ${older.id}, within ${settleMs()} ms`,
        ids.length === 0 ? 'no job' : ids.join(', '),
        list.ex,
      )
    },
    settlingTimeout(),
  )

  check(
    'P2-4.1-list-newest-first',
    'of two jobs, the newer is listed first',
    async () => {
      const { x, older, newer } = await filtered()
      const list = await listShowing({ safety_identifier: x }, [older.id, newer.id])
      const ids = list.items.map((item) => item.id)
      const [at1, at2] = [ids.indexOf(older.id), ids.indexOf(newer.id)]
      precondition(
        at1 >= 0 && at2 >= 0,
        'P2-4.1-list-filter-safety',
        'the two jobs are not both listed under their safety_identifier',
      )
      expectThat(at2 < at1, `${newer.id} (made second) before ${older.id}`, `at /data/${at2} and /data/${at1}`, list.ex)
    },
    settlingTimeout(),
  )
})

const usd = (n: number): string => `$${n.toFixed(6)}`

/**
 * A job's status once it has ended (polled with the ledger's key), or its last status where it did not end in time:
 * a charge may be recorded when the job ends, so the wait for it to show starts from there.
 */
async function endedStatus(id: string, status: unknown): Promise<unknown> {
  const poll = await pollUntilTerminal(api, id, LEDGER)
  return poll.terminal ?? poll.seen.at(-1)?.status ?? status
}

describe('cost (Part 2 §3)', () => {
  check(
    'P2-3-started-charged',
    'the remaining credit goes down when a job starts',
    async () => {
      const before = requireCredit(await remainingUsd(api, LEDGER))
      const made = await acceptedVideo(api, { label: 'charged', key: LEDGER })
      if (made.job.status === 'failed') notObserved('the target did not start the job, so no charge is due')
      const status = await endedStatus(made.id, made.job.status)
      if (status === 'failed') notObserved('the job ended failed, so no charge is due')
      const after = await creditAfterCharge(api, LEDGER, before)
      observe(
        'video charge',
        `a job of ${made.model} with the defaults (${String(status)}) took ${usd(before - after.usd)} of credit, seen ${after.waitedMs} ms after it ended`,
      )
      expectThat(
        after.usd < before - CREDIT_EPSILON_USD,
        `remaining credit below ${usd(before)} within ${CREDIT_SETTLE.timeoutMs} ms of the end of a job that started (${String(status)})`,
        usd(after.usd),
        after.ex,
      )
    },
    costTimeout(POLLING_TEST_TIMEOUT_MS),
  )

  check(
    'P2-3-failed-no-cost',
    'a job that did not start leaves the remaining credit unchanged',
    async () => {
      const deltas: string[] = []
      let last: Created | undefined
      for (let round = 1; round <= COST_CHECK.rounds; round += 1) {
        const before = requireCredit(await remainingUsd(api, LEDGER))
        const made = await createVideo(api, { label: 'no-start', key: LEDGER, fields: { prompt: CANNOT_START_PROMPT } })
        last = made
        expectCreated(made, 'a valid create returns the job')
        if (made.job.status !== 'failed')
          notObserved(
            `the target started the job (status ${JSON.stringify(made.job.status)}): no client can make a job that cannot start`,
          )
        const after = await creditSettled(api, LEDGER)
        if (Math.abs(after.usd - before) <= CREDIT_EPSILON_USD) return
        deltas.push(`round ${round}: ${usd(before)} -> ${usd(after.usd)}`)
      }
      fail(
        `remaining credit unchanged across the creation of a failed job (in one of ${COST_CHECK.rounds} rounds)`,
        deltas,
        last?.ex,
      )
    },
    costTimeout(),
  )
})

/** An interrupted create of a job that starts, with the ledger's credit around it (null where unreadable). */
const interrupted = memo(async () => {
  const sid = tag('interrupted')
  const before = (await remainingUsd(api, LEDGER)).usd
  const drop = await dropCreate(
    api,
    LEDGER,
    {
      model: await defaultVideoModel(api),
      prompt: 'gateway-conformance interrupted: a kite over a beach',
      safety_identifier: sid,
    },
    'interrupted',
  )
  const found = await findDropped(api, LEDGER, sid)
  return { sid, before, drop, found }
})

describe('an interrupted create (Part 2 §4.1)', () => {
  check(
    'P2-4.1-interrupted-listed',
    'after a create whose connection was dropped, the job it created is listed',
    async () => {
      const { sid, drop, found } = await interrupted()
      observe('interrupted create', `the request was written in full and the connection dropped (${drop.how})`)
      expectThat(
        found.job !== undefined,
        `a job with safety_identifier ${sid} listed within ${found.waitedMs} ms: the server starts at submission`,
        'no such job',
        found.list.ex,
      )
    },
    settlingTimeout(),
  )

  check(
    'P2-4.1-interrupted-charged',
    'the job of an interrupted create that did not fail is charged',
    async () => {
      const { found, before } = await interrupted()
      precondition(found.job !== undefined, 'P2-4.1-interrupted-listed', 'the job of the dropped create was not listed')
      if (before === null)
        skipTest('GET /user/v1/credit answered no remaining_unit, so cost cannot be measured on this target')
      if (found.job.status === 'failed') notObserved('the job of the interrupted create failed, so no charge is due')
      const status =
        typeof found.job.id === 'string' ? await endedStatus(found.job.id, found.job.status) : found.job.status
      if (status === 'failed') notObserved('the job of the interrupted create ended failed, so no charge is due')
      // §3: a status other than failed means generation has started and cost applies, whatever its word.
      const after = await creditAfterCharge(api, LEDGER, before)
      expectThat(
        after.usd < before - CREDIT_EPSILON_USD,
        `remaining credit below ${usd(before)} within ${CREDIT_SETTLE.timeoutMs} ms of the job's end: it was ${JSON.stringify(status)}, so it started and was charged`,
        usd(after.usd),
        after.ex,
      )
    },
    costTimeout(POLLING_TEST_TIMEOUT_MS),
  )

  check(
    'P2-4.1-interrupted-charge',
    'the job of an interrupted create that failed is not charged',
    async () => {
      const { found, before } = await interrupted()
      precondition(found.job !== undefined, 'P2-4.1-interrupted-listed', 'the job of the dropped create was not listed')
      const deltas: string[] = []
      let last = found.list.ex
      for (let round = 1; round <= COST_CHECK.rounds; round += 1) {
        // The interrupted create's own job where it failed; else, and in later rounds, one with the cannot-start trigger.
        const own = round === 1 && found.job.status === 'failed'
        const credit0 = requireCredit(own ? { usd: before, ex: found.list.ex } : await remainingUsd(api, LEDGER))
        const dropped = own ? found : await dropNoStart()
        if (dropped.job === undefined || dropped.job.status !== 'failed') {
          if (deltas.length > 0) observe('interrupted create of a failed job', deltas.join('; '))
          notObserved(
            `${deltas.length > 0 ? `credit changed across ${deltas.length} round(s), and then ` : ''}no interrupted create made a failed job (the job was ${dropped.job === undefined ? 'not listed' : `listed as ${String(dropped.job.status)}`}): no client can make a job that cannot start`,
          )
        }
        last = dropped.list.ex
        const credit1 = (await creditSettled(api, LEDGER)).usd
        if (Math.abs(credit1 - credit0) <= CREDIT_EPSILON_USD) return
        deltas.push(`round ${round}: ${usd(credit0)} -> ${usd(credit1)}`)
      }
      fail(
        `remaining credit unchanged across an interrupted create whose job failed (in one of ${COST_CHECK.rounds} rounds)`,
        deltas,
        last,
      )
    },
    costTimeout(),
  )
})

/** A dropped create with the cannot-start trigger (the reference gateway's), and the list that found its job. */
async function dropNoStart() {
  const sid = tag('interrupted-no-start')
  await dropCreate(
    api,
    LEDGER,
    { model: await defaultVideoModel(api), prompt: CANNOT_START_PROMPT, safety_identifier: sid },
    'interrupted-no-start',
  )
  return findDropped(api, LEDGER, sid)
}
