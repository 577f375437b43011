/** The SSE reader, fed chunks split at awkward places (in layers, tested that way). */
import { type AddressInfo, connect, createServer } from 'node:net'
import { describe, expect, test } from 'vitest'
import { collectSse, eventJson, LineTracker } from '../../../harness/worker/sse.ts'

const encoder = new TextEncoder()

async function* chunks(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? encoder.encode(part) : part
}

/** Every way to cut `text` into two pieces, byte-wise (so multi-byte characters get cut too). */
function everySplit(text: string): Uint8Array[][] {
  const bytes = encoder.encode(text)
  return Array.from({ length: bytes.length + 1 }, (_, i) => [bytes.slice(0, i), bytes.slice(i)])
}

const STREAM =
  'event: response.created\ndata: {"type":"response.created"}\n\n: keep-alive\n\nevent: response.output_text.delta\ndata: {"delta":"héllo ✓"}\n\nevent: response.completed\ndata: {"type":"response.completed"}\n\n'

describe('readSse', () => {
  test('the same events whatever byte the stream is split at, multi-byte characters included', async () => {
    const whole = await collectSse(chunks(STREAM))
    expect(whole.events.map((e) => e.event)).toEqual([
      'response.created',
      'response.output_text.delta',
      'response.completed',
    ])
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
      expect(events.map((e) => [e.event, e.data])).toEqual([
        ['a', '1'],
        ['b', '2'],
      ])
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

  test('a reader woken late reads what arrived while it was busy before a cap ends the stream', async () => {
    // The rest reaches the socket while the reader's thread is busy past its idle cap (a report written beside it):
    // when the thread is free again, the timer fires before the socket is read.
    const server = createServer((socket) => {
      socket.write('event: response.created\ndata: {}\n\n')
      setTimeout(
        () =>
          setImmediate(() => {
            socket.end('event: response.completed\ndata: {}\n\n')
            const until = Date.now() + 300
            while (Date.now() < until) {} // busy
          }),
        20,
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1')
      const { events, end } = await collectSse(socket, { idleTimeoutMs: 100 })
      expect(events.map((e) => e.event)).toEqual(['response.created', 'response.completed'])
      expect([end.reason, end.cleanEnd]).toEqual(['end', true])
    } finally {
      server.close()
    }
  })

  test('LineTracker: a CR at the end of one piece and an LF at the start of the next are one line end', () => {
    const lines = new LineTracker()
    lines.feed('data: x\r')
    lines.feed('\n\r')
    lines.feed('\n')
    expect(lines.between).toBe(true)
    lines.feed('data: y\r')
    lines.feed('\n')
    expect([lines.between, lines.trailing]).toEqual([false, 'data: y\n'])
  })
})

/**
 * Framings of the SSE format (WHATWG HTML, server-sent events) that a target may choose, each read whole and split
 * at every byte: the same events, the same retry fields and the same verdict on the end every time.
 */
const BOM = '\uFEFF'
const CREATED = 'event: response.created\ndata: {"type":"response.created"}\n\n'
const DONE = 'event: response.completed\ndata: {"type":"response.completed"}\n\n'
const TWO = [
  ['response.created', '{"type":"response.created"}'],
  ['response.completed', '{"type":"response.completed"}'],
]

interface Framing {
  name: string
  text: string
  events: Array<[string | undefined, string, string?]>
  clean: boolean
  retries?: number[]
}

const FRAMINGS: Framing[] = [
  { name: 'LF line ends', text: CREATED + DONE, events: TWO as Framing['events'], clean: true },
  {
    name: 'CRLF line ends',
    text: (CREATED + DONE).replace(/\n/g, '\r\n'),
    events: TWO as Framing['events'],
    clean: true,
  },
  {
    name: 'CR-only line ends',
    text: (CREATED + DONE).replace(/\n/g, '\r'),
    events: TWO as Framing['events'],
    clean: true,
  },
  {
    name: 'mixed line ends',
    text: 'event: a\r\ndata: 1\r\rdata: 2\n\r\ndata: 3\r\n\n',
    events: [
      ['a', '1'],
      [undefined, '2'],
      [undefined, '3'],
    ],
    clean: true,
  },
  {
    name: 'a comment before the first event',
    text: `: hello\n\n${CREATED}${DONE}`,
    events: TWO as Framing['events'],
    clean: true,
  },
  {
    name: 'a keep-alive comment after the last event',
    text: `${CREATED}${DONE}: ping\n\n`,
    events: TWO as Framing['events'],
    clean: true,
  },
  {
    name: 'a keep-alive comment after the last event, no blank line',
    text: `${CREATED}${DONE}: ping\n`,
    events: TWO as Framing['events'],
    clean: true,
  },
  {
    name: 'a keep-alive comment after the last event, no line end',
    text: `${CREATED}${DONE}: ping`,
    events: TWO as Framing['events'],
    clean: true,
  },
  {
    name: 'comments inside an event',
    text: 'event: a\n: between fields\ndata: 1\n: more\n\n',
    events: [['a', '1']],
    clean: true,
  },
  { name: 'a leading BOM', text: `${BOM}${CREATED}${DONE}`, events: TWO as Framing['events'], clean: true },
  {
    name: 'a leading BOM before a comment, CR-only',
    text: `${BOM}: open\r\r${CREATED.replace(/\n/g, '\r')}`,
    events: [TWO[0]] as Framing['events'],
    clean: true,
  },
  {
    name: 'id: fields',
    text: 'id: 1\nevent: a\ndata: 1\n\nid: 2\ndata: 2\n\n',
    events: [
      ['a', '1', '1'],
      [undefined, '2', '2'],
    ],
    clean: true,
  },
  {
    name: 'retry: and id: on their own, first and last',
    text: `retry: 2500\n\n${CREATED}id: 9\n\nretry: 1000\n`,
    events: [TWO[0]] as Framing['events'],
    clean: true,
    retries: [2500, 1000],
  },
  {
    name: 'unknown fields',
    text: `gc-field: x\n${CREATED}novalue\n\n`,
    events: [TWO[0]] as Framing['events'],
    clean: true,
  },
  {
    name: 'an unknown event type after the terminal one',
    text: `${CREATED}${DONE}event: gc.unknown\ndata: {}\n\n: ping\n\n`,
    events: [...TWO, ['gc.unknown', '{}']] as Framing['events'],
    clean: true,
  },
  {
    name: 'data without a space after the colon, empty data',
    text: 'data:x\n\ndata\n\n',
    events: [
      [undefined, 'x'],
      [undefined, ''],
    ],
    clean: true,
  },
  { name: 'cut inside a data line', text: `${CREATED}data: {"ty`, events: [TWO[0]] as Framing['events'], clean: false },
  {
    name: 'cut after a data line, before its blank line',
    text: `${CREATED}${DONE}data: 1\n`,
    events: TWO as Framing['events'],
    clean: false,
  },
  {
    name: 'cut after an event: line',
    text: `${CREATED}event: response.completed\r\n`,
    events: [TWO[0]] as Framing['events'],
    clean: false,
  },
  {
    name: 'cut after a data line, a comment following',
    text: `${CREATED}data: 1\n: ping\n`,
    events: [TWO[0]] as Framing['events'],
    clean: false,
  },
  { name: 'cut inside an id: line', text: `${CREATED}id: 4`, events: [TWO[0]] as Framing['events'], clean: false },
]

describe('framings of the SSE format, each split at every byte', () => {
  test.each(FRAMINGS)('$name', async (framing) => {
    const expected = framing.events.map(([event, data, id]) => ({ event, data, id }))
    for (const parts of everySplit(framing.text)) {
      const { items, events, end } = await collectSse(chunks(...parts))
      const where = `split at byte ${parts[0]?.length}`
      expect(
        events.map((e) => ({ event: e.event, data: e.data, id: e.id })),
        where,
      ).toEqual(expected)
      expect(
        items.flatMap((i) => (i.kind === 'retry' ? [i.ms] : [])),
        where,
      ).toEqual(framing.retries ?? [])
      expect(end.cleanEnd, where).toBe(framing.clean)
      expect(end.trailing === '', where).toBe(framing.clean)
    }
  })

  test('a stream given as text drops its BOM too', async () => {
    const text = async function* (): AsyncGenerator<string> {
      yield BOM
      yield CREATED
    }
    const { events, end } = await collectSse(text())
    expect(events.map((e) => e.event)).toEqual(['response.created'])
    expect(end.cleanEnd).toBe(true)
  })
})
