/**
 * A response as server-sent events (Part 1 §6.2-6.4). The reference names response.created,
 * response.output_text.delta, response.function_call_arguments.delta and .done, and response.completed, and
 * does not show payloads: the sequence and payloads here are the widely used convention. The terminal event is
 * response.completed, or response.incomplete when the budget ran out (§3); inline moderation results are only
 * in the terminal event's response, after the full output (§6.3).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyReply } from 'fastify'
import type { FaultSet } from '../faults.ts'
import { startSse } from '../sse.ts'
import type { PlannedItem } from './generation.ts'
import { finalStatus, renderResponse, type Draft } from './response-object.ts'

/** Under the fault stream-buffered: about what streaming the answer would have taken. */
const BUFFERED_WAIT_MS = 300

/** Starts the stream at once (reply.send happens before the first await) and writes it to the end. */
export async function streamResponse(reply: FastifyReply, draft: Draft, faults: FaultSet): Promise<void> {
  const buffered = faults.has('stream-buffered')
  const writer = startSse(reply, buffered ? { pauseMs: 0 } : {})
  // A buffering gateway waits for the whole generation, then sends everything at once.
  if (buffered) await sleep(BUFFERED_WAIT_MS)
  let sequence = 0
  const send = async (data: Record<string, unknown> & { type: string }): Promise<void> => {
    const name = faults.has('stream-event-name-mismatch') ? 'message' : data.type
    const { type, ...rest } = data
    await writer.event(name, { type, sequence_number: sequence, ...rest })
    sequence += 1
  }
  try {
    const snapshot = renderResponse(draft, 'in_progress', faults, {
      moderationEarly: faults.has('stream-moderation-early'),
    })
    const opening = [
      { type: 'response.created', response: snapshot },
      { type: 'response.in_progress', response: renderResponse(draft, 'in_progress', faults) },
    ]
    if (faults.has('stream-created-late')) opening.reverse()
    for (const event of opening) await send(event)
    for (const [index, planned] of draft.run.items.entries()) {
      if (writer.closed) return
      await sendItem(send, planned, index, faults)
    }
    if (!faults.has('stream-no-terminal')) {
      const status = finalStatus(draft, faults)
      await send({
        type: status === 'incomplete' ? 'response.incomplete' : 'response.completed',
        response: renderResponse(draft, 'final', faults),
      })
    }
  } finally {
    writer.end()
  }
}

type Send = (data: Record<string, unknown> & { type: string }) => Promise<void>

async function sendItem(send: Send, planned: PlannedItem, outputIndex: number, faults: FaultSet): Promise<void> {
  const item = planned.item
  const itemId = String(item.id)
  const opening =
    planned.kind === 'message'
      ? { ...item, status: 'in_progress', content: [] }
      : planned.kind === 'function_call'
        ? { ...item, status: 'in_progress', arguments: '' }
        : item
  await send({ type: 'response.output_item.added', output_index: outputIndex, item: opening })
  if (planned.kind === 'message') {
    const part = (item.content as Record<string, unknown>[])[0] as Record<string, unknown>
    const at = { item_id: itemId, output_index: outputIndex, content_index: 0 }
    await send({ type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } })
    for (const [i, delta] of planned.pieces.entries()) {
      if (i === 1 && faults.has('stream-delta-dropped')) continue
      await send({ type: 'response.output_text.delta', ...at, delta, logprobs: [] })
    }
    await send({ type: 'response.output_text.done', ...at, text: part.text as string })
    await send({ type: 'response.content_part.done', ...at, part })
  } else if (planned.kind === 'function_call') {
    const at = { item_id: itemId, output_index: outputIndex }
    if (!faults.has('stream-function-args-no-delta')) {
      for (const delta of planned.pieces) await send({ type: 'response.function_call_arguments.delta', ...at, delta })
    }
    await send({ type: 'response.function_call_arguments.done', ...at, arguments: item.arguments as string })
  }
  await send({ type: 'response.output_item.done', output_index: outputIndex, item })
}
