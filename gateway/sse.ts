/**
 * Server-sent events from a route. The stream goes out through reply.send(), so Fastify's onSend hooks still set
 * the shared headers (svc-request-id, x-request-id, rate limits) on it. Events are written with an `event:` line
 * whose name is the event's type (Part 1 §6.2), a `data:` line of JSON, and a blank line; a short pause between
 * events makes streaming real (the first delta arrives well before the last).
 */
import { PassThrough } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyReply } from 'fastify'

export const SSE_WRITER_DEFAULTS = {
  pauseMs: 3, // between events: enough for a client to see them arrive apart, short enough for fast self-tests
}

export interface SseWriter {
  /** Writes one event; `name` undefined writes a data-only event (the chat-completions chunk convention). */
  event(name: string | undefined, data: unknown): Promise<void>
  /** A raw data line such as `[DONE]`. */
  data(text: string): Promise<void>
  comment(text: string): Promise<void>
  end(): void
  /** True once the client has gone away: stop generating. */
  readonly closed: boolean
}

export function startSse(reply: FastifyReply, options: { pauseMs?: number } = {}): SseWriter {
  const pauseMs = options.pauseMs ?? SSE_WRITER_DEFAULTS.pauseMs
  const stream = new PassThrough()
  let closed = false
  stream.on('close', () => (closed = true))
  reply.raw.on('close', () => (closed = true))
  reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache')
  void reply.send(stream)
  let first = true
  const write = async (text: string): Promise<void> => {
    if (closed) return
    if (!first && pauseMs > 0) await sleep(pauseMs)
    first = false
    stream.write(text)
  }
  return {
    event: (name, data) => write(`${name === undefined ? '' : `event: ${name}\n`}data: ${JSON.stringify(data)}\n\n`),
    data: (text) => write(`data: ${text}\n\n`),
    comment: (text) => write(`: ${text}\n\n`),
    end: () => {
      if (!closed) stream.end()
    },
    get closed() {
      return closed
    },
  }
}
