/**
 * The lean call (load/engine/lean-call.ts) and its HTTP/1.1 client (lean-client.ts), end to end through a phase's
 * recorder: against a real node:http server (framing, keep-alive, the headers the recorder reads, concurrency,
 * TLS), against raw TCP servers that send broken answers (each a bounded failure with its name, never a hang), and
 * beside undici, which must write the very same requests.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { Deadlines, leanCall, leanSpec, type LeanSpec } from '../../../load/engine/lean-call.ts'
import { LeanPool } from '../../../load/engine/lean-client.ts'
import { type CallHandle, nowMs, PhaseRecorder } from '../../../load/engine/recorder.ts'
import type { BucketName, PhasePlan, RequestSpec } from '../../../load/types.ts'

const KEY = 'sk-lean-test'

/** A phase's recorder that also keeps each answer's status and the headers handed to it. */
class Recorder extends PhaseRecorder {
  readonly answers: { status: number; headers: Record<string, string> }[] = []

  constructor(bucket: BucketName | null = null) {
    const plan: PhasePlan = {
      name: 'lean',
      description: '',
      engine: 'scheduler',
      slot: 'main',
      requests: [],
      rate: 10,
      connections: 4,
      durationMs: 1000,
      bucket,
      expectedLimit: null,
      fromRest: false,
      verdicts: [],
    }
    super(plan, { minuteMs: 60_000, bucketMs: 100, startedAt: nowMs() })
  }

  override headers(call: CallHandle, status: number, headers: Record<string, string>, at?: number): void {
    this.answers.push({ status, headers })
    super.headers(call, status, headers, at)
  }
}

interface Outcome {
  status: number | null
  headers: Record<string, string> | null
  error: string | null
  ms: number
}

/** Cleaned up after each test: pools, deadlines and servers. */
const open: { close(): unknown }[] = []
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close()
})

function client(origin: string, o: { connections?: number; timeoutMs?: number; ca?: Buffer } = {}) {
  const pool = new LeanPool(origin, o.connections ?? 4, o.ca ? { ca: o.ca } : {})
  const deadlines = new Deadlines(o.timeoutMs ?? 5000)
  open.push(deadlines, pool)
  let stopped = false
  /** Makes one call; resolves when it ended, with what the recorder saw of it. */
  const call = async (spec: RequestSpec, recorder = new Recorder()): Promise<Outcome> => {
    const lean = leanSpec(spec, origin, KEY) as LeanSpec
    const started = nowMs()
    await new Promise<void>((resolve) => leanCall(pool, recorder, deadlines, lean, nowMs(), () => stopped, resolve))
    const result = recorder.result(nowMs())
    const error = Object.keys(result.errors)[0] ?? null
    const answer = recorder.answers.at(-1)
    return { status: answer?.status ?? null, headers: answer?.headers ?? null, error, ms: nowMs() - started }
  }
  const stop = (): void => {
    stopped = true
    deadlines.abortAll()
  }
  return { pool, call, stop }
}

const GET: RequestSpec = { method: 'GET', path: '/' }
const at = (path: string, spec: Partial<RequestSpec> = {}): RequestSpec => ({ ...GET, path, ...spec })

async function listen<S extends Server | NetServer>(
  server: S,
): Promise<{ server: S; origin: string; sockets: number }> {
  const state = { server, origin: '', sockets: 0 }
  server.on('connection', () => (state.sockets += 1))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  open.push({ close: () => new Promise((resolve) => server.close(resolve)) })
  // Keep-alive connections would hold close() open.
  open.push({ close: () => ('closeAllConnections' in server ? server.closeAllConnections() : undefined) })
  return state
}

describe('against node:http', () => {
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: Buffer) => void> = {
    '/json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
    '/chunked': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      let n = 0
      const timer = setInterval(() => {
        if (++n < 5) res.write(`part ${n}`)
        else {
          clearInterval(timer)
          res.end('end')
        }
      }, 5)
    },
    '/refused': (_req, res) =>
      res
        .writeHead(429, {
          'Retry-After': '3',
          'X-RateLimit-Limit-Requests': '10',
          'X-RateLimit-Remaining-Requests': '0',
          'X-RateLimit-Reset-Requests': '3s',
        })
        .end('{}'),
    '/close': (_req, res) => res.writeHead(200, { connection: 'close' }).end('bye'),
    '/no-content': (_req, res) => res.writeHead(204).end(),
    '/echo': (req, res, body) => res.writeHead(200).end(`${req.method} ${body.length} ${req.headers['content-type']}`),
    '/never': () => undefined,
    '/huge': (_req, res) => {
      res.writeHead(200)
      const chunk = Buffer.alloc(256 * 1024, 'x')
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump)
      }
      pump()
    },
  }
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => (routes[req.url as string] ?? routes['/json'])?.(req, res, Buffer.concat(chunks)))
  }

  test('answers are counted, and one connection carries call after call', async () => {
    const target = await listen(createServer(handler))
    const { call } = client(target.origin)
    for (let i = 0; i < 20; i += 1) expect(await call(at('/json'))).toMatchObject({ status: 200, error: null })
    expect(await call(at('/chunked'))).toMatchObject({ status: 200, error: null })
    expect(await call(at('/no-content'))).toMatchObject({ status: 204, error: null })
    expect(await call(at('/json'))).toMatchObject({ status: 200, error: null })
    expect(target.sockets).toBe(1)
  })

  test('the recorder gets the headers it reads (a 429, or any answer of a phase with a bucket), and no others', async () => {
    const { origin } = await listen(createServer(handler))
    const { call } = client(origin)
    expect((await call(at('/json'))).headers).toEqual({})
    expect((await call(at('/refused'))).headers).toMatchObject({
      'retry-after': '3',
      'x-ratelimit-remaining-requests': '0',
    })
    const withBucket = await call(at('/json'), new Recorder('requests'))
    expect(withBucket.headers).toMatchObject({ 'content-type': 'application/json', connection: 'keep-alive' })
  })

  test('Connection: close is honoured: the next call opens another connection', async () => {
    const target = await listen(createServer(handler))
    const { call } = client(target.origin)
    expect(await call(at('/close'))).toMatchObject({ status: 200, error: null })
    expect(await call(at('/json'))).toMatchObject({ status: 200, error: null })
    expect(target.sockets).toBe(2)
  })

  test('a connection the server closed while idle is not a failure of the next call', async () => {
    const server = createServer(handler)
    server.keepAliveTimeout = 50
    const target = await listen(server)
    const { call } = client(target.origin)
    expect(await call(at('/json'))).toMatchObject({ status: 200, error: null })
    await sleep(300)
    expect(await call(at('/json'))).toMatchObject({ status: 200, error: null })
    expect(target.sockets).toBe(2)
  })

  test('bodies reach the server whole, with their headers', async () => {
    const { origin } = await listen(createServer(handler))
    const { call } = client(origin)
    const recorder = new Recorder('requests')
    const body = JSON.stringify({ input: 'é'.repeat(1000) })
    await call(at('/echo', { method: 'POST', body, headers: { 'content-type': 'application/json' } }), recorder)
    await call(at('/echo', { method: 'POST' }), recorder)
    await call(at('/echo', { method: 'DELETE' }), recorder)
    expect(recorder.answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(recorder.result(nowMs()).errors).toEqual({})
  })

  test('calls past the connections wait their turn; all are answered on that many connections', async () => {
    const target = await listen(createServer(handler))
    const { call } = client(target.origin, { connections: 2 })
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => call(at('/chunked'))))
    expect(outcomes.every((o) => o.status === 200 && o.error === null)).toBe(true)
    expect(target.sockets).toBe(2)
  })

  test('a target that never answers: a timeout at the deadline; a stop: stopped at once', async () => {
    const { origin } = await listen(createServer(handler))
    const slow = client(origin, { timeoutMs: 300 })
    const timedOut = await slow.call(at('/never'))
    expect(timedOut).toMatchObject({ status: null, error: 'timeout' })
    expect(timedOut.ms).toBeGreaterThanOrEqual(295)
    expect(timedOut.ms).toBeLessThan(3000)
    const stoppable = client(origin, { timeoutMs: 60_000 })
    const pending = stoppable.call(at('/never'))
    await sleep(50)
    stoppable.stop()
    expect(await pending).toMatchObject({ error: 'stopped' })
  })

  test('a body past the byte cap is cut: body too large, after its status was counted', async () => {
    const { origin } = await listen(createServer(handler))
    const { call } = client(origin)
    expect(await call(at('/huge'))).toMatchObject({ status: 200, error: 'body too large' })
  })

  test('a refused connection is counted as such', async () => {
    const server = createNetServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    await new Promise((resolve) => server.close(resolve))
    const { call } = client(`http://127.0.0.1:${port}`)
    expect(await call(GET)).toMatchObject({ status: null, error: 'connection refused' })
  })
})

describe('over TLS', () => {
  let dir = ''
  let cert: Buffer | null = null
  let key: Buffer | null = null
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lean-tls-'))
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      )
      cert = readFileSync(join(dir, 'cert.pem'))
      key = readFileSync(join(dir, 'key.pem'))
    } catch {
      // No openssl on this machine: the TLS test says so and is skipped.
    }
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('an https origin: answers over TLS, the connection kept, the certificate checked', async (ctx) => {
    if (cert === null || key === null) return ctx.skip('openssl is not installed')
    const server = createTlsServer({ cert, key }, (_req, res) => res.writeHead(200).end('{"tls":true}'))
    const target = await listen(server)
    const origin = target.origin.replace('http:', 'https:')
    const trusted = client(origin, { ca: cert })
    for (let i = 0; i < 5; i += 1) expect(await trusted.call(GET)).toMatchObject({ status: 200, error: null })
    expect(target.sockets).toBe(1)
    // Without the test's CA the certificate is not trusted: a failure named by TLS, not an answer.
    const untrusted = await client(origin).call(GET)
    expect(untrusted.status).toBeNull()
    expect(untrusted.error).toMatch(/CERT|SIGNED/)
  })
})

/** A TCP server that reads each request head and answers with `answer(socket, n)`, n counting requests from 0. */
async function raw(answer: (socket: Socket, n: number) => void) {
  let n = 0
  const server = createNetServer((socket) => {
    let seen = ''
    socket.on('error', () => undefined)
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1')
      while (seen.includes('\r\n\r\n')) {
        seen = seen.slice(seen.indexOf('\r\n\r\n') + 4)
        answer(socket, n++)
      }
    })
  })
  return listen(server)
}

describe('against a raw server that sends broken answers', () => {
  const broken: Array<[string, string, string]> = [
    ['garbage', 'SSH-2.0-OpenSSH_9.6\r\n', 'malformed answer'],
    ['a malformed status line', 'HTTP/1.1 OK 200\r\n\r\n', 'malformed answer'],
    ['a bare LF', 'HTTP/1.1 200 OK\ncontent-length: 0\n\n', 'malformed answer'],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', 'malformed answer'],
    ['a bad chunk', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nxyz\r\n', 'malformed answer'],
    ['headers past 16 KiB', `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 'headers too large'],
  ]
  test.each(broken)('%s: a bounded failure at once, named; the connection is not reused', async (_, answer, name) => {
    const target = await raw((socket) => socket.write(answer))
    const { call } = client(target.origin, { timeoutMs: 20_000 })
    const first = await call(GET)
    expect(first).toMatchObject({ status: null, error: name })
    expect(first.ms).toBeLessThan(5000)
    await call(GET)
    expect(target.sockets).toBe(2)
  })

  test('a reset mid-body, and a close mid-head: connection reset, the status counted where it came', async () => {
    const midBody = await raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n0123456789')
      setTimeout(() => socket.resetAndDestroy(), 20)
    })
    expect(await client(midBody.origin).call(GET)).toMatchObject({ status: 200, error: 'connection reset' })
    const midHead = await raw((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-len'))
    expect(await client(midHead.origin).call(GET)).toMatchObject({ status: null, error: 'connection reset' })
    const reset = await raw((socket) => socket.resetAndDestroy())
    expect(await client(reset.origin).call(GET)).toMatchObject({ status: null, error: 'connection reset' })
  })

  test('a body that trickles, and headers that never end: cut at the deadline', async () => {
    const trickle = await raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n')
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('x')), 20)
    })
    const slow = await client(trickle.origin, { timeoutMs: 400 }).call(GET)
    expect(slow).toMatchObject({ status: 200, error: 'timeout' })
    expect(slow.ms).toBeLessThan(3000)
    const endless = await raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\n')
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('x-h: v\r\n')), 20)
    })
    expect(await client(endless.origin, { timeoutMs: 400 }).call(GET)).toMatchObject({ status: null, error: 'timeout' })
  })

  test('a body framed by the close; an answer split into single bytes; interim answers first', async () => {
    const untilClose = await raw((socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nall of it'))
    expect(await client(untilClose.origin).call(GET)).toMatchObject({ status: 200, error: null })
    const answer =
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'
    const bytewise = await raw(async (socket) => {
      socket.setNoDelay(true)
      for (const byte of answer) {
        socket.write(byte)
        await sleep(1)
      }
    })
    const { call } = client(bytewise.origin)
    expect(await call(GET)).toMatchObject({ status: 201, error: null })
    expect(await call(GET)).toMatchObject({ status: 201, error: null })
    expect(bytewise.sockets).toBe(1)
  })

  test('bytes past an answer, or on an idle connection: the answer counts, the connection is dropped', async () => {
    const ok = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'
    const extra = await raw((socket) => socket.write(`${ok}HTTP/1.1 200 OK\r\n`))
    const first = client(extra.origin)
    expect(await first.call(GET)).toMatchObject({ status: 200, error: null })
    expect(await first.call(GET)).toMatchObject({ status: 200, error: null })
    expect(extra.sockets).toBe(2)
    const idle = await raw((socket) => {
      socket.write(ok)
      setTimeout(() => socket.destroyed || socket.write('junk'), 30)
    })
    const second = client(idle.origin)
    expect(await second.call(GET)).toMatchObject({ status: 200, error: null })
    await sleep(150)
    expect(await second.call(GET)).toMatchObject({ status: 200, error: null })
    expect(idle.sockets).toBe(2)
  })

  test('a target that asks for a short keep-alive gets a new connection per call', async () => {
    const target = await raw((socket) =>
      socket.write('HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 0\r\n\r\n'),
    )
    const { call } = client(target.origin)
    for (let i = 0; i < 3; i += 1) expect(await call(GET)).toMatchObject({ status: 200, error: null })
    expect(target.sockets).toBe(3)
  })
})

describe('the requests', () => {
  /** A raw server that keeps each request it receives, head and body, and answers it with an empty 200. */
  async function recording(): Promise<{ origin: string; seen: string[] }> {
    const seen: string[] = []
    const server = createNetServer((socket) => {
      let text = ''
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1')
        const head = text.indexOf('\r\n\r\n')
        const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0)
        if (head === -1 || text.length < head + 4 + length) return
        seen.push(text)
        text = ''
        socket.end('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n')
      })
    })
    const { origin } = await listen(server)
    return { origin, seen }
  }

  const specs: RequestSpec[] = [
    { method: 'GET', path: '/v1/models?limit=2' },
    { method: 'POST', path: '/v1/chat', headers: { 'content-type': 'application/json' }, body: '{"a":"é"}' },
    { method: 'POST', path: '/v1/empty' },
    { method: 'DELETE', path: '/v1/files/f1', headers: { 'X-Trace': 'a b', Authorization: 'Bearer other' } },
  ]
  test.each(specs)('$method $path is written byte for byte as undici writes it', async (spec) => {
    const { origin, seen } = await recording()
    await client(origin).call(spec)
    await request(`${origin}${spec.path}`, {
      method: spec.method,
      headers: { authorization: `Bearer ${KEY}`, ...spec.headers },
      body: spec.body,
    }).then((r) => r.body.dump())
    expect(seen).toHaveLength(2)
    expect(seen[0]).toBe(seen[1])
  })

  test('a spec whose headers frame the message, that undici would refuse, or of another method, is left to undici', () => {
    const origin = 'http://127.0.0.1:1'
    expect(leanSpec(GET, origin, KEY)).not.toBeNull()
    const refused: Record<string, string>[] = [
      { Host: 'elsewhere' },
      { connection: 'close' },
      { 'content-length': '3' },
      { 'transfer-encoding': 'chunked' },
      { 'x-bad': 'a\r\nb' },
      { 'bad name': 'x' },
    ]
    for (const headers of refused) expect(leanSpec({ ...GET, headers }, origin, KEY)).toBeNull()
    expect(leanSpec({ ...GET, path: '/a b' }, origin, KEY)).toBeNull()
    expect(leanSpec({ ...GET, method: 'HEAD' as RequestSpec['method'] }, origin, KEY)).toBeNull()
  })
})
