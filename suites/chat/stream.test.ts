/**
 * Streamed chat completions (Part 1 §4.7, §6). §6.4 speaks of the streaming events of chat completions but shows
 * neither how a stream is asked for nor its payloads: that stream true gives a clean event stream is judged as
 * SHOULD, and what the events carry (the chunk convention, finish_reason, the [DONE] marker) is recorded.
 */
import { describe } from 'vitest'
import { expectStatus, fail } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import type { SseEvent } from '../../harness/worker/sse.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { catalogueFixture, modelFor } from './fixtures.ts'
import { cutStream, streamProblem } from './streams.ts'

const api = target()
const catalogue = catalogueFixture(api)

const DONE = '[DONE]'

const streamed = memo(async () => cutStream(api, (await modelFor(catalogue, 'chat')).id))

/** Events named by an `event:` field are of other types, which may appear anywhere (§9.2). */
function isDataOnly(event: SseEvent): boolean {
  return event.event === undefined || event.event === 'message'
}

function parsed(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data)
  } catch {
    return undefined
  }
}

/** What the data-only events of a stream carry, in the convention's terms: recorded, never judged (§6.4). */
function describeChunks(events: readonly SseEvent[]): string[] {
  const data = events.filter(isDataOnly)
  const chunks = data.filter((e) => e.data !== DONE).map((e) => ({ event: e, value: parsed(e) }))
  const notJson = chunks.filter((c) => !isObject(c.value)).length
  const conventional = chunks.filter((c) => schemas().validate('chat/chunk.json', c.value).ok).length
  const ids = new Set(chunks.map((c) => (isObject(c.value) ? c.value.id : undefined)))
  const finishes = chunks.flatMap((c) => {
    const choices = isObject(c.value) && Array.isArray(c.value.choices) ? c.value.choices.filter(isObject) : []
    return choices
      .filter((ch) => ch.finish_reason !== null && ch.finish_reason !== undefined)
      .map((ch) => `event ${c.event.index}: ${JSON.stringify(ch.finish_reason)}`)
  })
  const doneAt = data.findIndex((e) => e.data === DONE)
  const last = chunks.at(-1)?.value
  return [
    `${chunks.length} data chunks, ${conventional} of them chat.completion.chunk objects of the widely used convention, ${notJson} not JSON objects; ${ids.size} distinct id(s)`,
    `finish_reason ${finishes.length === 0 ? 'never set' : `set ${finishes.length} time(s): ${finishes.slice(0, 3).join(', ')}`}`,
    doneAt < 0
      ? 'no data: [DONE]'
      : `data: [DONE] ${doneAt === data.length - 1 ? 'ends the stream' : `followed by ${data.length - 1 - doneAt} data event(s)`}`,
    isObject(last) && isObject(last.usage)
      ? `with include_usage the last chunk carries usage ${JSON.stringify(last.usage)}`
      : 'no usage in the last chunk despite stream_options.include_usage',
  ]
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
    for (const line of describeChunks(s.events)) observe('chat stream payloads', line)
    if (named.length > 0)
      observe(
        'chat stream events of other types',
        named
          .map((e) => `event ${e.index}: event "${e.event}"`)
          .slice(0, 10)
          .join('; '),
      )
  })
})
