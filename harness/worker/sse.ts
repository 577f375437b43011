/**
 * Server-sent events, in layers: bytes -> text (streaming UTF-8 decode, a leading BOM dropped, byte and
 * time caps), text -> events (eventsource-parser, which handles LF, CRLF and CR line ends, comments, id and retry
 * fields, multi-line data and fields split anywhere), and at the end a verdict on whether the stream stopped
 * cleanly between events or in the middle of one. Comments, id:, retry: and unknown fields may come anywhere, before
 * the first event and after the last, as the SSE format allows. Suites add the last layer: events -> typed JSON.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'

export const SSE_DEFAULTS = {
  maxBytes: 8 * 1024 * 1024, // bytes; a long streamed response is well under this; an endless stream is not
  maxEvents: 20_000, // events; a long answer streamed word by word is well under this
  idleTimeoutMs: 30_000, // ms between two chunks (the client lowers it to the request's deadline)
  totalTimeoutMs: 300_000, // ms for the whole stream (the client lowers it to the request's deadline)
}

export type SseLimits = typeof SSE_DEFAULTS

export interface SseEvent {
  kind: 'event'
  /** The `event:` field, or undefined when the event had none (its type is then "message"). */
  event: string | undefined
  data: string
  id: string | undefined
  /** Zero-based position among the events of the stream, for failure messages. */
  index: number
}

interface SseComment {
  kind: 'comment'
  text: string
}

/** A `retry:` field: the reconnection time the server asks for, in ms. */
interface SseRetry {
  kind: 'retry'
  ms: number
}

export type SseItem = SseEvent | SseComment | SseRetry

/** How the stream ended. `cleanEnd` is false when it stopped inside an event (no blank line after it). */
export interface SseEnd {
  reason: 'end' | 'max-bytes' | 'max-events' | 'idle-timeout' | 'total-timeout'
  cleanEnd: boolean
  bytes: number
  events: number
  /** Text after the last complete event, when the stream stopped inside one. */
  trailing: string
}

/** Fields that make a block of lines an event: cut before its blank line, the event is lost. */
const EVENT_FIELDS = new Set(['data', 'event'])
const EVIDENCE_CHARS = 500

/**
 * Follows the stream line by line, as the SSE format splits it (CRLF, LF or CR), to tell where it ended: between
 * events, or inside one (a data or event field, or a field cut mid-line, with no blank line after it). Comments,
 * id: and retry: lines on their own are not events, so a stream may end after them.
 */
export class LineTracker {
  #line = ''
  #afterCr = false
  #open = false
  #block = ''

  feed(text: string): void {
    if (text === '') return
    const from = this.#afterCr && text.startsWith('\n') ? 1 : 0
    this.#afterCr = text.endsWith('\r')
    const lines = text.slice(from).split(/\r\n|\r|\n/)
    for (let i = 0; i < lines.length - 1; i += 1) this.#endLine(this.#line + (lines[i] as string))
    const rest = lines.at(-1) as string
    this.#line = this.#line.length < EVIDENCE_CHARS ? this.#line + rest : this.#line
  }

  /** True when the last text fed ended with CR, which the next text may pair with an LF. */
  get endsWithCr(): boolean {
    return this.#afterCr
  }

  /** True when the stream, ending here, ends between events. */
  get between(): boolean {
    return !this.#open && (this.#line === '' || this.#line.startsWith(':'))
  }

  /** The lines of the event the stream ended inside, for a failure message; '' when it ended between events. */
  get trailing(): string {
    return this.between ? '' : (this.#block + this.#line).slice(0, EVIDENCE_CHARS)
  }

  #endLine(line: string): void {
    this.#line = ''
    if (line === '') {
      this.#open = false
      this.#block = ''
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    if (EVENT_FIELDS.has(colon === -1 ? line : line.slice(0, colon))) this.#open = true
    if (this.#block.length < EVIDENCE_CHARS) this.#block += `${line}\n`
  }
}

/**
 * What stopped a stream other than its own clean end, in words for a failure message (the cap that fired and
 * what was read by then); undefined for a stream that ended by itself between events.
 */
export function describeSseEnd(end: SseEnd, caps: SseLimits): string | undefined {
  const read = `after ${end.events} events and ${end.bytes} bytes`
  switch (end.reason) {
    case 'end':
      return end.cleanEnd ? undefined : `the stream ended inside an event, ${read}`
    case 'max-bytes':
      return `the stream ran past ${caps.maxBytes} bytes without ending (${end.events} events read): reading stopped there`
    case 'max-events':
      return `the stream ran past ${caps.maxEvents} events without ending: reading stopped there`
    case 'idle-timeout':
      return `no byte of the stream for ${caps.idleTimeoutMs} ms, ${read}: reading stopped there`
    case 'total-timeout':
      // Silent from the start, a stream meets its total cap before its idle one: say it was silent.
      return end.bytes === 0
        ? `no byte of the stream within ${caps.totalTimeoutMs} ms: reading stopped there`
        : `the stream did not end within ${caps.totalTimeoutMs} ms, ${read}: reading stopped there`
  }
}

/**
 * A reader woken late (its own process busy: a report written beside it, a starved machine) meets its timer before
 * the bytes that arrived meanwhile. Before a cap ends the stream, what had already arrived is read, for this long.
 */
const LATE_GRACE_MS = 100

/** The next item within `ms`, or 'timeout'; `next` is kept by the caller, so an item that comes late is not lost. */
async function within<T>(next: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms)
  })
  try {
    return await Promise.race([next, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Reads a stream of bytes (or strings) as SSE, yielding events and comments as they complete, and returns how
 * the stream ended. Never hangs: idle and total timeouts end it, and caps bound what is kept.
 */
export async function* readSse(
  source: AsyncIterable<Uint8Array | string>,
  limits: Partial<SseLimits> = {},
): AsyncGenerator<SseItem, SseEnd> {
  const cap = { ...SSE_DEFAULTS, ...limits }
  const decoder = new TextDecoder('utf-8')
  const pending: SseItem[] = []
  let events = 0
  let bytes = 0
  const lines = new LineTracker()
  let started = false
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      pending.push({ kind: 'event', event: message.event, data: message.data, id: message.id, index: events })
      events += 1
    },
    onComment(text: string) {
      pending.push({ kind: 'comment', text })
    },
    onRetry(ms: number) {
      pending.push({ kind: 'retry', ms })
    },
  })
  const feed = (text: string): void => {
    // The decoder drops a leading BOM from bytes; a stream given as text may still carry one.
    const body = started ? text : text.replace(/^\uFEFF/, '')
    if (body !== '') started = true
    lines.feed(body)
    parser.feed(body)
  }
  const iterator = source[Symbol.asyncIterator]()
  const deadline = Date.now() + cap.totalTimeoutMs
  let reason: SseEnd['reason'] = 'end'
  let drained = false
  let waiting: Promise<IteratorResult<Uint8Array | string>> | undefined
  try {
    for (;;) {
      if (waiting === undefined) {
        waiting = iterator.next()
        // Left unread when a cap ends the stream, it rejects once the body is destroyed: nobody waits for it then.
        waiting.catch(() => {})
      }
      const left = deadline - Date.now()
      let next = left <= 0 ? 'timeout' : await within(waiting, Math.min(cap.idleTimeoutMs, left))
      // Past the total cap, only once: an endless stream must not be drained forever.
      if (next === 'timeout' && (left > 0 || !drained)) {
        drained = left <= 0
        next = await within(waiting, LATE_GRACE_MS)
      }
      if (next === 'timeout') {
        reason = Date.now() >= deadline ? 'total-timeout' : 'idle-timeout'
        break
      }
      waiting = undefined
      if (next.done) {
        feed(decoder.decode())
        // A final CR may still be the first half of CRLF to the parser; at the end of the stream it ends a line.
        if (lines.endsWithCr) parser.feed('\n')
        break
      }
      const chunk = next.value
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength
      if (bytes > cap.maxBytes) {
        reason = 'max-bytes'
        break
      }
      feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }))
      while (pending.length > 0) {
        const item = pending.shift() as SseItem
        yield item
        if (item.kind === 'event' && item.index + 1 >= cap.maxEvents) {
          reason = 'max-events'
          return { reason, cleanEnd: false, bytes, events, trailing: '' }
        }
      }
    }
  } finally {
    // Stop the producer (e.g. an HTTP body) when the reader ends early; ignore what its close throws.
    void iterator.return?.().catch(() => {})
  }
  for (const item of pending) yield item
  return { reason, cleanEnd: reason === 'end' && lines.between, bytes, events, trailing: lines.trailing }
}

/** Collects a whole stream: every event and comment, and how it ended. */
export async function collectSse(
  source: AsyncIterable<Uint8Array | string>,
  limits: Partial<SseLimits> = {},
): Promise<{ items: SseItem[]; events: SseEvent[]; end: SseEnd }> {
  const items: SseItem[] = []
  const generator = readSse(source, limits)
  for (;;) {
    const next = await generator.next()
    if (next.done) return { items, events: items.filter((i): i is SseEvent => i.kind === 'event'), end: next.value }
    items.push(next.value)
  }
}

/** The data of an event as JSON, or the parse error. */
export function eventJson(event: SseEvent): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(event.data) }
  } catch (error) {
    return { ok: false, error: (error as Error).message }
  }
}
