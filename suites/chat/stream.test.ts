/**
 * Streamed chat completions (Part 1 §4.7, §6). §6.4 speaks of the streaming events of chat completions but shows
 * neither how a stream is asked for nor its payloads; the endpoint is compatible with a widely used convention
 * (§1.1), whose clients read its chunks, one finish_reason per choice and the [DONE] marker: each is a SHOULD.
 */
import { describe } from 'vitest'
import { expectSuccess, expectThat, fail, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
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

/** What the data-only events of a stream carry, in the convention's terms, recorded beside their checks. */
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
    expectSuccess(ex, 'stream true')
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

/** The data-only events of a whole, cleanly ended stream; skips where P1-6.4-chat-stream reports the stream. */
function dataEvents(ex: Exchange): SseEvent[] {
  const problem = streamProblem(ex)
  precondition(problem === undefined, 'P1-6.4-chat-stream', `the chat stream is not whole: ${problem}`)
  return (ex.stream as NonNullable<Exchange['stream']>).events.filter(isDataOnly)
}

/** The chunks: every data-only event but [DONE], parsed. */
function chunksOf(ex: Exchange): Array<{ event: SseEvent; value: unknown }> {
  return dataEvents(ex)
    .filter((e) => e.data !== DONE)
    .map((event) => ({ event, value: parsed(event) }))
}

/** A chunk with no choices and an empty id: not a chunk of the completion, so left unjudged. */
function isSideNote(value: unknown): boolean {
  const noChoices =
    isObject(value) && (value.choices === undefined || (Array.isArray(value.choices) && value.choices.length === 0))
  return noChoices && (value as Record<string, unknown>).id === ''
}

describe('the chunk convention (Part 1 §6.4, §1.1)', () => {
  check('P1-6.4-chat-stream-chunks', 'every chunk is a chat.completion.chunk with one id throughout', async () => {
    const ex = await streamed()
    // A chunk with no choices and an empty id is a provider's note beside the completion (prompt_filter_results).
    const all = chunksOf(ex)
    const chunks = all.filter(({ value }) => !isSideNote(value))
    if (chunks.length < all.length)
      observe('chat stream side notes', `${all.length - chunks.length} chunk(s) with no choices and an empty id`)
    const problems = chunks.flatMap(({ event, value }) =>
      schemas()
        .validate('chat/chunk.json', value)
        .errors.slice(0, 2)
        .map((error) => `event ${event.index}: ${error}`),
    )
    const ids = new Set(chunks.map((c) => (isObject(c.value) ? c.value.id : undefined)))
    if (ids.size > 1) problems.push(`${ids.size} ids: ${[...ids].slice(0, 3).map(String).join(', ')}`)
    expectThat(
      chunks.length > 0 && problems.length === 0,
      'chunks with id (the same in each), object chat.completion.chunk, created, model and choices',
      chunks.length === 0 ? 'no chunk' : problems.slice(0, 5),
      ex,
    )
  })

  check('P1-6.4-chat-stream-finish', 'each choice reports a non-null finish_reason exactly once', async () => {
    const ex = await streamed()
    const finishes = new Map<number, string[]>()
    for (const { event, value } of chunksOf(ex)) {
      const choices = isObject(value) && Array.isArray(value.choices) ? value.choices.filter(isObject) : []
      for (const choice of choices) {
        const index = typeof choice.index === 'number' ? choice.index : 0
        if (!finishes.has(index)) finishes.set(index, [])
        if (choice.finish_reason !== null && choice.finish_reason !== undefined)
          finishes.get(index)?.push(`event ${event.index}: ${JSON.stringify(choice.finish_reason)}`)
      }
    }
    const off = [...finishes].filter(([, seen]) => seen.length !== 1)
    observe('chat stream finish_reason', [...finishes].map(([i, seen]) => `choice ${i}: ${seen.join(', ')}`).join('; '))
    expectThat(
      finishes.size > 0 && off.length === 0,
      'one non-null finish_reason for each choice',
      finishes.size === 0
        ? 'no chunk carries a choice'
        : off.map(([i, seen]) => `choice ${i}: ${seen.length === 0 ? 'never set' : `set ${seen.length} times`}`),
      ex,
    )
  })

  check('P1-6.4-chat-stream-done', 'the last data-only event is data: [DONE]', async () => {
    const ex = await streamed()
    const data = dataEvents(ex)
    const at = data.findIndex((e) => e.data === DONE)
    expectThat(
      at >= 0 && at === data.length - 1,
      'data: [DONE] as the last data-only event',
      at < 0
        ? `no data: [DONE]; the last data ${JSON.stringify(data.at(-1)?.data.slice(0, 80))}`
        : `${data.length - 1 - at} data event(s) after it`,
      ex,
    )
  })
})
