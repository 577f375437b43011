/**
 * Stored responses (Part 1 §4.5: store, retrieval, input items, previous_response_id with rule 4, instructions
 * not carried over; §7 with §9.2's opaque ids: 400 or 404 for an id never issued, 404 for one never stored) and
 * background responses (§3, §4.5: queued or in_progress, cancel; "when supported", so a target that refuses them
 * or runs them in the foreground leaves those rules not observed). The reference names no way to delete a stored
 * response, so only the tests about storing store anything; every other request sends store false. Transitions of
 * background responses and what a cancelled one holds are not shown: they are recorded, not judged.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { describe } from 'vitest'
import {
  expectSetup,
  expectStatus,
  expectSuccess,
  expectThat,
  notObserved,
  precondition,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo, randomSuffix } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { responseTags } from '../../harness/worker/run-tag.ts'
import { check, target, runConfig } from '../../harness/worker/suite.ts'
import { wordChunks } from '../../harness/token-estimate.ts'
import { CAPS, create, firstChat, modelsFixture, PROMPT, responseOf, usageOf } from './fixtures.ts'

const api = target()
const models = modelsFixture(api)

/** Long instructions (about 600 words): far more tokens than a short turn's input and output together. */
const LONG_INSTRUCTIONS = Array.from(
  { length: 75 },
  (_, i) => `Rule ${i + 1}: answer politely, plainly and briefly.`,
).join(' ')

/** What is stored carries the run id: the reference names no way to delete it. */
const tags = (label: string): Record<string, unknown> => responseTags(runConfig().runId, label)

/** Stored by default (store is left out): the subject of retrieval and the first turn of a chain. */
const stored = memo(async () => {
  const model = await firstChat(models)
  const ex = await create(api, { model: model.id, input: PROMPT, max_output_tokens: CAPS.answer, ...tags('stored') })
  return { model: model.id, ex, body: responseOf(ex, 'a stored response') }
})

const notStored = memo(async () => {
  const model = await firstChat(models)
  const ex = await create(api, { model: model.id, input: 'Say hi.', max_output_tokens: CAPS.cut, store: false })
  return { model: model.id, body: responseOf(ex, 'a response with store false') }
})

/** A turn with long instructions, then a turn continuing it without any. */
const instructedChain = memo(async () => {
  const model = await firstChat(models)
  const firstEx = await create(api, {
    model: model.id,
    instructions: LONG_INSTRUCTIONS,
    input: 'Say hi.',
    max_output_tokens: CAPS.cut,
    ...tags('instructed'),
  })
  const first = responseOf(firstEx)
  const secondEx = await create(api, {
    model: model.id,
    input: 'Again.',
    previous_response_id: first.id,
    max_output_tokens: CAPS.cut,
    store: false,
  })
  return { firstEx, first, secondEx }
})

function path(id: unknown, suffix = ''): string {
  return `/v1/responses/${encodeURIComponent(String(id))}${suffix}`
}

describe('stored responses (Part 1 §4.5)', () => {
  check('P1-4.5-store-retrieve', 'a stored response is retrieved with GET /v1/responses/{response_id}', async () => {
    const { body } = await stored()
    expectSuccess(await api.get(path(body.id)), 'the retrieval of a stored response')
  })

  check(
    'P1-4.5-retrieve-same',
    'the retrieved response has the id, status and output_text of its creation',
    async () => {
      const { body } = await stored()
      const ex = await api.get(path(body.id))
      precondition(ex.status === 200, 'P1-4.5-store-retrieve', `retrieval answered ${ex.status}`)
      const got = ex.json
      const same =
        isObject(got) && got.id === body.id && got.status === body.status && got.output_text === body.output_text
      expectThat(
        same,
        `id ${String(body.id)}, status ${String(body.status)} and the same output_text`,
        isObject(got)
          ? `id ${String(got.id)}, status ${String(got.status)}, output_text ${JSON.stringify(got.output_text)?.slice(0, 120)}`
          : 'not an object',
        ex,
      )
    },
  )

  check('P1-2.7-output-text', 'a retrieved response carries output_text', async () => {
    const { body } = await stored()
    const ex = await api.get(path(body.id))
    precondition(ex.status === 200, 'P1-4.5-store-retrieve', `retrieval answered ${ex.status}`)
    const got = ex.json
    expectThat(
      isObject(got) && typeof got.output_text === 'string',
      'output_text as a string in the retrieved response',
      `output_text ${JSON.stringify(isObject(got) ? got.output_text : undefined) ?? 'absent'}`,
      ex,
    )
  })

  check('P1-7-unknown-response-404', 'a response id the target never issued is refused with 400 or 404', async () => {
    // Ids are opaque (§9.2): an id of a form the target never issues may be an invalid request as well as missing.
    expectStatus(await api.get(path(`resp_gc_no_such_${randomSuffix()}`)), [400, 404], 'an id never issued')
  })

  check('P1-7-unstored-response-404', 'the id of a response issued with store false answers 404', async () => {
    const { body } = await notStored()
    expectStatus(await api.get(path(body.id)), 404, 'issued with store false, so nothing is stored to retrieve')
  })

  check(
    'P1-4.5-input-items',
    'GET /v1/responses/{response_id}/input_items of a stored response answers 2xx',
    async () => {
      const { body } = await stored()
      const ex = await api.get(path(body.id, '/input_items'))
      expectSuccess(ex, 'the input items of a stored response')
      const list = ex.json
      const data =
        isObject(list) && Array.isArray(list.data)
          ? `an object with data (${list.data.length} items)`
          : Array.isArray(list)
            ? `an array of ${list.length}`
            : 'neither a list nor an object with data'
      observe(
        'input items (shape not shown, §4.5)',
        `${data}; ${ex.text.includes(PROMPT.slice(0, 30)) ? 'holds the input text' : 'does not hold the input text'}`,
      )
    },
  )

  check('P1-4.5-store-false', 'a response with store false is neither retrieved nor continued', async () => {
    const { model, body } = await notStored()
    const retrieved = await api.get(path(body.id))
    // Which 4xx is P1-7-unknown-response-404's to judge; here, only that nothing is retrieved.
    expectThat(
      retrieved.status >= 400 && retrieved.status < 500,
      'a 4xx: not stored, so not retrievable',
      String(retrieved.status),
      retrieved,
    )
    const chained = await create(api, {
      model,
      input: 'Again.',
      previous_response_id: body.id,
      max_output_tokens: CAPS.cut,
      store: false,
    })
    expectThat(
      chained.status >= 400 && chained.status < 500,
      'a 4xx: there is no stored chain to continue',
      String(chained.status),
      chained,
    )
  })
})

describe('chains (Part 1 §4.5 rule 4, instructions)', () => {
  check(
    'P1-4.5-chain-input-tokens',
    'rule 4: a continuing turn counts the prior input and output as input tokens',
    async () => {
      const { model, body } = await stored()
      const before = usageOf(body)
      const ex = await create(api, {
        model,
        input: 'Now say it in one sentence.',
        previous_response_id: body.id,
        max_output_tokens: CAPS.cut,
        store: false,
      })
      const after = usageOf(responseOf(ex))
      const prior = before.input + (before.output - before.reasoning)
      expectThat(
        after.input >= prior,
        `input_tokens at least ${prior} (previous input ${before.input} plus its visible output ${before.output - before.reasoning})`,
        `input_tokens ${after.input}`,
        ex,
      )
    },
  )

  check('P1-4.5-instructions-counted', 'instructions count as input tokens', async () => {
    const { firstEx, first } = await instructedChain()
    const words = wordChunks(LONG_INSTRUCTIONS)
    const input = usageOf(first).input
    expectThat(
      input >= words,
      `input_tokens at least the ${words} words of the instructions`,
      `input_tokens ${input}`,
      firstEx,
    )
  })

  check(
    'P1-4.5-instructions-not-carried',
    'a turn continuing one with long instructions, without its own, counts fewer input tokens',
    async () => {
      const { first, secondEx } = await instructedChain()
      const firstInput = usageOf(first).input
      precondition(
        firstInput >= wordChunks(LONG_INSTRUCTIONS),
        'P1-4.5-instructions-counted',
        `the first turn counted ${firstInput} input tokens for about ${wordChunks(LONG_INSTRUCTIONS)} words of instructions`,
      )
      const second = usageOf(responseOf(secondEx)).input
      expectThat(
        second < firstInput,
        `input_tokens below the first turn's ${firstInput} (its instructions are not carried over; its short input and output are)`,
        `input_tokens ${second}`,
        secondEx,
      )
    },
  )
})

const RUNNING = new Set(['queued', 'in_progress'])
const LEAVE_WITHIN_MS = 60_000
const POLL = { first: 100, max: 2_000 } // quick against a simulator, polite against a real queue

const FINISHED = new Set(['completed', 'incomplete', 'failed', 'cancelled'])

/**
 * A background response running in the background. Background runs "when supported" (§3, §4.5): a target that
 * refuses it with 400, or runs it in the foreground (a finished response, retrieved finished too), does not support
 * it, and the rules about it are not observed there.
 */
async function startBackground(): Promise<{ ex: Exchange; body: Record<string, unknown> }> {
  const model = await firstChat(models)
  const ex = await create(api, {
    model: model.id,
    input: PROMPT,
    background: true,
    max_output_tokens: CAPS.answer,
    ...tags('background'),
  })
  // 400, 403 or 404: background is not supported (or not for this key), as "when supported" allows.
  if (ex.status === 400 || ex.status === 403 || ex.status === 404)
    notObserved(
      `background true was refused with ${ex.status} (background runs when supported): ${ex.text.slice(0, 200)}`,
    )
  expectSetup(ex, '2xx', 'a background response')
  const body = ex.json
  precondition(
    isObject(body) && typeof body.id === 'string' && typeof body.status === 'string',
    'P1-2.7-response-object',
    'the background response has no id or status',
  )
  return { ex, body }
}

/** Whether a background request was answered in the foreground: finished at once, and retrieved finished too. */
async function ranInForeground(body: Record<string, unknown>): Promise<{ foreground: boolean; retrieved: string }> {
  if (!FINISHED.has(String(body.status))) return { foreground: false, retrieved: 'not retrieved' }
  const again = await api.get(path(body.id))
  const status = isObject(again.json) ? String(again.json.status) : `answer ${again.status}`
  return { foreground: again.status === 200 && status === body.status, retrieved: status }
}

async function runningOrNotObserved(): Promise<Record<string, unknown>> {
  const { body } = await started()
  if ((await ranInForeground(body)).foreground)
    notObserved(`background true was answered in the foreground (status ${String(body.status)}): not supported here`)
  return body
}

const started = memo(startBackground)

describe('background responses (Part 1 §3, §4.5)', () => {
  check('P1-3-background-status', 'a background response is answered at once, queued or in progress', async () => {
    const { ex, body } = await started()
    if (RUNNING.has(String(body.status))) return
    const { foreground, retrieved } = await ranInForeground(body)
    if (foreground)
      notObserved(`background true was answered in the foreground (status ${String(body.status)}): not supported here`)
    expectThat(
      false,
      'status queued or in_progress (or, run in the foreground, a finished response that stays finished)',
      `status ${String(body.status)}, then retrieved ${retrieved}`,
      ex,
    )
  })

  check(
    'P1-3-background-leaves',
    'polled, a background response leaves queued and in_progress',
    async () => {
      const body = await runningOrNotObserved()
      const seen: string[] = [String(body.status)]
      let last: Exchange | undefined
      let done: string | undefined
      const deadline = Date.now() + LEAVE_WITHIN_MS
      for (
        let interval = POLL.first;
        done === undefined && Date.now() < deadline;
        interval = Math.min(POLL.max, interval * 2)
      ) {
        await sleep(interval)
        last = await api.get(path(body.id))
        precondition(
          last.status === 200,
          'P1-4.5-store-retrieve',
          `retrieving the background response answered ${last.status}`,
        )
        const status = isObject(last.json) ? String(last.json.status) : 'no status'
        if (seen[seen.length - 1] !== status) seen.push(status)
        if (!RUNNING.has(status)) done = status
      }
      observe('background transitions (not shown, §3)', seen.join(' -> '))
      expectThat(
        done !== undefined,
        `a status other than queued or in_progress within ${LEAVE_WITHIN_MS / 1000} s`,
        `still ${seen[seen.length - 1]}`,
        last,
      )
    },
    { timeout: LEAVE_WITHIN_MS + 30_000 },
  )

  check('P1-4.5-background-cancel', 'cancel of a background response still running answers 2xx', async () => {
    const { body } = await startBackground()
    if ((await ranInForeground(body)).foreground)
      notObserved(`background true was answered in the foreground (status ${String(body.status)}): not supported here`)
    // Cancel is for a response still queued or in_progress: one answered in another status is not one to cancel.
    if (!RUNNING.has(String(body.status)))
      notObserved(`the background response was answered ${String(body.status)}, not queued or in_progress`)
    const ex = await api.post(path(body.id, '/cancel'), {})
    if (ex.status >= 400) {
      // The job may have finished between creation and cancel; then there was nothing left to cancel.
      const now = await api.get(path(body.id))
      const status = isObject(now.json) ? String(now.json.status) : undefined
      if (now.status === 200 && status !== undefined && !RUNNING.has(status) && status !== 'cancelled')
        skipTest(`the response finished (${status}) before the cancel arrived`)
    }
    expectThat(
      ex.status >= 200 && ex.status < 300,
      'a 2xx for a background response still queued or in progress',
      String(ex.status),
      ex,
    )
    const after = await api.get(path(body.id))
    observe(
      'after cancel (not shown, §4.5)',
      `cancel answered status ${isObject(ex.json) ? String(ex.json.status) : 'n/a'}; retrieval then answered ${after.status} with status ${isObject(after.json) ? String(after.json.status) : 'n/a'}`,
    )
  })
})
