/**
 * The transaction of a chat call (Part 1 §1.4, §2.2, §2.5, §4.2): found by its svc-request-id, it records whether
 * streaming was used, and the tokens that the response's usage reported.
 */
import { describe } from 'vitest'
import { expectThat, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/worker/suite.ts'
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
      // [DONE] or a broken chunk: the stream check records those
    }
  }
  return undefined
}

interface RecordedCall {
  ex: Exchange
  stream: boolean
  usage: Record<string, unknown> | undefined
  record: Record<string, unknown>
}

/** A plain and a streamed call, made once for both checks. */
const exchanges = memo(async () => {
  const model = await modelFor(catalogue, 'chat')
  const [plain, streamed] = await Promise.all([
    chat(api, { model: model.id, messages: [userMessage(SHORT_PROMPT)], max_completion_tokens: CAPS.answer }),
    cutStream(api, model.id),
  ])
  return { plain, streamed }
})

/** Their transactions, looked up once (the lookup waits for them to appear). */
const lookup = memo(async () => {
  const { plain, streamed } = await exchanges()
  return awaitTransactions(
    api,
    [plain, streamed].flatMap((ex) => (ex.svcRequestId === undefined ? [] : [ex.svcRequestId])),
    'main',
  )
})

/**
 * The calls that were served, with their transactions: the plain one, and the streamed one where the target streams
 * (§6.4 implies chat streaming without stating it, so a target that does not is judged on the plain call alone).
 * The running check skips, naming what it builds on, when that broke.
 */
async function recorded(): Promise<RecordedCall[]> {
  const { plain, streamed } = await exchanges()
  const plainBody = completionOf(plain)
  const plainUsage = schemas().validate('chat/usage.json', plainBody.usage).ok ? usageOf(plainBody) : undefined
  const calls: Omit<RecordedCall, 'record'>[] = [
    {
      ex: plain,
      stream: false,
      usage: plainUsage && { prompt_tokens: plainUsage.prompt, completion_tokens: plainUsage.completion },
    },
  ]
  const problem = streamProblem(streamed)
  if (problem === undefined) calls.push({ ex: streamed, stream: true, usage: streamedUsage(streamed) })
  else observe('chat transaction', `no streamed call to look up: ${problem}`)
  const ids = calls.map((c) => c.ex.svcRequestId)
  precondition(
    ids.every((id): id is string => typeof id === 'string'),
    'P1-4.1-svc-request-id',
    'a chat response had no svc-request-id to look its transaction up by',
  )
  const found = await lookup()
  precondition(
    found.size === ids.length,
    'P1-4.2-transaction-available',
    `${ids.length - found.size} of the ${ids.length} chat calls were not listed within 30 s`,
  )
  return calls.map((call) => {
    const record = found.get(call.ex.svcRequestId as string) as Record<string, unknown>
    precondition(
      schemas().validate('account/transaction.json', record).ok,
      'P1-2.2-transaction-fields',
      `transaction ${String(record.id)} lacks the fields of §2.2`,
    )
    return { ...call, record }
  })
}

function what(call: RecordedCall): string {
  return `the transaction of the ${call.stream ? 'streamed' : 'plain'} call ${call.ex.svcRequestId}`
}

describe('transactions of chat calls (Part 1 §2.2)', () => {
  check(
    'P1-2.2-chat-transaction-stream',
    'a streamed call is recorded with stream true, a plain one with stream false',
    async () => {
      for (const call of await recorded())
        expectThat(
          call.record.stream === call.stream,
          `${what(call)}: stream ${call.stream} (whether streaming was used)`,
          `stream ${JSON.stringify(call.record.stream)}`,
          call.ex,
        )
    },
  )

  check('P1-2.2-chat-transaction', "a plain and a streamed call are recorded with their usage's tokens", async () => {
    // A call without usage has nothing to compare with: the usage check and the stream's observations report that.
    const withUsage = (await recorded()).filter((call) => call.usage !== undefined)
    precondition(withUsage.length > 0, 'P1-2.5-chat-usage', 'no chat call reported usage to compare the record with')
    for (const call of withUsage) {
      if (call.usage === undefined) continue
      const tokens = call.record.tokens as Record<string, unknown>
      expectThat(
        tokens.prompt === call.usage.prompt_tokens && tokens.completion === call.usage.completion_tokens,
        `${what(call)}: tokens.prompt ${String(call.usage.prompt_tokens)} and tokens.completion ${String(call.usage.completion_tokens)}, as the response's usage`,
        `tokens ${JSON.stringify(tokens)}`,
        call.ex,
      )
    }
  })
})
