/** The SSE reader, fed chunks split at awkward places (DESIGN.md: SSE in layers, tested that way). */
import { describe, expect, test } from 'vitest'
import { collectSse, endsBetweenEvents, eventJson } from '../../harness/sse.ts'

const encoder = new TextEncoder()

async function* chunks(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? encoder.encode(part) : part
}

/** Every way to cut `text` into two pieces, byte-wise (so multi-byte characters get cut too). */
function everySplit(text: string): Uint8Array[][] {
  const bytes = encoder.encode(text)
  return Array.from({ length: bytes.length + 1 }, (_, i) => [bytes.slice(0, i), bytes.slice(i)])
}

const STREAM = 'event: response.created\ndata: {"type":"response.created"}\n\n: keep-alive\n\nevent: response.output_text.delta\ndata: {"delta":"héllo ✓"}\n\nevent: response.completed\ndata: {"type":"response.completed"}\n\n'

describe('readSse', () => {
  test('the same events whatever byte the stream is split at, multi-byte characters included', async () => {
    const whole = await collectSse(chunks(STREAM))
    expect(whole.events.map((e) => e.event)).toEqual(['response.created', 'response.output_text.delta', 'response.completed'])
    expect(whole.end.cleanEnd).toBe(true)
    for (const parts of everySplit(STREAM)) {
      const split = await collectSse(chunks(...parts))
      expect(split.events).toEqual(whole.events)
      expect(split.end.cleanEnd).toBe(true)
    }
  })

  test('one byte at a time', async () => {
    const bytes = encoder.encode(STREAM)
    const { events } = await collectSse(chunks(...Array.from(bytes, (b) => Uint8Array.of(b))))
    expect(events.map((e) => eventJson(e))).toEqual([
      { ok: true, value: { type: 'response.created' } },
      { ok: true, value: { delta: 'héllo ✓' } },
      { ok: true, value: { type: 'response.completed' } },
    ])
  })

  test('CRLF and lone CR line ends, split between CR and LF', async () => {
    const crlf = 'event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r'
    for (const parts of everySplit(crlf)) {
      const { events, end } = await collectSse(chunks(...parts))
      expect(events.map((e) => [e.event, e.data])).toEqual([['a', '1'], ['b', '2']])
      expect(end.cleanEnd).toBe(true)
    }
  })

  test('comments are reported, not taken for events', async () => {
    const { items, events } = await collectSse(chunks(': hello\n\ndata: x\n\n'))
    expect(items[0]).toEqual({ kind: 'comment', text: 'hello' })
    expect(events).toHaveLength(1)
  })

  test('multi-line data joins with newlines; an event without event: has none', async () => {
    const { events } = await collectSse(chunks('data: line one\ndata: line two\nid: 7\n\n'))
    expect(events).toEqual([{ kind: 'event', event: undefined, data: 'line one\nline two', id: '7', index: 0 }])
  })

  test('a stream cut inside an event is not a clean end, and the partial event is not delivered', async () => {
    const { events, end } = await collectSse(chunks('data: {"a":1}\n\ndata: {"b":'))
    expect(events).toHaveLength(1)
    expect(end).toMatchObject({ reason: 'end', cleanEnd: false, trailing: 'data: {"b":' })
  })

  test('a stream cut after the data line but before the blank line is not a clean end', async () => {
    const { events, end } = await collectSse(chunks('data: 1\n\ndata: 2\n'))
    expect(events.map((e) => e.data)).toEqual(['1'])
    expect(end.cleanEnd).toBe(false)
  })

  test('caps: bytes and events', async () => {
    const endless = async function* (): AsyncGenerator<Uint8Array> {
      for (let i = 0; ; i += 1) yield encoder.encode(`data: ${i}\n\n`)
    }
    const byBytes = await collectSse(endless(), { maxBytes: 1000 })
    expect(byBytes.end.reason).toBe('max-bytes')
    const byEvents = await collectSse(endless(), { maxEvents: 5 })
    expect(byEvents.end.reason).toBe('max-events')
    expect(byEvents.events).toHaveLength(5)
  })

  test('a stream that goes quiet ends by the idle timeout instead of hanging', async () => {
    const silent = async function* (): AsyncGenerator<Uint8Array> {
      yield encoder.encode('data: 1\n\n')
      await new Promise(() => {}) // never resolves
    }
    const { events, end } = await collectSse(silent(), { idleTimeoutMs: 50 })
    expect(events).toHaveLength(1)
    expect(end.reason).toBe('idle-timeout')
  })

  test('endsBetweenEvents', () => {
    expect(endsBetweenEvents('')).toBe(true)
    expect(endsBetweenEvents('\r\n')).toBe(true)
    expect(endsBetweenEvents('data: x')).toBe(false)
  })
})
