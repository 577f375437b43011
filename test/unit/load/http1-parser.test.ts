/**
 * The lean client's response parser (load/engine/http1-parser.ts) on its own: every answer read whole, split at
 * every byte, and one byte at a time, out of a reused buffer whose stale bytes past each read look like the end of a
 * head; framing by length, chunks and close; and the answers it must refuse as malformed, too large or cut short.
 */
import { describe, expect, test } from 'vitest'
import { type HeaderReader, ResponseParser } from '../../../load/engine/http1-parser.ts'

const ALL: HeaderReader = { wantsHeaders: () => true }
const NONE: HeaderReader = { wantsHeaders: () => false }

interface Parsed {
  status: number
  headers: Record<string, string>
  keepAlive: boolean
  keepAliveMs: number
  bodyBytes: number
  done: boolean
  /** Bytes left past the answer's end. */
  rest: number
  error: string | null
}

/** One stale-filled buffer, as the client's shared read buffer: bytes past a read are left from earlier reads. */
const shared = Buffer.alloc(64 * 1024)

function parse(chunks: readonly (string | Buffer)[], o: { reader?: HeaderReader; eof?: boolean; cap?: number } = {}) {
  const parser = new ResponseParser(o.cap ?? 1024 * 1024)
  parser.start(o.reader ?? ALL)
  let rest = 0
  let error: string | null = null
  try {
    for (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk
      shared.fill('\r\n\r\n0\r\n\r\n')
      bytes.copy(shared)
      const at = parser.execute(shared, 0, bytes.length)
      rest += bytes.length - at
    }
    if (o.eof) parser.eof()
  } catch (e) {
    error = (e as { code: string }).code
  }
  const { status, headers, keepAlive, keepAliveMs, bodyBytes, done } = parser
  return { status, headers, keepAlive, keepAliveMs, bodyBytes, done, rest, error } satisfies Parsed
}

/** The answer read whole, split in two at every byte, and one byte at a time: each must read the same. */
function everySplit(answer: string, o: { reader?: HeaderReader; eof?: boolean } = {}): Parsed {
  const whole = parse([answer], o)
  for (let i = 1; i < answer.length; i += 1) expect(parse([answer.slice(0, i), answer.slice(i)], o)).toEqual(whole)
  expect(parse([...answer], o)).toEqual(whole)
  return whole
}

describe('answers it frames', () => {
  test('Content-Length: the status, the headers when wanted, the body counted, the connection kept', () => {
    const answer = 'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nX-A:  b c \r\nContent-Length: 5\r\n\r\nhello'
    expect(everySplit(answer)).toMatchObject({
      status: 429,
      headers: { 'retry-after': '2', 'x-a': 'b c', 'content-length': '5' },
      keepAlive: true,
      bodyBytes: 5,
      done: true,
      rest: 0,
      error: null,
    })
  })

  test('no header is copied when none is wanted; a repeated header keeps its first value', () => {
    const answer = 'HTTP/1.1 200 OK\r\nx-a: 1\r\nx-a: 2\r\ncontent-length: 0\r\n\r\n'
    expect(parse([answer], { reader: NONE }).headers).toEqual({})
    expect(parse([answer]).headers).toMatchObject({ 'x-a': '1' })
  })

  test('chunked, with extensions and trailers: the data counted, not the framing', () => {
    const answer =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=v\r\nhello\r\nA \r\n0123456789\r\n0\r\nx-t: 1\r\n\r\n'
    expect(everySplit(answer)).toMatchObject({ status: 200, bodyBytes: 15, done: true, keepAlive: true, rest: 0 })
  })

  test('a body up to the close: done only at the end of the connection, which is not reused', () => {
    const answer = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nsome bytes'
    expect(parse([answer])).toMatchObject({ done: false, bodyBytes: 10 })
    expect(everySplit(answer, { eof: true })).toMatchObject({ done: true, bodyBytes: 10, keepAlive: false })
  })

  test('Connection: close, HTTP/1.0 and Keep-Alive timeouts decide whether the connection is reused', () => {
    const framed = 'content-length: 0\r\n\r\n'
    expect(parse([`HTTP/1.1 200 OK\r\nConnection: Close\r\n${framed}`]).keepAlive).toBe(false)
    expect(parse([`HTTP/1.1 200 OK\r\nconnection: te, close\r\n${framed}`]).keepAlive).toBe(false)
    expect(parse([`HTTP/1.0 200 OK\r\n${framed}`]).keepAlive).toBe(false)
    expect(parse([`HTTP/1.0 200 OK\r\nconnection: keep-alive\r\n${framed}`]).keepAlive).toBe(true)
    expect(parse([`HTTP/1.1 200 OK\r\nkeep-alive: timeout=5\r\n${framed}`])).toMatchObject({
      keepAlive: true,
      keepAliveMs: 3000,
    })
    // A target that closes idle connections within two seconds would race every reuse.
    expect(parse([`HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\n${framed}`]).keepAlive).toBe(false)
  })

  test('204 and 304 have no body; one that says otherwise leaves its connection unused', () => {
    expect(parse(['HTTP/1.1 204 No Content\r\n\r\n'])).toMatchObject({ status: 204, done: true, keepAlive: true })
    expect(parse(['HTTP/1.1 204 No Content\r\ncontent-length: 3\r\n\r\nabc'])).toMatchObject({
      done: true,
      keepAlive: false,
      rest: 3,
    })
  })

  test('interim answers are skipped; bytes past the answer are left', () => {
    const answer =
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: x\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'
    expect(everySplit(answer)).toMatchObject({ status: 200, bodyBytes: 2, done: true, rest: 0 })
    expect(parse([`${answer}HTTP/1.1 200 OK\r\n`])).toMatchObject({ done: true, rest: 17 })
  })

  test('a status line without a reason', () => {
    expect(parse(['HTTP/1.1 503\r\ncontent-length: 0\r\n\r\n'])).toMatchObject({ status: 503, done: true })
  })
})

describe('answers it refuses', () => {
  const malformed: Array<[string, string]> = [
    ['garbage', 'hello there\r\n\r\n'],
    ['garbage without a line end', 'SSH-2.0-OpenSSH_9.6'],
    ['another protocol version', 'HTTP/2.0 200 OK\r\n\r\n'],
    ['a status of letters', 'HTTP/1.1 2x0 OK\r\n\r\n'],
    ['a status of four digits', 'HTTP/1.1 2000 OK\r\n\r\n'],
    ['a status below 100', 'HTTP/1.1 099 Low\r\n\r\n'],
    ['a bare LF after the status line', 'HTTP/1.1 200 OK\ncontent-length: 0\n\n'],
    ['a bare LF in the headers', 'HTTP/1.1 200 OK\r\nx: y\ncontent-length: 0\r\n\r\n'],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nnot a header\r\n\r\n'],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\ncontent-length : 0\r\n\r\n'],
    ['a folded header', 'HTTP/1.1 200 OK\r\nx: a\r\n b\r\ncontent-length: 0\r\n\r\n'],
    ['a control byte in a value', 'HTTP/1.1 200 OK\r\nx: a\x01b\r\ncontent-length: 0\r\n\r\n'],
    ['a CR inside a value', 'HTTP/1.1 200 OK\r\nx: a\rb\r\ncontent-length: 0\r\n\r\n'],
    ['a Content-Length that is not a number', 'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n'],
    ['two Content-Lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 1\r\n\r\na'],
    ['Content-Length and chunked', 'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ntransfer-encoding: chunked\r\n\r\n'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'],
    ['a chunk without a size', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\r\n'],
    ['a chunk longer than its size', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nab\r\n'],
    ['a chunk size past any cap', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nfffffffffffffff\r\n'],
    ['a switch of protocols', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n'],
  ]
  test.each(malformed)('%s: a malformed answer', (_, answer) => {
    expect(parse([answer]).error).toBe('MALFORMED_ANSWER')
    expect(parse([...answer]).error).toBe('MALFORMED_ANSWER')
  })

  test('a head past 16 KiB is too large, whole or a byte at a time, with or without its end', () => {
    const huge = `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}\r\n`
    expect(parse([`${huge}\r\n`]).error).toBe('HEADERS_TOO_LARGE')
    expect(parse([huge]).error).toBe('HEADERS_TOO_LARGE')
    const many = `HTTP/1.1 200 OK\r\n${'x-h: v\r\n'.repeat(3000)}`
    expect(parse(many.match(/[\s\S]{1,100}/g) as string[]).error).toBe('HEADERS_TOO_LARGE')
  })

  test('trailers past 16 KiB are too large', () => {
    const answer = `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\nx: ${'a'.repeat(20_000)}\r\n\r\n`
    expect(parse([answer]).error).toBe('HEADERS_TOO_LARGE')
  })

  test('a body past the cap is too large, however it is framed', () => {
    const body = 'a'.repeat(101)
    expect(parse([`HTTP/1.1 200 OK\r\ncontent-length: 101\r\n\r\n${body}`], { cap: 100 }).error).toBe('BODY_TOO_LARGE')
    expect(parse([`HTTP/1.1 200 OK\r\n\r\n${body}`], { cap: 100 }).error).toBe('BODY_TOO_LARGE')
    const chunked = `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n65\r\n${body}\r\n0\r\n\r\n`
    expect(parse([chunked], { cap: 100 }).error).toBe('BODY_TOO_LARGE')
    expect(parse([`HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n${body.slice(1)}`], { cap: 100 }).error).toBe(null)
  })

  test('a connection that ends before the answer does: cut short, as a reset', () => {
    for (const cut of [
      '',
      'HTTP/1.1 200 OK\r\ncontent-',
      'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhel',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n',
      'HTTP/1.1 100 Continue\r\n\r\n',
    ])
      expect(parse([cut], { eof: true }).error).toBe('ECONNRESET')
  })
})
