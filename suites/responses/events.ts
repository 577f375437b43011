/**
 * The last layer of the SSE reader (harness/worker/sse.ts): events -> typed JSON, for streamed responses (Part 1
 * §6.2-6.4). An event's type is its data's type field, or its `event:` name when the data has none. Unknown
 * types are kept and ignored by every check (§9.2: new stream event types may appear).
 */
import { expectSetup, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { eventJson } from '../../harness/worker/sse.ts'

export interface TypedEvent {
  index: number
  /** The `event:` field, when the event had one. */
  name: string | undefined
  type: string | undefined
  data: Record<string, unknown> | undefined
  /** Why data is undefined: not JSON, or JSON but not an object. */
  dataError?: string
  /** Milliseconds after the request was sent at which the event was read. */
  atMs: number
}

export const TERMINAL_TYPES = new Set(['response.completed', 'response.incomplete', 'response.failed'])
export const TEXT_DELTA = 'response.output_text.delta'
export const ARGS_DELTA = 'response.function_call_arguments.delta'
export const ARGS_DONE = 'response.function_call_arguments.done'

/** Schemas of the event types the suite knows (§6.2 names and the convention); others are not judged. */
const EVENT_SCHEMAS: Readonly<Record<string, string>> = {
  'response.created': 'responses/events/response-created.json',
  'response.output_text.delta': 'responses/events/output-text-delta.json',
  'response.output_text.done': 'responses/events/output-text-done.json',
  'response.function_call_arguments.delta': 'responses/events/function-call-arguments-delta.json',
  'response.function_call_arguments.done': 'responses/events/function-call-arguments-done.json',
  'response.completed': 'responses/events/response-terminal.json',
  'response.incomplete': 'responses/events/response-terminal.json',
  'response.failed': 'responses/events/response-terminal.json',
}

/** An event of a type the suite knows; any other type may appear anywhere, even after the terminal event (§9.2). */
export function isKnown(event: TypedEvent): boolean {
  return event.type !== undefined && EVENT_SCHEMAS[event.type] !== undefined
}

/** A 2xx (§7: "2xx success") answered as server-sent events. */
export function isEventStream(ex: Exchange): boolean {
  return (
    ex.status >= 200 &&
    ex.status < 300 &&
    ex.stream !== undefined &&
    /^text\/event-stream\b/i.test(ex.header('content-type') ?? '')
  )
}

function typedEvents(ex: Exchange): TypedEvent[] {
  const stream = ex.stream
  if (!stream) return []
  return stream.events.map((event, i) => {
    const parsed = eventJson(event)
    const data = parsed.ok && isObject(parsed.value) ? parsed.value : undefined
    const dataError = parsed.ok
      ? data
        ? undefined
        : 'the data is JSON but not an object'
      : `the data is not JSON (${parsed.error})`
    const type = typeof data?.type === 'string' ? data.type : event.event
    return {
      index: event.index,
      name: event.event,
      type,
      data,
      ...(dataError ? { dataError } : {}),
      atMs: stream.eventTimesMs[i] ?? 0,
    }
  })
}

/** The events of a stream; skips the test when the answer was not a stream (P1-6.2-stream-sse reports it). */
export function streamEvents(ex: Exchange): TypedEvent[] {
  if (!isEventStream(ex)) expectSetup(ex, '2xx', 'a streamed response')
  precondition(
    isEventStream(ex) && (ex.stream?.events.length ?? 0) > 0,
    'P1-6.2-stream-sse',
    `${ex.excerpt.method} ${ex.excerpt.path} with stream true did not answer server-sent events`,
  )
  return typedEvents(ex)
}

/** The terminal events of a stream, in order. */
export function terminalEvents(events: readonly TypedEvent[]): TypedEvent[] {
  return events.filter((e) => e.type !== undefined && TERMINAL_TYPES.has(e.type))
}

/** The response of a stream's terminal event, without judging anything: undefined when there is none. */
export function terminalOf(ex: Exchange): unknown {
  return isEventStream(ex) ? terminalEvent(typedEvents(ex))?.data?.response : undefined
}

export function terminalEvent(events: readonly TypedEvent[]): TypedEvent | undefined {
  return terminalEvents(events).at(-1)
}

/** The response of the terminal event; skips the test when there is none (P1-6.2-stream-terminal reports it). */
export function terminalResponse(events: readonly TypedEvent[]): Record<string, unknown> {
  const terminal = terminalEvent(events)
  const response = terminal?.data?.response
  precondition(
    terminal !== undefined && isObject(response),
    'P1-6.2-stream-terminal',
    terminal ? `the terminal event #${terminal.index} carries no response object` : 'the stream has no terminal event',
  )
  return response
}

export function ofType(events: readonly TypedEvent[], type: string): TypedEvent[] {
  return events.filter((e) => e.type === type)
}

/** The delta strings of events of one type, joined in order; undefined when some delta is not a string. */
export function joinedDeltas(events: readonly TypedEvent[], type: string): string | undefined {
  const pieces = ofType(events, type).map((e) => e.data?.delta)
  return pieces.every((p): p is string => typeof p === 'string') ? pieces.join('') : undefined
}

/** Problems of the known events against their schemas, each naming the event's index and type. */
export function eventSchemaProblems(events: readonly TypedEvent[]): string[] {
  const problems: string[] = []
  for (const event of events) {
    const where = `event #${event.index} (${event.type ?? event.name ?? 'no type'})`
    // A named event of a type the suite does not know is another type (§9.2): recorded, not judged.
    if (!isKnown(event) && event.name !== undefined && event.name !== 'message') continue
    if (event.data === undefined) {
      problems.push(`${where}: ${event.dataError ?? 'no data'}`)
      continue
    }
    if (typeof event.data.type !== 'string') problems.push(`${where}: the data has no string type`)
    const ref = event.type === undefined ? undefined : EVENT_SCHEMAS[event.type]
    if (ref === undefined) continue
    for (const error of schemas().validate(ref, event.data).errors) problems.push(`${where} ${error}`)
  }
  return problems
}

/** A moderation result that says something: it carries flagged, scores or an error (a placeholder does not). */
function isResult(value: unknown): boolean {
  if (!isObject(value)) return false
  if (Array.isArray(value.results)) return value.results.some(isResult)
  return value.flagged !== undefined || value.category_scores !== undefined || value.error !== undefined
}

/**
 * Whether an event carries inline moderation results: a moderation member (of the event, or of the response it
 * holds) with an input or output result that carries flagged, scores or an error. An event merely named after
 * moderation, or a member whose results are still null, carries none.
 */
export function carriesModeration(event: TypedEvent): boolean {
  const data = event.data
  if (!data) return false
  const holds = (value: unknown): boolean => isObject(value) && (isResult(value.input) || isResult(value.output))
  return holds(data.moderation) || holds(data) || (isObject(data.response) && holds(data.response.moderation))
}
