/**
 * The lean call's HTTP/1.1 client: keep-alive connections to one origin (net, or tls for https), one request in
 * flight on each, the request written as the one buffer its spec built once, the answer read by ResponseParser
 * (http1-parser.ts) straight out of one read buffer that every connection shares, so that an answer costs no
 * stream, no chunk copied and no object beyond what the recorder keeps. The calls that read bodies (streams,
 * uploads) go through undici (call.ts).
 */
import { connect as netConnect, isIP, type Socket } from 'node:net'
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls'
import { CALL_LIMITS } from './call.ts'
import { type HeaderReader, parseFailure, ResponseParser } from './http1-parser.ts'
import { nowMs } from './recorder.ts'

/** One request and the answer it waits for, as the pool drives it. */
export interface Exchange extends HeaderReader {
  /** The whole request, head and body. */
  readonly request: Buffer
  /** The final status line and headers arrived at `at` (the headers only when wantsHeaders said so). */
  answered(status: number, headers: Record<string, string>, at: number): void
  /** The answer ended (null), or the exchange failed; called once. `at`: when, if the client read the clock. */
  ended(error: Error | null, at?: number): void
  /** The pool's: the connection carrying the exchange, while one does. */
  carrier: object | null
}

/** Every read of every connection lands here, and is parsed before the next read: one buffer is enough. */
const READ_BUFFER_BYTES = 64 * 1024

/** A connection, and the exchange on it. */
class Connection {
  readonly socket: Socket
  readonly parser = new ResponseParser(CALL_LIMITS.maxBodyBytes)
  readonly pool: LeanPool
  exchange: Exchange | null = null
  idleSince = 0
  #reported = false
  #closed = false

  constructor(pool: LeanPool, socket: Socket) {
    this.pool = pool
    this.socket = socket
    socket.on('error', (error: Error) => this.close(error))
    socket.on('end', () => this.#ended())
    socket.on('close', () => this.close(null))
  }

  send(exchange: Exchange): void {
    this.exchange = exchange
    exchange.carrier = this
    this.#reported = false
    this.parser.start(exchange)
    this.socket.write(exchange.request)
  }

  /** Bytes [0, n) of `buf` arrived. */
  read(buf: Buffer, n: number): void {
    const exchange = this.exchange
    // Bytes that answer no request: the target is confused, and nothing it sends on this connection can be trusted.
    if (exchange === null) {
      this.close(null)
      return
    }
    const parser = this.parser
    let at: number
    try {
      at = parser.execute(buf, 0, n)
    } catch (error) {
      this.close(error as Error)
      return
    }
    const headed = !this.#reported && parser.status !== 0
    if (!headed && !parser.done) return
    // One reading of the clock for the head and the end that one read brought.
    const t = nowMs()
    if (headed) {
      this.#reported = true
      exchange.answered(parser.status, parser.headers, t)
    }
    if (!parser.done) return
    this.#detach(exchange)
    // Bytes past the answer, or a target that said it closes: the connection carries no other request.
    if (parser.keepAlive && at === n && !this.#closed) this.pool.released(this, t)
    else this.close(null)
    exchange.ended(null, t)
  }

  /** The target ended the connection: a body it frames ends with it; any other answer in flight was cut short. */
  #ended(): void {
    const exchange = this.exchange
    if (exchange === null) {
      this.close(null)
      return
    }
    try {
      this.parser.eof()
    } catch (error) {
      this.close(error as Error)
      return
    }
    this.#detach(exchange)
    this.close(null)
    exchange.ended(null)
  }

  #detach(exchange: Exchange): void {
    this.exchange = null
    exchange.carrier = null
  }

  /** Ends the connection, failing its exchange with `error` (a close mid-answer without one: a reset). */
  close(error: Error | null): void {
    if (!this.#closed) {
      this.#closed = true
      this.socket.destroy()
      this.pool.removed(this)
    }
    const exchange = this.exchange
    if (exchange === null) return
    this.#detach(exchange)
    exchange.ended(error ?? parseFailure('ECONNRESET', 'the target closed the connection before the answer ended'))
  }
}

/**
 * Up to `connections` keep-alive connections to one origin. An exchange takes the connection freed last (the
 * others may time out idle), else opens one, else waits its turn.
 */
export class LeanPool {
  readonly #idle: Connection[] = []
  readonly #all = new Set<Connection>()
  readonly #waiting: Exchange[] = []
  readonly #host: string
  readonly #port: number
  readonly #tls: boolean
  readonly #servername: string | undefined
  readonly #tlsOptions: ConnectionOptions
  readonly #readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES)
  readonly connections: number
  #closed = false

  /** `tls`: options of an https origin's connections beyond node's defaults (a test's own CA). */
  constructor(origin: string, connections: number, tls: ConnectionOptions = {}) {
    const url = new URL(origin)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`not an HTTP origin: ${origin}`)
    this.#tls = url.protocol === 'https:'
    // An IPv6 literal is bracketed in a URL, not in a socket's address.
    this.#host = url.hostname.replace(/^\[(.*)\]$/, '$1')
    this.#port = Number(url.port || (this.#tls ? 443 : 80))
    this.#servername = this.#tls && isIP(this.#host) === 0 ? this.#host : undefined
    this.connections = Math.max(1, connections)
    this.#tlsOptions = tls
  }

  /** Sends `exchange` at `at` (epoch ms) on a free connection, a new one, or the first to be freed. */
  send(exchange: Exchange, at: number): void {
    if (this.#closed) {
      exchange.ended(parseFailure('ECONNRESET', 'the client is closed'))
      return
    }
    for (let c = this.#idle.pop(); c !== undefined; c = this.#idle.pop()) {
      // Past the idle time the target allows, it may be closing the connection as we write: not reused.
      if (at - c.idleSince <= c.parser.keepAliveMs) {
        c.send(exchange)
        return
      }
      c.close(null)
    }
    if (this.#all.size < this.connections) this.#open().send(exchange)
    else this.#waiting.push(exchange)
  }

  /** Stops `exchange` wherever it is: its connection closes (the answer in flight cannot be told apart). */
  abort(exchange: Exchange, reason: Error): void {
    if (exchange.carrier !== null) {
      ;(exchange.carrier as Connection).close(reason)
      return
    }
    const at = this.#waiting.indexOf(exchange)
    if (at !== -1) {
      this.#waiting.splice(at, 1)
      exchange.ended(reason)
    }
  }

  /** Closes every connection; exchanges still open fail. */
  close(): void {
    this.#closed = true
    for (const c of [...this.#all]) c.close(null)
    for (const e of this.#waiting.splice(0)) e.ended(parseFailure('ECONNRESET', 'the client is closed'))
  }

  /** The connection's exchange ended at `at`, and it may carry the next one. */
  released(connection: Connection, at: number): void {
    const next = this.#waiting.shift()
    if (next !== undefined) connection.send(next)
    else {
      connection.idleSince = at
      this.#idle.push(connection)
    }
  }

  removed(connection: Connection): void {
    this.#all.delete(connection)
    const at = this.#idle.indexOf(connection)
    if (at !== -1) this.#idle.splice(at, 1)
    if (this.#waiting.length > 0 && !this.#closed) this.#open().send(this.#waiting.shift() as Exchange)
  }

  #open(): Connection {
    let connection: Connection
    if (this.#tls) {
      const socket = tlsConnect({
        ...this.#tlsOptions,
        host: this.#host,
        port: this.#port,
        ...(this.#servername !== undefined ? { servername: this.#servername } : {}),
        ALPNProtocols: ['http/1.1'],
      })
      socket.setNoDelay(true)
      connection = new Connection(this, socket)
      socket.on('data', (chunk: Buffer) => connection.read(chunk, chunk.length))
    } else {
      const socket = netConnect({
        host: this.#host,
        port: this.#port,
        noDelay: true,
        onread: {
          buffer: this.#readBuffer,
          callback: (n: number): boolean => {
            connection.read(this.#readBuffer, n)
            return true
          },
        },
      })
      connection = new Connection(this, socket)
    }
    connection.socket.setKeepAlive(true, 60_000)
    this.#all.add(connection)
    return connection
  }
}
