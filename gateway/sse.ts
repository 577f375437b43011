/**
 * Server-sent events from a route. The stream goes out through reply.send(), so Fastify's onSend hooks still set
 * the shared headers (svc-request-id, x-request-id, rate limits) on it. Events are written with an `event:` line
 * whose name is the event's type (Part 1 §6.2), a `data:` line of JSON, and a blank line; a short pause between
 * events makes streaming real (the first delta arrives well before the last).
 */
import { PassThrough } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyReply } from 'fastify'
import { awkwardPieces, lineEnds, VARY_CLOSING, VARY_OPENING, varyJson, VARY_EVENT } from './vary.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Allowed variation of Part 1 §9.2 is on for this gateway (see vary.ts). */
    gatewayVary: boolean
  }
}

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

/**
 * One event a stream writes: `data` as JSON under an `event:` line named `name` (none: a data-only event), or, when
 * `data` is a string, a raw data line such as `[DONE]`.
 */
export interface StreamEvent {
  name?: string | undefined
  data: Record<string, unknown> | string
}

/** Writes the events in turn, and stops when the client has gone away. */
export async function writeEvents(writer: SseWriter, events: readonly StreamEvent[]): Promise<void> {
  for (const { name, data } of events) {
    if (writer.closed) return
    await (typeof data === 'string' ? writer.data(data) : writer.event(name, data))
  }
}

export function startSse(reply: FastifyReply, options: { pauseMs?: number } = {}): SseWriter {
  const pauseMs = options.pauseMs ?? SSE_WRITER_DEFAULTS.pauseMs
  const stream = new PassThrough()
  let closed = false
  stream.on('close', () => (closed = true))
  reply.raw.on('close', () => (closed = true))
  reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache')
  void reply.send(stream)
  const vary = reply.server.gatewayVary === true
  let first = true
  let count = 0
  let writes = 0
  const write = async (text: string): Promise<void> => {
    if (closed) return
    if (!first && pauseMs > 0) await sleep(pauseMs)
    first = false
    if (!vary) {
      stream.write(text)
      return
    }
    // Allowed variation: a BOM, a comment and a retry: field before the first event, CRLF and CR-only line ends
    // by turns, and every event cut across several writes at awkward places.
    const varied = lineEnds(writes === 0 ? VARY_OPENING + text : text, writes)
    writes += 1
    for (const piece of awkwardPieces(varied)) {
      stream.write(piece)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  const event = async (name: string | undefined, data: unknown): Promise<void> => {
    count += 1
    if (vary && count % 2 === 1) {
      // Unfamiliar event types may appear (§9.2): named ones only where the stream names its events at all.
      await write(
        name === undefined
          ? ': gc comment added by --vary\n\n'
          : `event: ${VARY_EVENT.name}\ndata: ${JSON.stringify(VARY_EVENT.data)}\n\n`,
      )
    }
    const json = `data: ${JSON.stringify(vary ? varyJson(data) : data)}\n`
    if (!vary) return write(`${name === undefined ? '' : `event: ${name}\n`}${json}\n`)
    // An id: field on every event; a data-only chunk, which some clients read by its data: prefix alone, gets
    // it on a line block of its own (an id: with no data dispatches nothing).
    await write(name === undefined ? `id: ${count}\n\n${json}\n` : `event: ${name}\nid: ${count}\n${json}\n`)
  }
  return {
    event,
    data: (text) => write(`data: ${text}\n\n`),
    comment: (text) => write(`: ${text}\n\n`),
    end: () => {
      if (closed) return
      // After the terminal event, an event of an unknown type and a keep-alive comment, as proxies add (§9.2).
      if (vary) stream.write(lineEnds(VARY_CLOSING, writes))
      stream.end()
    },
    get closed() {
      return closed
    },
  }
}
