/**
 * Streamed responses (Part 1 §6.2-6.4): server-sent events with typed events, a terminal event that ends the
 * stream, deltas that add up to the final output_text, real incremental delivery, usage that agrees with the
 * same request unstreamed, tool-call argument events, and inline moderation only after the full output (§6.3).
 * Payload shapes are not shown (§6.4): they are checked against the convention's schemas as a SHOULD, and the
 * MUST checks skip when a payload cannot be read.
 */
import { describe } from 'vitest'
import { expectSchema, expectStatus, expectThat, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/helpers.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { observe, skipTest } from '../../harness/recorder.ts'
import { check, target } from '../../harness/suite.ts'
import {
  ARGS_DELTA,
  ARGS_DONE,
  carriesModeration,
  eventSchemaProblems,
  isEventStream,
  isKnown,
  joinedDeltas,
  ofType,
  streamEvents,
  TERMINAL_TYPES,
  TEXT_DELTA,
  terminalEvent,
  terminalResponse,
  type TypedEvent,
} from './events.ts'
import {
  CAPS,
  create,
  createStream,
  firstChat,
  hasUsage,
  moderatedBody,
  moderationEnabledOrSkip,
  modelsFixture,
  PROMPT,
  responseOf,
  usageOf,
  WEATHER_PROMPT,
  WEATHER_TOOL,
} from './fixtures.ts'

const api = target()
const models = modelsFixture(api)

/** Temperature 0, so that the unstreamed twin can be compared. */
async function body(maxOutputTokens: number): Promise<Record<string, unknown>> {
  const model = await firstChat(models)
  return { model: model.id, input: PROMPT, temperature: 0, max_output_tokens: maxOutputTokens, store: false }
}

/** Some models (reasoning ones, on some targets) refuse temperature: then the request goes without it. */
async function deterministic(
  send: (b: Record<string, unknown>) => Promise<Exchange>,
  b: Record<string, unknown>,
): Promise<Exchange> {
  const ex = await send(b)
  if (ex.status !== 400 || !/temperature/i.test(ex.text)) return ex
  observe('temperature 0', `${String(b.model)} refused temperature, so the request went without it`)
  const { temperature: _, ...rest } = b
  return send(rest)
}

const complete = memo(async () => deterministic((b) => createStream(api, b), await body(CAPS.answer)))
const cut = memo(async () => deterministic((b) => createStream(api, b), await body(CAPS.cut)))
const unstreamed = memo(async () => deterministic((b) => create(api, b), await body(CAPS.answer)))

const MIN_SPREAD_MS = 10
const MIN_SPREAD_SHARE = 0.1

/** Both streams, each with its events, for the checks that hold for any stream. */
async function bothStreams(): Promise<Array<{ ex: Exchange; events: TypedEvent[] }>> {
  const out = []
  for (const ex of [await complete(), await cut()]) out.push({ ex, events: streamEvents(ex) })
  return out
}

/** What followed the terminal event (comments, events of other types: §9.2) and the stream's framing, recorded. */
function observeAfterTerminal(ex: Exchange, terminal: TypedEvent): void {
  const items = ex.stream?.items ?? []
  const at = items.findIndex((i) => i.kind === 'event' && i.index === terminal.index)
  const after = items
    .slice(at + 1)
    .map((i) =>
      i.kind === 'event'
        ? `event ${i.event ?? '(unnamed)'}`
        : i.kind === 'comment'
          ? `comment ${JSON.stringify(i.text.slice(0, 40))}`
          : `retry ${i.ms}`,
    )
  if (after.length > 0) observe('after the terminal event', after.slice(0, 10).join('; '))
  const ids = (ex.stream?.events ?? []).filter((e) => e.id !== undefined).length
  const comments = items.filter((i) => i.kind === 'comment').length
  observe(
    'stream framing',
    `${ex.stream?.events.length ?? 0} events, ${ids} with id:, ${comments} comments, retry: ${items.some((i) => i.kind === 'retry') ? 'given' : 'none'}`,
  )
}

describe('server-sent events (Part 1 §6.2)', () => {
  check('P1-6.2-stream-sse', 'stream true answers text/event-stream with events', async () => {
    const ex = await complete()
    expectStatus(ex, 200)
    expectThat(isEventStream(ex), 'content-type text/event-stream', ex.header('content-type') ?? 'no content-type', ex)
    expectThat((ex.stream?.events.length ?? 0) > 0, 'at least one event', 'no event', ex)
  })

  check(
    'P1-6.2-stream-event-types',
    'a text stream has response.created, response.output_text.delta and response.completed',
    async () => {
      const ex = await complete()
      const events = streamEvents(ex)
      const types = new Set(events.map((e) => e.type))
      const missing = ['response.created', TEXT_DELTA].filter((t) => !types.has(t))
      expectThat(
        missing.length === 0,
        'response.created and response.output_text.delta events',
        `missing ${missing.join(', ')}; types seen: ${[...types].join(', ')}`,
        ex,
      )
      // Whether a terminal event is there at all is P1-6.2-stream-terminal's; here, that a completed one has its name.
      const terminal = terminalEvent(events)
      const status = (terminal?.data?.response as Record<string, unknown> | undefined)?.status
      if (terminal && status === 'completed')
        expectThat(
          terminal.type === 'response.completed',
          'a completed response announced by response.completed',
          `event #${terminal.index} is ${terminal.type}`,
          ex,
        )
    },
  )

  check('P1-6.2-stream-terminal', 'each stream ends cleanly after one terminal event', async () => {
    for (const ex of [await complete(), await cut()]) {
      const events = streamEvents(ex)
      const end = ex.stream?.end
      const terminals = events.filter((e) => e.type !== undefined && TERMINAL_TYPES.has(e.type))
      expectThat(
        terminals.length === 1,
        'one terminal event: response.completed, response.incomplete or response.failed',
        terminals.length === 0
          ? `no terminal event among ${events.length} (last: #${events.at(-1)?.index} ${events.at(-1)?.type})`
          : `${terminals.length} terminal events`,
        ex,
      )
      expectThat(
        end?.cleanEnd === true,
        'the stream to end between events, not inside one',
        `ended by ${end?.reason}${end?.trailing ? ` inside an event: ${end.trailing.slice(0, 200)}` : ''}`,
        ex,
      )
      observeAfterTerminal(ex, terminals[0] as TypedEvent)
    }
  })

  check('P1-6.2-stream-order', 'response.created first, the terminal event last', async () => {
    for (const { ex, events } of await bothStreams()) {
      precondition(terminalEvent(events) !== undefined, 'P1-6.2-stream-terminal', 'the stream has no terminal event')
      // Order among the responses family's own events: types from elsewhere may appear anywhere (§9.2), and after
      // the terminal event so may response types the suite does not know.
      const first = events.find((e) => e.type?.startsWith('response.') === true) as TypedEvent
      const last = events.filter(isKnown).at(-1) as TypedEvent
      expectThat(first.type === 'response.created', 'response.created as event #0', `event #0 is ${first.type}`, ex)
      expectThat(
        last.type !== undefined && TERMINAL_TYPES.has(last.type),
        'the terminal event last',
        `the last event #${last.index} is ${last.type}`,
        ex,
      )
    }
  })

  check('P1-6.2-event-name', 'every event: line names the type of its data', async () => {
    for (const { ex, events } of await bothStreams()) {
      const differ = events
        .filter((e) => typeof e.data?.type === 'string' && e.name !== e.data.type)
        .map((e) => `event #${e.index}: event: ${e.name ?? '(none)'}, data.type ${String(e.data?.type)}`)
      expectThat(differ.length === 0, 'event: equal to data.type', differ.slice(0, 10), ex)
    }
  })

  check('P1-6.4-event-schemas', 'every event is JSON with a type; known events match their schemas', async () => {
    for (const { ex, events } of await bothStreams()) {
      const problems = eventSchemaProblems(events)
      expectThat(problems.length === 0, 'events matching schemas/responses/events', problems.slice(0, 20), ex)
    }
  })
})

describe('deltas and the final text (Part 1 §6.2, §2.7)', () => {
  check(
    'P1-6.2-deltas-concatenate',
    'the output_text deltas joined equal output_text of the terminal event',
    async () => {
      for (const { ex, events } of await bothStreams()) {
        const response = terminalResponse(events)
        precondition(
          typeof response.output_text === 'string',
          'P1-2.7-response-object',
          'the terminal response has no output_text',
        )
        const joined = joinedDeltas(events, TEXT_DELTA)
        precondition(
          joined !== undefined,
          'P1-6.4-event-schemas',
          'some response.output_text.delta has no string delta',
        )
        const count = ofType(events, TEXT_DELTA).length
        const text = response.output_text
        let at = 0
        while (at < joined.length && joined[at] === text[at]) at += 1
        const around = (value: string) => JSON.stringify(value.slice(Math.max(0, at - 20), at + 40))
        expectThat(
          joined === text,
          `the ${count} deltas joined equal to output_text (${text.length} characters)`,
          `they differ from character ${at}: deltas …${around(joined)}…, output_text …${around(text)}… (deltas ${joined.length} characters)`,
          ex,
        )
      }
    },
  )

  check('P1-6.2-streaming-real', 'the first delta arrives well before the last', async () => {
    const ex = await complete()
    const deltas = ofType(streamEvents(ex), TEXT_DELTA)
    if (deltas.length < 2) skipTest(`only ${deltas.length} delta(s): nothing to spread`)
    const last = (deltas.at(-1) as TypedEvent).atMs
    const spread = last - (deltas[0] as TypedEvent).atMs
    // Relative as well as absolute: a buffered answer read in a few chunks on a busy machine can spread over
    // some milliseconds, but not over a tenth of the time it took to arrive.
    const wanted = Math.max(MIN_SPREAD_MS, Math.ceil(last * MIN_SPREAD_SHARE))
    observe('stream timing', `${deltas.length} deltas from ${deltas[0]?.atMs} ms to ${last} ms after the request`)
    expectThat(
      spread >= wanted,
      `at least ${wanted} ms between the first and the last of ${deltas.length} deltas (${MIN_SPREAD_MS} ms and a tenth of ${last} ms)`,
      `${spread} ms`,
      ex,
    )
  })

  check(
    'P1-6.2-stream-usage-agrees',
    'the same request at temperature 0 reports the same usage streamed and not',
    async () => {
      const ex = await complete()
      const streamedResponse = terminalResponse(streamEvents(ex))
      precondition(
        hasUsage(streamedResponse),
        'P1-2.5-usage-fields',
        'the terminal response has no usage with the fields of §2.5',
      )
      const streamedUsage = usageOf(streamedResponse)
      const plainEx = await unstreamed()
      const plain = responseOf(plainEx)
      const plainUsage = usageOf(plain)
      expectThat(
        streamedUsage.input === plainUsage.input,
        `input_tokens ${plainUsage.input} as unstreamed`,
        `input_tokens ${streamedUsage.input} streamed`,
        ex,
      )
      if (streamedResponse.output_text !== plain.output_text) {
        observe('temperature 0', 'the streamed and unstreamed texts differ, so output_tokens were not compared')
        return
      }
      expectThat(
        streamedUsage.output === plainUsage.output,
        `output_tokens ${plainUsage.output} as unstreamed (same text)`,
        `output_tokens ${streamedUsage.output} streamed`,
        ex,
      )
    },
  )
})

const toolStream = memo(async () => {
  const model = await firstChat(models, (m) => m.functionCalling)
  const ex = await createStream(api, {
    model: model.id,
    input: WEATHER_PROMPT,
    tools: [WEATHER_TOOL],
    tool_choice: 'required',
    max_output_tokens: CAPS.answer,
    store: false,
  })
  return { ex, events: streamEvents(ex) }
})

/** Whether the stream shows a tool call at all (an added item, a done event or the final output). */
function madeToolCall(events: readonly TypedEvent[]): boolean {
  const itemIsCall = (item: unknown): boolean =>
    isObject(item) && (item.type === 'function_call' || item.name === WEATHER_TOOL.name)
  const response = terminalEvent(events)?.data?.response
  const finalOutput = isObject(response) && Array.isArray(response.output) ? response.output : []
  return (
    ofType(events, ARGS_DONE).length > 0 || events.some((e) => itemIsCall(e.data?.item)) || finalOutput.some(itemIsCall)
  )
}

describe('streamed tool calls (Part 1 §6.2)', () => {
  check(
    'P1-6.2-stream-event-types',
    'a streamed tool call has function_call_arguments delta and done events',
    async () => {
      const { ex, events } = await toolStream()
      precondition(
        madeToolCall(events),
        'P1-4.5-function-tool-call',
        'the streamed response with tool_choice required made no tool call',
      )
      const deltas = ofType(events, ARGS_DELTA).length
      const done = ofType(events, ARGS_DONE).length
      expectThat(
        deltas > 0 && done > 0,
        `${ARGS_DELTA} and ${ARGS_DONE} events`,
        `${deltas} delta and ${done} done events`,
        ex,
      )
    },
  )

  check(
    'P1-6.2-function-call-arguments',
    'argument deltas come before their done event and join to its arguments',
    async () => {
      const { ex, events } = await toolStream()
      const dones = ofType(events, ARGS_DONE)
      precondition(
        dones.length > 0 && ofType(events, ARGS_DELTA).length > 0,
        'P1-6.2-stream-event-types',
        'the stream has no argument deltas or no done event',
      )
      for (const done of dones) {
        const itemId = done.data?.item_id
        const mine = ofType(events, ARGS_DELTA).filter((d) => itemId === undefined || d.data?.item_id === itemId)
        const late = mine.filter((d) => d.index > done.index).map((d) => `delta #${d.index} after done #${done.index}`)
        expectThat(late.length === 0, 'every delta before its done event', late, ex)
        const joined = mine.map((d) => (typeof d.data?.delta === 'string' ? d.data.delta : '')).join('')
        expectThat(
          joined === done.data?.arguments,
          `the deltas of ${String(itemId ?? 'the call')} joined equal to the arguments of done #${done.index}`,
          `deltas ${JSON.stringify(joined)}; done ${JSON.stringify(done.data?.arguments)}`,
          ex,
        )
      }
    },
  )

  check('P1-6.4-event-schemas', 'the events of a tool-call stream match their schemas', async () => {
    const { ex, events } = await toolStream()
    const problems = eventSchemaProblems(events)
    expectThat(problems.length === 0, 'events matching schemas/responses/events', problems.slice(0, 20), ex)
  })
})

const moderatedStream = memo(async () => createStream(api, await moderatedBody(models)))

describe('inline moderation in a stream (Part 1 §2.7, §6.3)', () => {
  check('P1-2.7-moderation', 'a streamed response ends with the moderation results in its terminal event', async () => {
    const ex = await moderatedStream()
    moderationEnabledOrSkip(ex)
    const response = terminalResponse(streamEvents(ex))
    expectSchema(ex, 'responses/moderation.json', response.moderation, 'moderation of the terminal response')
  })

  check(
    'P1-6.3-moderation-after-output',
    'no event carries moderation results before the last output delta',
    async () => {
      const ex = await moderatedStream()
      moderationEnabledOrSkip(ex)
      const events = streamEvents(ex)
      const lastOutput = events.filter((e) => e.type === TEXT_DELTA || e.type === ARGS_DELTA).at(-1)
      const early = events.filter((e) => carriesModeration(e) && lastOutput !== undefined && e.index < lastOutput.index)
      expectThat(
        early.length === 0,
        `moderation results only after the last output delta (event #${lastOutput?.index ?? 'none'})`,
        early.map((e) => `event #${e.index} (${e.type ?? 'no type'}) carries moderation results`),
        ex,
      )
    },
  )
})
