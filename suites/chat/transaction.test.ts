/**
 * The transaction of a chat call (Part 1 §1.4, §2.2, §2.5, §4.2): found by its svc-request-id, it records the
 * stream flag and the tokens that the response's usage reported.
 */
import { describe } from 'vitest'
import { expectThat, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/suite.ts'
import { awaitTransactions } from '../account/transactions.ts'
import { CAPS, catalogueFixture, chat, completionOf, modelFor, SHORT_PROMPT, usageOf, userMessage } from './fixtures.ts'
import { cutStream, streamProblem } from './streams.ts'

const api = target()
const catalogue = catalogueFixture(api)

/** The usage a stream reported in its last chunks (stream_options.include_usage), if any. */
function streamedUsage(ex: Exchange): Record<string, unknown> | undefined {
  for (const event of [...(ex.stream?.events ?? [])].reverse()) {
    try {
      const value = JSON.parse(event.data) as unknown
      if (isObject(value) && isObject(value.usage)) return value.usage
    } catch {
      // [DONE] or a broken chunk: the stream checks report those
    }
  }
  return undefined
}

describe('transactions of chat calls (Part 1 §2.2)', () => {
  check(
    'P1-2.2-chat-transaction',
    'a plain and a streamed call are recorded with their stream flag and usage tokens',
    async () => {
      const model = await modelFor(catalogue, 'chat')
      const [plain, streamed] = await Promise.all([
        chat(api, {
          model: model.id,
          messages: [userMessage(SHORT_PROMPT)],
          max_completion_tokens: CAPS.answer,
          temperature: 0,
        }),
        cutStream(api, model.id),
      ])
      const plainUsage = usageOf(completionOf(plain))
      precondition(streamProblem(streamed) === undefined, 'P1-6.4-chat-stream', streamProblem(streamed) ?? '')
      const calls = [
        {
          ex: plain,
          stream: false,
          usage: { prompt_tokens: plainUsage.prompt, completion_tokens: plainUsage.completion } as Record<
            string,
            unknown
          >,
        },
        { ex: streamed, stream: true, usage: streamedUsage(streamed) },
      ]
      const ids = calls.map((c) => c.ex.svcRequestId)
      precondition(
        ids.every((id): id is string => typeof id === 'string'),
        'P1-4.1-svc-request-id',
        'a chat response had no svc-request-id to look its transaction up by',
      )
      const found = await awaitTransactions(api, ids, 'main')
      precondition(
        found.size === ids.length,
        'P1-4.2-transaction-available',
        `${ids.length - found.size} of the ${ids.length} chat calls were not listed within 30 s`,
      )
      for (const call of calls) {
        const record = found.get(call.ex.svcRequestId as string) as Record<string, unknown>
        precondition(
          schemas().validate('account/transaction.json', record).ok,
          'P1-2.2-transaction-fields',
          `transaction ${String(record.id)} lacks the fields of §2.2`,
        )
        const tokens = record.tokens as Record<string, unknown>
        const what = `the transaction of the ${call.stream ? 'streamed' : 'plain'} call ${call.ex.svcRequestId}`
        expectThat(
          record.stream === call.stream,
          `${what}: stream ${call.stream}`,
          `stream ${String(record.stream)}`,
          call.ex,
        )
        if (call.usage === undefined) continue // the stream gave no usage to compare with; the stream checks record that
        expectThat(
          tokens.prompt === call.usage.prompt_tokens && tokens.completion === call.usage.completion_tokens,
          `${what}: tokens.prompt ${String(call.usage.prompt_tokens)} and tokens.completion ${String(call.usage.completion_tokens)}, as the response's usage`,
          `tokens ${JSON.stringify(tokens)}`,
          call.ex,
        )
      }
    },
  )
})
