/**
 * A chat completion as server-sent events. The reference does not show the payloads (Part 1 section 6.4);
 * this gateway follows the widely used chunk convention: data-only events, each a `chat.completion.chunk`
 * with the completion's id, created and model; the first delta carries the role, then one delta per token
 * piece, then a chunk with an empty delta and the finish_reason (its only appearance); with
 * stream_options.include_usage a last chunk with no choices carries usage; then `data: [DONE]`.
 *
 * Inline moderation results arrive after the whole output, never with the deltas (section 6.3).
 */
import { PassThrough } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { FaultSet } from '../faults/definition.ts'
import { CHAT_STREAM_RESHAPES } from './reshapes.ts'
import { MODERATION_INLINE_STREAM_RESHAPES } from '../moderation/reshapes.ts'
import { reshapeEvents } from '../faults/events.ts'
import { startSse, writeEvents, type StreamEvent } from '../sse.ts'
import type { ChatAnswer } from './answer.ts'

export interface CompletionHead {
  id: string
  created: number
  model: string
}

export interface StreamExtras {
  includeUsage: boolean
  usage: unknown
  moderation: unknown
  /** Under `prompt-filter-chunk`: a chunk with no choices and an empty id first, as a provider's content filter sends. */
  promptFilter: boolean
}

/** The note a provider's content filter sends before the completion's chunks: no choices, an empty id. */
const PROMPT_FILTER_CHUNK = {
  id: '',
  object: '',
  created: 0,
  model: '',
  choices: [],
  prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' } } }],
}

/** The stream reshapes of the chunks; the inline moderation results ride on the chunks too. */
const STREAM_RESHAPES = { ...CHAT_STREAM_RESHAPES, ...MODERATION_INLINE_STREAM_RESHAPES }

/**
 * Writes the chunks; `faults` picks the stream reshapes, and `whole` is the chat rule that a stream is written to
 * its end (./rules.ts).
 */
export async function streamChat(
  reply: FastifyReply,
  head: CompletionHead,
  answer: ChatAnswer,
  extras: StreamExtras,
  { faults, whole }: { faults: FaultSet; whole: boolean },
): Promise<void> {
  const events = reshapeEvents(chatEvents(head, answer, extras), faults, STREAM_RESHAPES)
  if (!whole) return cutStream(reply, events)
  const writer = startSse(reply)
  await writeEvents(writer, events)
  writer.end()
}

/** The chunks as data-only events, then [DONE]. */
function chatEvents(head: CompletionHead, answer: ChatAnswer, extras: StreamExtras): StreamEvent[] {
  const chunk = (choices: unknown[], more: Record<string, unknown> = {}) => ({
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices,
    ...(extras.includeUsage ? { usage: null } : {}),
    ...more,
  })
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  })
  const out: Record<string, unknown>[] = extras.promptFilter ? [PROMPT_FILTER_CHUNK] : []
  const call = answer.toolCall
  if (call) {
    out.push(
      chunk([
        choice({
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
        }),
      ]),
    )
    for (const piece of answer.pieces)
      out.push(chunk([choice({ tool_calls: [{ index: 0, function: { arguments: piece } }] })]))
  } else {
    out.push(chunk([choice({ role: 'assistant', content: '' })]))
    for (const piece of answer.pieces) out.push(chunk([choice({ content: piece })]))
  }
  out.push(chunk([choice({}, answer.finish)]))
  if (extras.moderation !== undefined) out.push(chunk([], { moderation: extras.moderation }))
  if (extras.includeUsage) out.push(chunk([], { usage: extras.usage }))
  return [...out.map((data) => ({ data })), { data: '[DONE]' }]
}

/** A stream not written whole (chat-stream-cut): the first chunk whole, then it ends inside the second event. */
function cutStream(reply: FastifyReply, events: readonly StreamEvent[]): void {
  const chunks = events.map((event) => event.data)
  const stream = new PassThrough()
  reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache')
  void reply.send(stream)
  const second = JSON.stringify(chunks[1] ?? {})
  stream.end(`data: ${JSON.stringify(chunks[0])}\n\ndata: ${second.slice(0, Math.ceil(second.length / 2))}`)
}
