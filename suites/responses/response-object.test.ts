/**
 * The response object and its usage (Part 1 §2.5, §2.7), inline moderation where enabled (§2.7; Part 2 §4.7),
 * statuses (§3) and the output budget (§4.5 with rule 7). output_text, the convenience final text, is judged on
 * its own, and how it relates to the output items (not shown) is recorded. A reasoning model is found by
 * observation: the model object has no flag for it, so the suite asks each chat model the caller may use for a
 * short answer and takes the first that reports reasoning tokens.
 */
import { describe } from 'vitest'
import { expectSchema, expectThat, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { mapLimit, memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import {
  CAPS,
  create,
  firstChat,
  hasUsage,
  inlineModerationOrNotObserved,
  messageText,
  moderatedBody,
  moderationToJudge,
  modelsFixture,
  PROMPT,
  responseOf,
  usageOf,
  withRoomForReasoning,
} from './fixtures.ts'
import { howToName, namedModel } from '../shared/named-models.ts'

const api = target()
const models = modelsFixture(api)
const PROBE_MODELS = 6 // at most this many chat models are asked, to bound the cost of looking

/** A short complete answer from the first usable chat model, with room for reasoning first where it needs it. */
const basic = memo(async () => {
  const model = await firstChat(models)
  return withRoomForReasoning((budget) =>
    create(api, { model: model.id, input: PROMPT, max_output_tokens: budget, store: false }),
  )
})

/** The same prompt with a budget too small for the answer. */
const cut = memo(async () => {
  const model = await firstChat(models)
  return create(api, { model: model.id, input: PROMPT, max_output_tokens: CAPS.cut, store: false })
})

/** The first chat model whose answer reports reasoning tokens, with that answer; undefined when none does. */
const reasoner = memo(async (): Promise<{ model: string; probe: Exchange } | undefined> => {
  const { chat } = await models()
  // A named reasoning model is asked first, whether or not the list offers it as a chat model.
  const named = namedModel('reasoning')
  const ids = [...(named === undefined ? [] : [named]), ...chat.map((m) => m.id).filter((id) => id !== named)]
  const probes = await mapLimit(ids.slice(0, PROBE_MODELS), 3, async (id) => ({
    model: id,
    probe: await create(api, {
      model: id,
      input: 'Say hello in one short sentence.',
      max_output_tokens: 256,
      store: false,
    }),
  }))
  const found = probes.find(({ probe }) => {
    const body = probe.json
    return (
      probe.status === 200 &&
      isObject(body) &&
      hasUsage(body) &&
      (body.usage as { output_tokens_details: { reasoning_tokens: number } }).output_tokens_details.reasoning_tokens > 0
    )
  })
  observe(
    'reasoning model (found by observation)',
    found
      ? `${found.model} reported reasoning tokens`
      : `none of ${probes.map((p) => p.model).join(', ')} reported reasoning tokens`,
  )
  return found
})

/** The reasoning model with the small budget: hidden reasoning may eat it all (rule 7). */
const reasonerCut = memo(async () => {
  const found = await reasoner()
  return found
    ? create(api, { model: found.model, input: PROMPT, max_output_tokens: CAPS.cut, store: false })
    : undefined
})

async function reasonerOrSkip(): Promise<{ model: string; probe: Exchange }> {
  const found = await reasoner()
  if (!found)
    skipTest(
      `no chat model this key may use reported reasoning tokens (asked up to ${PROBE_MODELS}), so the reasoning rules cannot be seen; ${howToName('reasoning')}`,
    )
  return found
}

function status(body: Record<string, unknown>): { status: unknown; reason: unknown } {
  return { status: body.status, reason: isObject(body.incomplete_details) ? body.incomplete_details.reason : undefined }
}

describe('response object (Part 1 §2.7)', () => {
  check('P1-2.7-response-object', 'POST /v1/responses answers id, status, output items and usage', async () => {
    const ex = await basic()
    // §7 gives "2xx success": the status class is the rule, 200 the usual member of it.
    expectThat(ex.status >= 200 && ex.status < 300, 'a 2xx answer', `${ex.status} ${ex.text.slice(0, 200)}`, ex)
    expectSchema(ex, 'responses/response.json')
    const body = ex.json as Record<string, unknown>
    expectThat(isObject(body.usage), 'a usage object on a finished response', `usage ${JSON.stringify(body.usage)}`, ex)
  })

  check('P1-2.7-output-text-matches', 'output_text is the text of the message items, joined in order', async () => {
    for (const ex of [await basic(), await cut()]) {
      const body = responseOf(ex)
      precondition(typeof body.output_text === 'string', 'P1-2.7-output-text', 'the response has no output_text')
      const joined = messageText(body)
      expectThat(
        body.output_text === joined,
        `output_text equal to the output_text parts of the message items, joined (${joined.length} characters)`,
        `output_text ${JSON.stringify(body.output_text.slice(0, 120))} (${body.output_text.length} characters); parts ${JSON.stringify(joined.slice(0, 120))}`,
        ex,
      )
    }
  })

  check('P1-2.7-output-text', 'a finished response carries output_text, the convenience final text', async () => {
    for (const ex of [await basic(), await cut()]) {
      const body = responseOf(ex)
      expectThat(
        typeof body.output_text === 'string',
        'output_text as a string',
        `output_text ${JSON.stringify(body.output_text) ?? 'absent'}`,
        ex,
      )
    }
  })
})

describe('inline moderation (Part 1 §2.7, §4.5)', () => {
  check('P1-2.7-moderation', 'moderation holds input and output results, each with flagged or an error', async () => {
    const body = await moderatedBody(models)
    // The output result needs output: a reasoning model is given room for its reasoning first (rule 7).
    const ex = await withRoomForReasoning((budget) => create(api, { ...body, max_output_tokens: budget }))
    const moderation = inlineModerationOrNotObserved(
      ex,
      isObject(ex.json) ? ex.json.moderation : undefined,
      'the moderated response',
    )
    expectSchema(
      ex,
      'responses/moderation.json',
      moderationToJudge(ex.json as Record<string, unknown>, moderation),
      'moderation',
    )
  })
})

describe('usage (Part 1 §2.5)', () => {
  check(
    'P1-2.5-usage-fields',
    'usage has input_tokens, output_tokens and output_tokens_details.reasoning_tokens',
    async () => {
      for (const ex of [await basic(), await cut()]) {
        const body = responseOf(ex)
        expectSchema(ex, 'responses/usage.json', body.usage, 'usage')
      }
    },
  )

  check(
    'P1-2.5-reasoning-breakdown',
    'reasoning_tokens is part of output_tokens, also when reasoning ate the whole budget',
    async () => {
      const found = await reasonerOrSkip()
      const cutEx = (await reasonerCut()) as Exchange
      for (const ex of [found.probe, cutEx]) {
        const usage = usageOf(responseOf(ex))
        expectThat(
          usage.reasoning <= usage.output,
          'reasoning_tokens not above output_tokens (a breakdown, not an addition)',
          `reasoning_tokens ${usage.reasoning}, output_tokens ${usage.output}`,
          ex,
        )
      }
    },
  )
})

/**
 * A completed answer that used fewer output tokens than the budget never ran out of it: not judged. Only
 * usage.output_tokens is read; without it, whether the budget ran out cannot be told (P1-2.5-usage-fields reports
 * the missing count).
 */
function fittedOrSkip(body: Record<string, unknown>, what: string): void {
  const output = isObject(body.usage) ? body.usage.output_tokens : undefined
  precondition(
    typeof output === 'number',
    'P1-2.5-usage-fields',
    `${what} is completed and its usage gives no output_tokens, so whether it ran out of its budget cannot be told`,
  )
  if (output < CAPS.cut) skipTest(`${what} fitted in ${CAPS.cut} tokens (${output}), so the budget never ran out`)
}

describe('statuses and the output budget (Part 1 §3, §4.5)', () => {
  check('P1-3-completed-status', 'an answer within its budget has status completed', async () => {
    const ex = await basic()
    const body = responseOf(ex)
    const seen = status(body)
    if (seen.status === 'incomplete' && seen.reason === 'max_output_tokens')
      skipTest(
        `the answer ran out of its ${String(body.max_output_tokens ?? CAPS.answer)}-token budget, so it cannot show the completed status`,
      )
    expectThat(
      seen.status === 'completed' && seen.reason === undefined,
      'status completed, no incomplete_details reason',
      `status ${JSON.stringify(seen.status)}, reason ${JSON.stringify(seen.reason)}`,
      ex,
    )
  })

  check(
    'P1-3-incomplete-max-output-tokens',
    'a budget too small gives status incomplete with reason max_output_tokens',
    async () => {
      const ex = await cut()
      const body = responseOf(ex)
      const seen = status(body)
      if (seen.status === 'completed') fittedOrSkip(body, 'the answer')
      expectThat(
        seen.status === 'incomplete' && seen.reason === 'max_output_tokens',
        `status incomplete with incomplete_details.reason max_output_tokens (max_output_tokens ${CAPS.cut})`,
        `status ${JSON.stringify(seen.status)}, reason ${JSON.stringify(seen.reason)}`,
        ex,
      )
    },
  )

  check(
    'P1-3-incomplete-max-output-tokens',
    'rule 7: a budget eaten by hidden reasoning is incomplete too, visible text or not',
    async () => {
      await reasonerOrSkip()
      const ex = (await reasonerCut()) as Exchange
      const body = responseOf(ex)
      const seen = status(body)
      if (seen.status === 'completed') fittedOrSkip(body, "the reasoning model's answer")
      observe(
        'rule 7 (reasoning ate the budget)',
        `max_output_tokens ${CAPS.cut}: output_text ${JSON.stringify(body.output_text)}, usage ${JSON.stringify(body.usage)}`,
      )
      expectThat(
        seen.status === 'incomplete' && seen.reason === 'max_output_tokens',
        `status incomplete with reason max_output_tokens (max_output_tokens ${CAPS.cut} on a reasoning model)`,
        `status ${JSON.stringify(seen.status)}, reason ${JSON.stringify(seen.reason)}`,
        ex,
      )
    },
  )

  check(
    'P1-4.5-max-output-tokens-cap',
    'output_tokens, reasoning included, never exceed max_output_tokens',
    async () => {
      const exchanges = [await cut(), ...((await reasoner()) ? [(await reasonerCut()) as Exchange] : [])]
      for (const ex of exchanges) {
        const usage = usageOf(responseOf(ex))
        expectThat(
          usage.output <= CAPS.cut,
          `output_tokens at most max_output_tokens ${CAPS.cut}`,
          `output_tokens ${usage.output} (reasoning_tokens ${usage.reasoning})`,
          ex,
        )
      }
      if (exchanges.length === 1)
        observe('max_output_tokens cap', 'checked on a model without reasoning only: no reasoning model was found')
    },
  )
})
