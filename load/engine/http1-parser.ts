/**
 * A minimal HTTP/1.1 response parser for the lean client (lean-client.ts): the status line, the framing headers
 * (Content-Length, Transfer-Encoding, Connection, Keep-Alive), the other headers only when the caller reads them,
 * and a body that is counted, never kept (Content-Length, chunked, or up to the connection's close). Strict where a
 * broken or hostile target could confuse the framing: anything it cannot frame with certainty is a malformed answer,
 * and the head and the body are bounded, so that a target costs one bounded failure, never a hang or a heap.
 */
import { maxHeaderSize } from 'node:http'

const CR = 13
const LF = 10
const SP = 32
const HT = 9
const COLON = 58
const SEMICOLON = 59

/** Field-name bytes (RFC 9110 tchar). */
const TOKEN = new Uint8Array(256)
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TOKEN[c.charCodeAt(0)] = 1
/** Field-value and reason-phrase bytes: HT, SP, visible ASCII and obs-text; no other control byte. */
const TEXT = new Uint8Array(256)
for (let b = 0; b < 256; b += 1) TEXT[b] = b === HT || (b >= SP && b !== 0x7f) ? 1 : 0
/** Hex digit values; -1 for any other byte. */
const HEX = new Int8Array(256).fill(-1)
for (let d = 0; d < 16; d += 1) {
  HEX[d.toString(16).charCodeAt(0)] = d
  HEX[d.toString(16).toUpperCase().charCodeAt(0)] = d
}

const HEAD_END = Buffer.from('\r\n\r\n')
const HTTP_SLASH = Buffer.from('HTTP/')

export type ParseFailure = Error & { code: 'MALFORMED_ANSWER' | 'HEADERS_TOO_LARGE' | 'BODY_TOO_LARGE' | 'ECONNRESET' }

export const parseFailure = (code: ParseFailure['code'], message: string): ParseFailure =>
  Object.assign(new Error(message), { code })

const malformed = (what: string): ParseFailure => parseFailure('MALFORMED_ANSWER', `malformed answer: ${what}`)

/** Handed on when the caller reads no header of an answer: nothing is copied. */
export const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>

/** Who reads the answer: whether it wants the headers of an answer with this status (recorder.wantsHeaders). */
export interface HeaderReader {
  wantsHeaders(status: number): boolean
}

export const PARSER_LIMITS = {
  maxHeadBytes: maxHeaderSize, // as node:http and undici: 16 KiB unless --max-http-header-size says otherwise
  maxChunkSizeDigits: 12, // hex digits of a chunk size: 256 TB, far past any byte cap
  defaultKeepAliveMs: 4000, // an idle connection is reused this long when the target names no timeout (undici's)
  keepAliveMarginMs: 2000, // taken off the timeout a target names, so that it never closes a connection we reuse
  maxKeepAliveMs: 600_000,
}

/** Where the parser is in an answer. */
const S = {
  head: 0,
  length: 1,
  untilClose: 2,
  chunkSize: 3,
  chunkSizeSpace: 4,
  chunkExtension: 5,
  chunkSizeLf: 6,
  chunkData: 7,
  chunkDataCr: 8,
  chunkDataLf: 9,
  trailerStart: 10,
  trailerLine: 11,
  trailerLineLf: 12,
  trailerEndLf: 13,
  done: 14,
} as const

/** Compares the field name at [at, at + name.length) with a lower-case name, whatever its case. */
function nameIs(buf: Buffer, at: number, length: number, name: string): boolean {
  if (length !== name.length) return false
  for (let i = 0; i < length; i += 1) if (((buf[at + i] as number) | 0x20) !== name.charCodeAt(i)) return false
  return true
}

const CLOSE = 1
const KEEP_ALIVE = 2

/** The tokens a Connection value (a comma-separated list) holds: CLOSE and KEEP_ALIVE bits, whatever their case. */
function connectionTokens(buf: Buffer, from: number, to: number): number {
  // Nearly every target sends one token: no string is made for it.
  if (nameIs(buf, from, to - from, 'keep-alive')) return KEEP_ALIVE
  if (nameIs(buf, from, to - from, 'close')) return CLOSE
  let tokens = 0
  for (const item of buf.toString('latin1', from, to).split(',')) {
    const token = item.trim().toLowerCase()
    if (token === 'close') tokens |= CLOSE
    else if (token === 'keep-alive') tokens |= KEEP_ALIVE
  }
  return tokens
}

/** One connection's parser: `start` before each answer, then `execute` on every chunk and `eof` at the close. */
export class ResponseParser {
  /** The final status (1xx skipped); 0 until its head is read. */
  status = 0
  headers: Record<string, string> = NO_HEADERS
  /** Whether the connection may carry another request once this answer is done. */
  keepAlive = false
  /** How long the connection may idle before its next request, when keepAlive. */
  keepAliveMs: number = PARSER_LIMITS.defaultKeepAliveMs
  bodyBytes = 0
  #state: number = S.done
  #reader: HeaderReader | null = null
  #pending: Buffer | null = null
  #remaining = 0
  #digits = 0
  #lineBytes = 0
  readonly maxBodyBytes: number

  constructor(maxBodyBytes: number) {
    this.maxBodyBytes = maxBodyBytes
  }

  get done(): boolean {
    return this.#state === S.done
  }

  /** A new answer begins (its request has left). */
  start(reader: HeaderReader): void {
    this.status = 0
    this.headers = NO_HEADERS
    this.keepAlive = false
    this.keepAliveMs = PARSER_LIMITS.defaultKeepAliveMs
    this.bodyBytes = 0
    this.#state = S.head
    this.#reader = reader
    this.#pending = null
  }

  /**
   * Reads bytes [from, to) of `buf`, which it does not keep (a read buffer is reused). Returns where it stopped:
   * `to`, or, once the answer is done, the end of the answer (bytes past it answer no request). Throws a
   * ParseFailure on an answer it cannot frame, a head past the limit or a body past the cap.
   */
  execute(buf: Buffer, from: number, to: number): number {
    let i = from
    while (i < to) {
      switch (this.#state) {
        case S.done:
          return i
        case S.head:
          i = this.#head(buf, i, to)
          break
        case S.length: {
          const n = Math.min(this.#remaining, to - i)
          this.#count(n)
          this.#remaining -= n
          i += n
          if (this.#remaining === 0) this.#state = S.done
          break
        }
        case S.untilClose:
          this.#count(to - i)
          i = to
          break
        case S.chunkData: {
          const n = Math.min(this.#remaining, to - i)
          this.#count(n)
          this.#remaining -= n
          i += n
          if (this.#remaining === 0) this.#state = S.chunkDataCr
          break
        }
        default:
          this.#chunkControl(buf[i] as number)
          i += 1
      }
    }
    return i
  }

  /** The connection ended: a body framed by the close is done; any other answer was cut short. */
  eof(): void {
    if (this.#state === S.untilClose) this.#state = S.done
    else if (this.#state !== S.done)
      throw parseFailure('ECONNRESET', 'the target closed the connection before the answer ended')
  }

  #count(n: number): void {
    this.bodyBytes += n
    if (this.bodyBytes > this.maxBodyBytes) throw parseFailure('BODY_TOO_LARGE', 'body too large')
  }

  /** Looks for the end of a head from `i`; keeps a head split across reads (a copy: the read buffer is reused). */
  #head(buf: Buffer, i: number, to: number): number {
    const pending = this.#pending
    const work = pending === null ? buf : Buffer.concat([pending, buf.subarray(i, to)])
    const start = pending === null ? i : 0
    const end = pending === null ? to : work.length
    // An answer that does not begin as one fails at once, not when its garbage has filled the head's limit.
    for (let k = 0; k < 5 && start + k < end; k += 1)
      if (work[start + k] !== HTTP_SLASH[k]) throw malformed('no HTTP/ status line')
    const searchFrom = pending === null ? start : Math.max(0, pending.length - 3)
    // Past `end` lie stale bytes of the reused buffer: a match that does not fit before it is no match.
    const at = work.indexOf(HEAD_END, searchFrom)
    if (at === -1 || at + 4 > end) {
      // A line ended by a bare LF: the head would wait for an end that never comes.
      for (let lf = work.indexOf(LF, searchFrom); lf !== -1 && lf < end; lf = work.indexOf(LF, lf + 1))
        if (work[lf - 1] !== CR) throw malformed('a line not ended by CRLF')
      if (end - start > PARSER_LIMITS.maxHeadBytes) throw parseFailure('HEADERS_TOO_LARGE', 'headers too large')
      this.#pending = Buffer.from(work.subarray(start, end))
      return to
    }
    if (at + 4 - start > PARSER_LIMITS.maxHeadBytes) throw parseFailure('HEADERS_TOO_LARGE', 'headers too large')
    this.#pending = null
    this.#parseHead(work, start, at + 4)
    return pending === null ? at + 4 : i + (at + 4 - pending.length)
  }

  /**
   * The status line at `start`: HTTP/1.x, a space, three digits, then the end of the line or a reason. Returns the
   * status, the minor version times 1000 added (no object per answer).
   */
  #statusLine(buf: Buffer, start: number, eol: number): number {
    if (eol - start < 13 || buf[eol - 1] !== CR) throw malformed('a short status line')
    const minor = (buf[start + 7] as number) - 48
    if (buf[start + 5] !== 49 || buf[start + 6] !== 46 || (minor !== 0 && minor !== 1) || buf[start + 8] !== SP)
      throw malformed('not HTTP/1.0 or HTTP/1.1')
    let status = 0
    for (let k = 9; k < 12; k += 1) {
      const d = (buf[start + k] as number) - 48
      if (d < 0 || d > 9) throw malformed('a status that is not three digits')
      status = status * 10 + d
    }
    if (status < 100) throw malformed('a status below 100')
    if (eol - 1 > start + 12) {
      if (buf[start + 12] !== SP) throw malformed('a status that is not three digits')
      for (let k = start + 13; k < eol - 1; k += 1) if (TEXT[buf[k] as number] === 0) throw malformed('a control byte')
    }
    return minor * 1000 + status
  }

  /** Parses a whole head [start, end), end just past its blank line, and sets what follows it. */
  #parseHead(buf: Buffer, start: number, end: number): void {
    let eol = buf.indexOf(LF, start)
    const line = this.#statusLine(buf, start, eol)
    const minor = line >= 1000 ? 1 : 0
    const status = line % 1000
    const wanted = status >= 200 && (this.#reader as HeaderReader).wantsHeaders(status)
    const headers: Record<string, string> = wanted ? {} : NO_HEADERS
    let length = -1
    let transfer: string | null = null
    let connection = 0
    let keepAliveHeader: string | null = null
    for (let at = eol + 1; at < end - 2; at = eol + 1) {
      eol = buf.indexOf(LF, at)
      if (buf[eol - 1] !== CR) throw malformed('a header line not ended by CRLF')
      let colon = at
      while (TOKEN[buf[colon] as number] === 1) colon += 1
      if (colon === at || buf[colon] !== COLON) throw malformed('a header line without a name and a colon')
      let from = colon + 1
      let to = eol - 1
      while (from < to && (buf[from] === SP || buf[from] === HT)) from += 1
      while (to > from && (buf[to - 1] === SP || buf[to - 1] === HT)) to -= 1
      for (let k = from; k < to; k += 1) if (TEXT[buf[k] as number] === 0) throw malformed('a control byte')
      const nameLength = colon - at
      if (nameIs(buf, at, nameLength, 'content-length')) {
        if (length !== -1) throw malformed('Content-Length twice')
        length = contentLength(buf, from, to)
      } else if (nameIs(buf, at, nameLength, 'transfer-encoding')) {
        const codings = nameIs(buf, from, to - from, 'chunked')
          ? 'chunked'
          : buf.toString('latin1', from, to).toLowerCase()
        transfer = transfer === null ? codings : `${transfer},${codings}`
      } else if (nameIs(buf, at, nameLength, 'connection')) {
        connection |= connectionTokens(buf, from, to)
      } else if (nameIs(buf, at, nameLength, 'keep-alive')) keepAliveHeader = buf.toString('latin1', from, to)
      if (wanted) {
        const name = buf.toString('latin1', at, colon).toLowerCase()
        if (!(name in headers)) headers[name] = buf.toString('latin1', from, to)
      }
    }
    if (status < 200) {
      // An interim answer (100 Continue, 103 Early Hints) precedes the real one; a switch of protocols, which no
      // call asked for, leaves nothing to read.
      if (status === 101) throw malformed('a switch of protocols no call asked for')
      return
    }
    this.status = status
    this.headers = headers
    const persistent = (connection & CLOSE) === 0 && (minor === 1 || (connection & KEEP_ALIVE) !== 0)
    this.#frame(status, length, transfer, persistent, keepAliveHeader)
  }

  /** How the body is delimited, and whether the connection may be reused after it. */
  #frame(
    status: number,
    length: number,
    transfer: string | null,
    persistent: boolean,
    keepAliveHeader: string | null,
  ): void {
    let reusable = persistent
    if (transfer !== null && length !== -1) throw malformed('both Transfer-Encoding and Content-Length')
    if (status === 204 || status === 304) {
      // No body, whatever the headers say; a server that says otherwise may send one anyway: no reuse.
      if (transfer !== null || length > 0) reusable = false
      this.#state = S.done
    } else if (transfer !== null) {
      const codings = transfer.split(',')
      if ((codings[codings.length - 1] as string).trim() === 'chunked') this.#startChunk()
      else {
        this.#state = S.untilClose
        reusable = false
      }
    } else if (length !== -1) {
      this.#remaining = length
      this.#state = length === 0 ? S.done : S.length
    } else {
      this.#state = S.untilClose
      reusable = false
    }
    const timeoutS = keepAliveHeader === null ? null : /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(keepAliveHeader)?.[1]
    if (timeoutS != null)
      this.keepAliveMs = Math.min(
        Number(timeoutS) * 1000 - PARSER_LIMITS.keepAliveMarginMs,
        PARSER_LIMITS.maxKeepAliveMs,
      )
    this.keepAlive = reusable && this.keepAliveMs > 0
  }

  #startChunk(): void {
    this.#state = S.chunkSize
    this.#remaining = 0
    this.#digits = 0
    this.#lineBytes = 0
  }

  /** One byte of a chunk's size line, of the CRLF after its data, or of the trailers. */
  #chunkControl(b: number): void {
    switch (this.#state) {
      case S.chunkSize: {
        const d = HEX[b] as number
        if (d !== -1) {
          if (++this.#digits > PARSER_LIMITS.maxChunkSizeDigits) throw malformed('a chunk size past any cap')
          this.#remaining = this.#remaining * 16 + d
          return
        }
        if (this.#digits === 0) throw malformed('a chunk without a size')
        if (b === SP || b === HT) this.#state = S.chunkSizeSpace
        else if (b === SEMICOLON) this.#state = S.chunkExtension
        else if (b === CR) this.#state = S.chunkSizeLf
        else throw malformed('a chunk size that is not hex')
        return
      }
      case S.chunkSizeSpace:
        if (b === SEMICOLON) this.#state = S.chunkExtension
        else if (b === CR) this.#state = S.chunkSizeLf
        else if (b !== SP && b !== HT) throw malformed('a chunk size that is not hex')
        return
      case S.chunkExtension:
        if (++this.#lineBytes > PARSER_LIMITS.maxHeadBytes) throw parseFailure('HEADERS_TOO_LARGE', 'headers too large')
        if (b === CR) this.#state = S.chunkSizeLf
        else if (TEXT[b] === 0) throw malformed('a control byte')
        return
      case S.chunkSizeLf:
        if (b !== LF) throw malformed('a chunk size line not ended by CRLF')
        this.#lineBytes = 0
        this.#state = this.#remaining === 0 ? S.trailerStart : S.chunkData
        return
      case S.chunkDataCr:
        if (b !== CR) throw malformed('chunk data longer than its size')
        this.#state = S.chunkDataLf
        return
      case S.chunkDataLf:
        if (b !== LF) throw malformed('chunk data longer than its size')
        this.#startChunk()
        return
      default:
        this.#trailer(b)
    }
  }

  /** Trailers are read and dropped, within the head's limit. */
  #trailer(b: number): void {
    if (++this.#lineBytes > PARSER_LIMITS.maxHeadBytes) throw parseFailure('HEADERS_TOO_LARGE', 'headers too large')
    switch (this.#state) {
      case S.trailerStart:
        this.#state = b === CR ? S.trailerEndLf : S.trailerLine
        if (b !== CR && TEXT[b] === 0) throw malformed('a control byte')
        return
      case S.trailerLine:
        if (b === CR) this.#state = S.trailerLineLf
        else if (TEXT[b] === 0) throw malformed('a control byte')
        return
      case S.trailerLineLf:
        if (b !== LF) throw malformed('a trailer line not ended by CRLF')
        this.#state = S.trailerStart
        return
      default:
        if (b !== LF) throw malformed('trailers not ended by CRLF')
        this.#state = S.done
    }
  }
}

/** A Content-Length value: decimal digits, at most 15 (a safe integer). */
function contentLength(buf: Buffer, from: number, to: number): number {
  if (to === from || to - from > 15) throw malformed('a Content-Length that is not a number')
  let n = 0
  for (let k = from; k < to; k += 1) {
    const d = (buf[k] as number) - 48
    if (d < 0 || d > 9) throw malformed('a Content-Length that is not a number')
    n = n * 10 + d
  }
  return n
}
