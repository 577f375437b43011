/**
 * A response as server-sent events (Part 1 §6.2-6.4). The reference names response.created,
 * response.output_text.delta, response.function_call_arguments.delta and .done, and response.completed, and
 * does not show payloads: the sequence and payloads here are the widely used convention. The terminal event is
 * response.completed, or response.incomplete when the budget ran out (§3); inline moderation results are only
 * in the terminal event's response, after the full output (§6.3).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyReply } from 'fastify'
import type { FaultSet } from '../faults/definition.ts'
import { reshapeEvents } from '../faults/events.ts'
import { RESPONSES_STREAM_RESHAPES } from './reshapes.ts'
import { startSse, writeEvents, type StreamEvent } from '../sse.ts'
import type { PlannedItem } from './generation.ts'
import { finalStatus, renderResponse, type Draft, type Phase } from './response-object.ts'

/** Where the stream is not paced (a fault): about what streaming the answer would have taken. */
const BUFFERED_WAIT_MS = 300

type EventData = Record<string, unknown> & { type: string }

type Render = (phase: Phase) => Record<string, unknown>

/**
 * Starts the stream at once (reply.send happens before the first await) and writes it to the end. `render` is the
 * route's rendering of the response object, so that the stream's snapshots are the answers' own. `faults` picks
 * the stream reshapes; `paced` is the rule that events go out as they are made.
 */
export async function streamResponse(
  reply: FastifyReply,
  draft: Draft,
  { faults, paced }: { faults: FaultSet; paced: boolean },
  render: Render = (phase) => renderResponse(draft, phase),
): Promise<void> {
  const writer = startSse(reply, paced ? {} : { pauseMs: 0 })
  // A buffering gateway waits for the whole generation, then sends everything at once.
  if (!paced) await sleep(BUFFERED_WAIT_MS)
  try {
    const events = reshapeEvents(responseEvents(draft, render), faults, RESPONSES_STREAM_RESHAPES)
    await writeEvents(writer, events.map(numbered))
  } finally {
    writer.end()
  }
}

/** Each event is named by its type. */
function responseEvents(draft: Draft, render: Render): StreamEvent[] {
  const terminal = finalStatus(draft) === 'incomplete' ? 'response.incomplete' : 'response.completed'
  const data: EventData[] = [
    { type: 'response.created', response: render('in_progress') },
    { type: 'response.in_progress', response: render('in_progress') },
    ...draft.run.items.flatMap(itemEvents),
    { type: terminal, response: render('final') },
  ]
  return data.map((event) => ({ name: event.type, data: event }))
}

/** sequence_number counts the events as they are written, from 0. */
function numbered(event: StreamEvent, sequence: number): StreamEvent {
  if (typeof event.data === 'string') return event
  const { type, ...rest } = event.data
  return { ...event, data: { type, sequence_number: sequence, ...rest } }
}

function itemEvents(planned: PlannedItem, outputIndex: number): EventData[] {
  const item = planned.item
  const itemId = String(item.id)
  const opening =
    planned.kind === 'message'
      ? { ...item, status: 'in_progress', content: [] }
      : planned.kind === 'function_call'
        ? { ...item, status: 'in_progress', arguments: '' }
        : item
  const events: EventData[] = [{ type: 'response.output_item.added', output_index: outputIndex, item: opening }]
  if (planned.kind === 'message') {
    const part = (item.content as Record<string, unknown>[])[0] as Record<string, unknown>
    const at = { item_id: itemId, output_index: outputIndex, content_index: 0 }
    events.push(
      { type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } },
      ...planned.pieces.map((delta) => ({ type: 'response.output_text.delta', ...at, delta, logprobs: [] })),
      { type: 'response.output_text.done', ...at, text: part.text as string },
      { type: 'response.content_part.done', ...at, part },
    )
  } else if (planned.kind === 'function_call') {
    const at = { item_id: itemId, output_index: outputIndex }
    events.push(...planned.pieces.map((delta) => ({ type: 'response.function_call_arguments.delta', ...at, delta })), {
      type: 'response.function_call_arguments.done',
      ...at,
      arguments: item.arguments as string,
    })
  }
  events.push({ type: 'response.output_item.done', output_index: outputIndex, item })
  return events
}
