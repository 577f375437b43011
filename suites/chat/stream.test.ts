/**
 * Streamed chat completions (Part 1 §4.7, §6). That chat completions stream is stated (§6.4 speaks of their
 * streaming events); their payloads are not shown, so the chunk convention is judged as SHOULD, and each
 * SHOULD check is skipped when the stream itself broke (P1-6.4-chat-stream reports that).
 */
import { describe } from 'vitest'
import { expectStatus, expectThat, fail, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/helpers.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { observe } from '../../harness/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import type { SseEvent } from '../../harness/sse.ts'
import { check, target } from '../../harness/suite.ts'
import { CAPS, catalogueFixture, modelFor } from './fixtures.ts'
import { cutStream, streamProblem } from './streams.ts'

const api = target()
const catalogue = catalogueFixture(api)

const DONE = '[DONE]'

const streamed = memo(async () => cutStream(api, (await modelFor(catalogue, 'chat')).id))

/**
 * The data-only events of a whole stream, or a skip naming P1-6.4-chat-stream. Events named by an `event:` field
 * are of other types, which may appear anywhere (§9.2): they are recorded, not judged as chunks.
 */
function eventsOf(ex: Exchange): SseEvent[] {
  const problem = streamProblem(ex)
  precondition(problem === undefined, 'P1-6.4-chat-stream', problem ?? '')
  return (ex.stream?.events ?? []).filter(isDataOnly)
}

function isDataOnly(event: SseEvent): boolean {
  return event.event === undefined || event.event === 'message'
}

/** The JSON chunks of a stream (every event but [DONE]); skips when one is not JSON (P1-6.4-chat-stream-chunks). */
function chunksOf(ex: Exchange): Record<string, unknown>[] {
  const chunks: Record<string, unknown>[] = []
  for (const event of eventsOf(ex)) {
    if (event.data === DONE) continue
    let value: unknown
    try {
      value = JSON.parse(event.data)
    } catch {
      value = undefined
    }
    precondition(
      isObject(value),
      'P1-6.4-chat-stream-chunks',
      `event ${event.index} is not a JSON object: ${event.data.slice(0, 120)}`,
    )
    chunks.push(value)
  }
  return chunks
}

describe('streaming (Part 1 §4.7, §6)', () => {
  check('P1-6.4-chat-stream', 'stream true answers text/event-stream that ends cleanly between events', async () => {
    const ex = await streamed()
    expectStatus(ex, 200)
    const problem = streamProblem(ex)
    if (problem !== undefined)
      fail(
        "a text/event-stream response with at least one event, ending cleanly between events within the reader's bounds",
        problem,
        ex,
      )
    const s = ex.stream!
    const named = s.events.filter((e) => !isDataOnly(e))
    observe(
      'chat stream',
      `${s.events.length} events over ${s.eventTimesMs[s.eventTimesMs.length - 1] ?? 0} ms; ${s.items.filter((i) => i.kind === 'comment').length} comments; last data ${JSON.stringify(s.events[s.events.length - 1]?.data.slice(0, 60))}`,
    )
    if (named.length > 0)
      observe(
        'chat stream events of other types',
        named
          .map((e) => `event ${e.index}: event "${e.event}"`)
          .slice(0, 10)
          .join('; '),
      )
  })

  check(
    'P1-6.4-chat-stream-chunks',
    'every data-only event but [DONE] is a chat.completion.chunk with one id',
    async () => {
      const ex = await streamed()
      const events = eventsOf(ex)
      expectThat(
        events.some((e) => e.data !== DONE),
        'data-only events carrying the chunks',
        `no data-only event among ${ex.stream?.events.length ?? 0}`,
        ex,
      )
      const problems: string[] = []
      const ids = new Set<unknown>()
      for (const event of events) {
        if (event.data === DONE) continue
        let value: unknown
        try {
          value = JSON.parse(event.data)
        } catch (error) {
          problems.push(`event ${event.index}: not JSON (${(error as Error).message})`)
          continue
        }
        const result = schemas().validate('chat/chunk.json', value)
        problems.push(...result.errors.map((e) => `event ${event.index}${e.startsWith('/:') ? e.slice(1) : e}`))
        if (isObject(value)) ids.add(value.id)
      }
      expectThat(problems.length === 0, 'every chunk to match chat/chunk.json', problems, ex)
      expectThat(
        ids.size === 1,
        'the same id in every chunk',
        `${ids.size} ids: ${[...ids].map(String).join(', ')}`,
        ex,
      )
      const last = chunksOf(ex).at(-1)
      observe(
        'chat stream usage',
        last !== undefined && isObject(last.usage)
          ? `with include_usage the last chunk carries usage ${JSON.stringify(last.usage)}`
          : 'no usage chunk at the end despite stream_options.include_usage',
      )
    },
  )

  check(
    'P1-6.4-chat-stream-finish',
    'finish_reason appears once, in the last chunk that carries a choice',
    async () => {
      const ex = await streamed()
      const chunks = chunksOf(ex)
      const withChoice = chunks
        .map((c, i) => ({ i, choices: Array.isArray(c.choices) ? c.choices.filter(isObject) : [] }))
        .filter((c) => c.choices.length > 0)
      const finishes = withChoice.flatMap((c) =>
        c.choices
          .filter((ch) => ch.finish_reason !== null && ch.finish_reason !== undefined)
          .map((ch) => ({ chunk: c.i, value: ch.finish_reason })),
      )
      expectThat(
        finishes.length === 1,
        'exactly one non-null finish_reason in the stream',
        finishes.length === 0 ? 'none' : finishes.map((f) => `chunk ${f.chunk}: ${JSON.stringify(f.value)}`),
        ex,
      )
      const lastWithChoice = withChoice.at(-1)?.i
      expectThat(
        finishes[0]?.chunk === lastWithChoice,
        `finish_reason in the last chunk that carries a choice (chunk ${String(lastWithChoice)})`,
        `in chunk ${String(finishes[0]?.chunk)}`,
        ex,
      )
      // Its value on a cut answer is P1-2.6-chat-finish-length's rule; here it is only recorded.
      observe(
        'chat stream finish_reason',
        `${JSON.stringify(finishes[0]?.value)} with max_completion_tokens ${CAPS.cut} on a long essay`,
      )
    },
  )

  check('P1-6.4-chat-stream-done', 'the stream ends with data: [DONE] and no chunk after it', async () => {
    const ex = await streamed()
    const events = eventsOf(ex)
    const doneAt = events.findIndex((e) => e.data === DONE)
    expectThat(
      doneAt >= 0,
      'an event whose data is [DONE]',
      `no [DONE]; the last event's data is ${JSON.stringify(events.at(-1)?.data.slice(0, 120))}`,
      ex,
    )
    expectThat(
      doneAt === events.length - 1,
      '[DONE] as the last data-only event',
      `${events.length - 1 - doneAt} data-only event(s) after [DONE]`,
      ex,
    )
    // Events of other types and comments may follow (§9.2; the SSE format allows comments anywhere): recorded.
    const doneIndex = (events[doneAt] as SseEvent).index
    const after = (ex.stream?.events ?? []).filter((e) => e.index > doneIndex)
    if (after.length > 0)
      observe(
        'after [DONE]',
        after
          .map((e) => `event ${e.index}: event "${e.event}"`)
          .slice(0, 10)
          .join('; '),
      )
  })
})
