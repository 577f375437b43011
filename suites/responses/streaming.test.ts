/**
 * Streamed responses (Part 1 §6.2-6.4): server-sent events with typed events, a terminal event that ends the
 * stream, real incremental delivery, tool-call argument events, and inline moderation only after the full output
 * (§6.3). Payload shapes are not shown (§6.4), but the service is compatible with a widely used convention (§1.1):
 * what every client of it reads (names that match data.type, the payload fields it reads, deltas that join to
 * output_text) is judged as SHOULD; usage against the same request unstreamed is recorded only, and the MUST checks
 * skip when a payload cannot be read.
 */
import { describe } from 'vitest'
import { expectSchema, expectSuccess, expectThat, precondition, is2xx } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
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
  terminalEvents,
  terminalOf,
  terminalResponse,
  type TypedEvent,
} from './events.ts'
import {
  CAPS,
  create,
  createStream,
  firstChat,
  hasUsage,
  inlineModerationOrNotObserved,
  moderatedBody,
  moderationToJudge,
  messageText,
  modelsFixture,
  PROMPT,
  usageOf,
  visibleOutputOrSkip,
  WEATHER_PROMPT,
  withRoomForReasoning,
  WEATHER_TOOL,
} from './fixtures.ts'

const api = target()
const models = modelsFixture(api)

/** No temperature: no rule here is about it, and some models take only their default. */
async function body(maxOutputTokens: number): Promise<Record<string, unknown>> {
  const model = await firstChat(models)
  return { model: model.id, input: PROMPT, max_output_tokens: maxOutputTokens, store: false }
}

const complete = memo(async () => {
  const b = await body(CAPS.answer)
  return withRoomForReasoning((budget) => createStream(api, { ...b, max_output_tokens: budget }), terminalOf)
})
const cut = memo(async () => createStream(api, await body(CAPS.cut)))
const unstreamed = memo(async () => {
  const b = await body(CAPS.answer)
  return withRoomForReasoning((budget) => create(api, { ...b, max_output_tokens: budget }))
})

const MIN_SPREAD_MS = 10

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

/** Whether the events name themselves: an event: line on none, some or all of them (both framings are in use). */
function observeNames(events: readonly TypedEvent[]): void {
  const named = events.filter((e) => e.name !== undefined && e.name !== 'message').length
  observe('event: lines', `${named} of ${events.length} events carry an event: line`)
}

/** The usage of the same request streamed and not: the reference states nothing about it, so it is recorded. */
async function observeUsageAgreement(ex: Exchange): Promise<void> {
  const response = terminalEvent(streamEvents(ex))?.data?.response
  const plain = await unstreamed()
  const plainBody = plain.json
  if (!isObject(response) || !hasUsage(response) || !is2xx(plain) || !isObject(plainBody) || !hasUsage(plainBody))
    return
  const [a, b] = [usageOf(response), usageOf(plainBody)]
  observe(
    'usage streamed and not (not stated)',
    `input_tokens ${a.input} streamed, ${b.input} not; output_tokens ${a.output} and ${b.output}`,
  )
}

describe('server-sent events (Part 1 §6.2)', () => {
  check('P1-6.2-stream-sse', 'stream true answers text/event-stream with events', async () => {
    const ex = await complete()
    expectSuccess(ex, 'stream true')
    expectThat(isEventStream(ex), 'content-type text/event-stream', ex.header('content-type') ?? 'no content-type', ex)
    expectThat((ex.stream?.events.length ?? 0) > 0, 'at least one event', 'no event', ex)
    await observeUsageAgreement(ex)
  })

  check(
    'P1-6.2-stream-event-types',
    'a text stream has response.created, response.output_text.delta and response.completed',
    async () => {
      const ex = await complete()
      const events = streamEvents(ex)
      const final = terminalEvent(events)?.data?.response
      if (isObject(final) && ofType(events, TEXT_DELTA).length === 0) visibleOutputOrSkip(final, 'the text stream')
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

  check('P1-6.2-stream-terminal', 'each stream ends cleanly after a terminal event', async () => {
    for (const ex of [await complete(), await cut()]) {
      // An event stream with no event at all is P1-6.2-stream-sse's ("at least one event"): skipped, naming it.
      const events = streamEvents(ex)
      const end = ex.stream?.end
      const terminals = terminalEvents(events)
      expectThat(
        terminals.length > 0,
        'a terminal event: response.completed, response.incomplete or response.failed',
        `no terminal event among ${events.length} (last: #${events.at(-1)?.index} ${events.at(-1)?.type})`,
        ex,
      )
      expectThat(
        end?.cleanEnd === true,
        'the stream to end between events, not inside one',
        `ended by ${end?.reason}${end?.trailing ? ` inside an event: ${end.trailing.slice(0, 200)}` : ''}`,
        ex,
      )
      observeAfterTerminal(ex, terminals[0] as TypedEvent)
      observeNames(events)
    }
  })

  check('P1-6.2-stream-one-terminal', 'each stream has exactly one terminal event', async () => {
    for (const { ex, events } of await bothStreams()) {
      const terminals = terminalEvents(events)
      precondition(terminals.length > 0, 'P1-6.2-stream-terminal', 'the stream has no terminal event')
      expectThat(
        terminals.length === 1,
        'one terminal event',
        `${terminals.length} terminal events: ${terminals.map((e) => `#${e.index} ${e.type}`).join(', ')}`,
        ex,
      )
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
})

describe('payloads in the convention (Part 1 §6.2, §6.4)', () => {
  check('P1-6.2-event-name', 'an event: line, where given, names the type of its data', async () => {
    for (const { ex, events } of await bothStreams()) {
      const off = events.filter(
        (e) =>
          e.name !== undefined && e.name !== 'message' && typeof e.data?.type === 'string' && e.name !== e.data.type,
      )
      expectThat(
        off.length === 0,
        'every event: line equal to the type of its data',
        off.slice(0, 3).map((e) => `event #${e.index}: event: ${e.name}, data.type ${String(e.data?.type)}`),
        ex,
      )
    }
  })

  check(
    'P1-6.4-event-schemas',
    "events of the known types carry the fields the convention's clients read",
    async () => {
      for (const { ex, events } of await bothStreams()) {
        const problems = eventSchemaProblems(events)
        expectThat(problems.length === 0, "every known event fits the convention's schema", problems.slice(0, 5), ex)
      }
    },
  )

  check('P1-6.2-deltas-concatenate', 'the text deltas, joined in order, are the final output_text', async () => {
    const ex = await complete()
    const events = streamEvents(ex)
    const response = terminalResponse(events)
    // output_text is a convenience (§2.7): without it, the text of the final message items is what deltas build.
    const final = typeof response.output_text === 'string' ? response.output_text : messageText(response)
    const deltas = ofType(events, TEXT_DELTA).length
    precondition(deltas > 0, 'P1-6.2-stream-event-types', 'the stream has no response.output_text.delta event')
    const joined = joinedDeltas(events, TEXT_DELTA)
    precondition(joined !== undefined, 'P1-6.4-event-schemas', 'a text delta carries no delta string')
    expectThat(
      joined === final,
      `the ${deltas} text deltas joined: the final text (${final.length} characters)`,
      `${joined.length} characters: ${JSON.stringify(joined.slice(0, 120))}; final ${JSON.stringify(final.slice(0, 120))}`,
      ex,
    )
  })
})

describe('the terminal response (Part 1 §2.7)', () => {
  check('P1-2.7-output-text', "a stream's terminal response carries output_text", async () => {
    for (const ex of [await complete(), await cut()]) {
      const response = terminalResponse(streamEvents(ex))
      expectThat(
        typeof response.output_text === 'string',
        'output_text as a string in the terminal response',
        `output_text ${JSON.stringify(response.output_text) ?? 'absent'}`,
        ex,
      )
    }
  })
})

describe('incremental delivery (Part 1 §6.2)', () => {
  check('P1-6.2-streaming-real', 'the first delta arrives well before the last', async () => {
    const ex = await complete()
    const deltas = ofType(streamEvents(ex), TEXT_DELTA)
    if (deltas.length < 2) skipTest(`only ${deltas.length} delta(s): nothing to spread`)
    const last = (deltas.at(-1) as TypedEvent).atMs
    const first = (deltas[0] as TypedEvent).atMs
    const spread = last - first
    // Measured between the deltas alone, not against the time since the request: long reasoning before any text,
    // or a fast provider, says nothing about whether the text itself came in pieces read at different times.
    const wanted = MIN_SPREAD_MS
    observe('stream timing', `${deltas.length} deltas from ${deltas[0]?.atMs} ms to ${last} ms after the request`)
    expectThat(
      spread >= wanted,
      `at least ${wanted} ms between the first and the last of ${deltas.length} deltas`,
      `${spread} ms`,
      ex,
    )
  })
})

/**
 * Each done event with its argument deltas, matched by item_id, else by output_index; with one done event and no
 * key at all, every delta is its. Undefined where the pairing is ambiguous: a key missing on some events, shared by
 * several done events, or naming no done event.
 */
function argumentPairs(
  events: readonly TypedEvent[],
  dones: readonly TypedEvent[],
): Array<{ done: TypedEvent; mine: TypedEvent[] }> | undefined {
  const deltas = ofType(events, ARGS_DELTA)
  const all = [...deltas, ...dones]
  const key = (['item_id', 'output_index'] as const).find((k) => all.every((e) => e.data?.[k] !== undefined))
  if (key === undefined) return dones.length === 1 ? [{ done: dones[0] as TypedEvent, mine: deltas }] : undefined
  const keys = dones.map((d) => d.data?.[key])
  if (new Set(keys).size !== keys.length || deltas.some((d) => !keys.includes(d.data?.[key]))) return undefined
  return dones.map((done) => ({ done, mine: deltas.filter((d) => d.data?.[key] === done.data?.[key]) }))
}

const toolStream = memo(async () => {
  const model = await firstChat(models, (m) => m.functionCalling && m.toolChoice)
  const ex = await withRoomForReasoning(
    (budget) =>
      createStream(api, {
        model: model.id,
        input: WEATHER_PROMPT,
        tools: [WEATHER_TOOL],
        tool_choice: 'required',
        max_output_tokens: budget,
        store: false,
      }),
    terminalOf,
  )
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
      const pairs = argumentPairs(events, dones)
      if (pairs === undefined)
        skipTest(
          'the argument deltas cannot be told apart: neither item_id nor output_index pairs them with one done event',
        )
      for (const { done, mine } of pairs) {
        const late = mine.filter((d) => d.index > done.index).map((d) => `delta #${d.index} after done #${done.index}`)
        expectThat(late.length === 0, 'every delta before its done event', late, ex)
        // As text deltas do, the pieces make up the arguments: what a client that accumulates them runs the tool with.
        const joined = mine.map((d) => (typeof d.data?.delta === 'string' ? d.data.delta : '')).join('')
        expectThat(
          joined === done.data?.arguments,
          `the ${mine.length} argument deltas joined: the arguments of done event #${done.index}`,
          `deltas ${JSON.stringify(joined).slice(0, 120)}; done ${JSON.stringify(done.data?.arguments)?.slice(0, 120)}`,
          ex,
        )
      }
    },
  )
})

const moderatedStream = memo(async () => {
  const b = await moderatedBody(models)
  return withRoomForReasoning((budget) => createStream(api, { ...b, max_output_tokens: budget }), terminalOf)
})

/** The moderation results of the terminal response; not observed where the stream carries none (where enabled). */
function streamedModeration(ex: Exchange): { events: TypedEvent[]; moderation: unknown } {
  if (ex.status === 400) inlineModerationOrNotObserved(ex, undefined, 'the moderated stream')
  const events = streamEvents(ex)
  const response = terminalResponse(events)
  const moderation = moderationToJudge(
    response,
    inlineModerationOrNotObserved(ex, response.moderation, 'the terminal response of the stream'),
  )
  return { events, moderation }
}

describe('inline moderation in a stream (Part 1 §2.7, §6.3)', () => {
  check('P1-2.7-moderation', 'a streamed response ends with the moderation results in its terminal event', async () => {
    const ex = await moderatedStream()
    const { moderation } = streamedModeration(ex)
    expectSchema(ex, 'responses/moderation.json', moderation, 'moderation of the terminal response')
  })

  check(
    'P1-6.3-moderation-after-output',
    'no event carries moderation results before the last output delta',
    async () => {
      const ex = await moderatedStream()
      const { events } = streamedModeration(ex)
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
