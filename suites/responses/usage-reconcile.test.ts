/**
 * Reconciling usage (Part 1 §2.2, §2.5): the transactions of the usage endpoints against the usage of the calls,
 * streamed and not. Transactions are looked up by polling (§4.2: available within 30 seconds).
 */
import { describe } from 'vitest'
import { expectThat, precondition } from '../../harness/worker/assert.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { AVAILABILITY_MS, awaitTransactions } from '../account/transactions.ts'
import { streamEvents, terminalResponse } from './events.ts'
import {
  CAPS,
  create,
  createStream,
  firstChat,
  modelsFixture,
  PROMPT,
  responseOf,
  usageOf,
  type Usage,
} from './fixtures.ts'

const api = target()
const models = modelsFixture(api)

/** One call unstreamed and one streamed, with the usage each reported. */
const calls = memo(async () => {
  const model = await firstChat(models)
  const body = { model: model.id, input: PROMPT, max_output_tokens: CAPS.answer, store: false }
  const plainEx = await create(api, body)
  const plain = usageOf(responseOf(plainEx, 'an unstreamed call to look up'))
  const streamEx = await createStream(api, body)
  const streamed = usageOf(terminalResponse(streamEvents(streamEx)))
  const ids = [plainEx.svcRequestId, streamEx.svcRequestId]
  precondition(
    ids.every((id) => id !== undefined),
    'P1-4.1-svc-request-id',
    'a call has no svc-request-id',
  )
  const found = await awaitTransactions(api, ids as string[], 'main')
  return {
    plain: { ex: plainEx, usage: plain, t: found.get(ids[0] as string) },
    streamed: { ex: streamEx, usage: streamed, t: found.get(ids[1] as string) },
  }
})

function tokensMatch(t: Record<string, unknown>, usage: Usage): string[] {
  const tokens = (t.tokens ?? {}) as Record<string, unknown>
  const problems: string[] = []
  if (tokens.prompt !== usage.input)
    problems.push(`tokens.prompt ${JSON.stringify(tokens.prompt)}, usage.input_tokens ${usage.input}`)
  if (tokens.completion !== usage.output)
    problems.push(`tokens.completion ${JSON.stringify(tokens.completion)}, usage.output_tokens ${usage.output}`)
  if (tokens.reasoning !== usage.reasoning)
    problems.push(`tokens.reasoning ${JSON.stringify(tokens.reasoning)}, reasoning_tokens ${usage.reasoning}`)
  return problems
}

describe('transactions of responses calls (Part 1 §2.2)', () => {
  check(
    'P1-2.2-responses-stream-flag',
    'a streamed call is recorded with stream true',
    async () => {
      const { streamed } = await calls()
      precondition(
        streamed.t !== undefined,
        'P1-4.2-transaction-available',
        `the streamed call's transaction was not listed within ${AVAILABILITY_MS / 1000} s`,
      )
      expectThat(streamed.t.stream === true, 'stream true', `stream ${JSON.stringify(streamed.t.stream)}`, streamed.ex)
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )

  check(
    'P1-2.2-responses-transaction-tokens',
    'the transactions carry the final token counts of usage, streamed or not',
    async () => {
      const { plain, streamed } = await calls()
      for (const [what, call] of [
        ['unstreamed', plain],
        ['streamed', streamed],
      ] as const) {
        precondition(
          call.t !== undefined,
          'P1-4.2-transaction-available',
          `the ${what} call's transaction was not listed within ${AVAILABILITY_MS / 1000} s`,
        )
        const problems = tokensMatch(call.t, call.usage)
        expectThat(problems.length === 0, `the ${what} call's transaction tokens equal to its usage`, problems, call.ex)
      }
    },
    { timeout: AVAILABILITY_MS + 60_000 },
  )
})
