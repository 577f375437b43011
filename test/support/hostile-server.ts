/**
 * A hostile target for the self-tests: a node:http server on a loopback port that answers plausibly where a run
 * sets itself up (the probe, the model catalogue with one chat model) and misbehaves in one chosen way on the
 * routes under test. Plausible elsewhere on purpose: real checks must meet the hostile answer, not die in a
 * fixture before they reach it.
 *
 * One mode per instance (several instances run side by side); `on` picks the routes that misbehave.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

const HOSTILE_MODES = [
  'malformed-json', // 200, application/json, a body cut off half way through
  'hang', // reads the request and never sends a byte
  'endless-body', // headers and the start of a JSON body, then a byte every few milliseconds, forever
  'trickle', // headers and the start of a JSON body, then one byte every 2 s (HostileOptions.trickleEveryMs), forever
  'huge-body', // 200, application/json, 50 MB sent as fast as the client reads
  'reset', // destroys the connection on receipt of the request
  'redirect-loop', // 302 to the very same URL, every time
  'ok-instead-of-error', // 200 with a plausible body where the reference requires an error (unknown ids, bad keys)
  'wrong-content-type', // a stream's events labelled application/json
  'endless-sse', // text/event-stream whose deltas never stop and whose terminal event never comes
  'cut-sse', // text/event-stream that ends the response in the middle of an event
  'silent-sse', // text/event-stream headers, then nothing, connection kept open
] as const
export type HostileMode = (typeof HOSTILE_MODES)[number]

/** Modes that misbehave on streamed responses; the others misbehave on plain JSON answers. */
const STREAM_MODES: ReadonlySet<HostileMode> = new Set(['wrong-content-type', 'endless-sse', 'cut-sse', 'silent-sse'])

export const HOSTILE = {
  hugeBodyBytes: 50 * 1024 * 1024, // bytes: well past any cap a client should hold in memory
  trickleEveryMs: 20, // between two bytes of an endless body
  sseEveryMs: 5, // between two events of an endless stream
  slowTrickleEveryMs: 2000, // between two bytes of a trickled body: a slow link, or a target stuck mid-answer
}

interface HostileOptions {
  /** Path prefixes that misbehave; default /v1/models for plain modes, /v1/responses for stream modes. */
  on?: readonly string[]
  /** For trickle: between two bytes (default HOSTILE.slowTrickleEveryMs). */
  trickleEveryMs?: number
}

export interface HostileServer {
  url: string
  mode: HostileMode
  /** Requests that met the hostile behaviour. */
  readonly hits: number
  close(): Promise<void>
}

const CHAT_MODEL = 'hostile-chat-mini'

const LIST_ITEM = {
  id: CHAT_MODEL,
  object: 'model',
  owned_by: 'hostile',
  min_tier: 0,
  pricing: { input: 0.15, cached_input: 0.075, output: 0.6 },
  mode: 'chat',
  max_tokens: 16384,
  max_input_tokens: 128000,
  max_output_tokens: 16384,
  supports_system_messages: true,
  supports_function_calling: true,
  supports_parallel_function_calling: true,
  supports_vision: false,
  supports_pdf_input: false,
  supports_prompt_caching: true,
  supports_tool_choice: true,
  supports_response_schema: true,
  supports_web_search: false,
}

function retrieved(id: string): Record<string, unknown> {
  const { id: _, object: __, owned_by: ___, pricing, ...metadata } = LIST_ITEM
  const tiers = Object.fromEntries([0, 1, 2, 3, 4, 5].map((t) => [String(t), { rpm: 500, tpm: 200000 }]))
  return {
    id,
    object: 'model',
    created: 1735689600,
    owned_by: 'hostile',
    extra: { metadata, pricing, rate_limits: { tiers, current: { tier: 2, rpm: 500, tpm: 200000 } } },
  }
}

/** A UUID v7 (Part 1 section 4.1), so that the plausible answers pass the shared-header audits. */
function uuidV7(): string {
  const bytes = randomBytes(16)
  bytes.writeUIntBE(Date.now(), 0, 6)
  bytes[6] = (bytes[6]! & 0x0f) | 0x70
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function commonHeaders(contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    'svc-request-id': uuidV7(),
    'x-ratelimit-limit-requests': '500',
    'x-ratelimit-remaining-requests': '499',
    'x-ratelimit-reset-requests': '60s',
    'x-ratelimit-limit-tokens': '200000',
    'x-ratelimit-remaining-tokens': '200000',
    'x-ratelimit-reset-tokens': '60s',
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, commonHeaders('application/json')).end(JSON.stringify(body))
}

function errorBody(message: string, code: string): unknown {
  return { error: { message, type: 'invalid_request_error', param: null, code } }
}

/** What a well-behaved gateway would say on the routes a run needs before it reaches the hostile ones. */
function plausible(req: IncomingMessage, res: ServerResponse, path: string): void {
  const auth = req.headers.authorization
  if (path === '/public/models') json(res, 200, { object: 'list', data: [LIST_ITEM] })
  else if (auth === undefined || !auth.startsWith('Bearer '))
    json(res, 401, errorBody('missing key', 'invalid_api_key'))
  else if (path === '/v1/models') json(res, 200, { object: 'list', data: [LIST_ITEM] })
  else if (path === `/v1/models/${CHAT_MODEL}`) json(res, 200, retrieved(CHAT_MODEL))
  else if (path.startsWith('/v1/models/')) json(res, 404, errorBody('no such model', 'model_not_found'))
  else json(res, 404, errorBody(`no route ${req.method} ${path}`, 'not_found'))
}

/** Writes until `total` bytes are sent or the client goes away, waiting for the socket to drain in between. */
function pump(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, ' ')
  let sent = 0
  const write = (): void => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length
      if (!res.write(chunk)) return void res.once('drain', write)
    }
    if (!res.destroyed) res.end(']}')
  }
  res.write('{"object":"list","data":[')
  write()
}

/** Calls `fn` every `ms` until the response is closed. */
function every(res: ServerResponse, ms: number, fn: () => void): void {
  const timer = setInterval(() => (res.destroyed || res.writableEnded ? clearInterval(timer) : fn()), ms)
  res.on('close', () => clearInterval(timer))
}

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
}

const CREATED = sse('response.created', {
  sequence_number: 0,
  response: { id: 'resp_hostile', object: 'response', status: 'in_progress', model: CHAT_MODEL, output: [] },
})
const delta = (n: number): string =>
  sse('response.output_text.delta', {
    sequence_number: n,
    item_id: 'msg_hostile',
    output_index: 0,
    content_index: 0,
    delta: 'more ',
  })

function misbehave(
  mode: HostileMode,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  options: HostileOptions,
): void {
  switch (mode) {
    case 'malformed-json':
      return void res
        .writeHead(200, commonHeaders('application/json'))
        .end('{"object":"list","data":[{"id":"hostile-chat-mini","object":"mod')
    case 'hang':
      return // the socket stays open until the client gives up
    case 'endless-body':
      res.writeHead(200, commonHeaders('application/json'))
      res.write('{"object":"list","data":[')
      every(res, HOSTILE.trickleEveryMs, () => res.write(' '))
      return
    case 'trickle':
      res.writeHead(200, commonHeaders('application/json'))
      res.write('{')
      every(res, options.trickleEveryMs ?? HOSTILE.slowTrickleEveryMs, () => res.write(' '))
      return
    case 'huge-body':
      res.writeHead(200, commonHeaders('application/json'))
      pump(res, HOSTILE.hugeBodyBytes)
      return
    case 'reset':
      return void req.socket.destroy()
    case 'redirect-loop':
      return void res.writeHead(302, { ...commonHeaders('application/json'), location: req.url ?? path }).end('{}')
    case 'ok-instead-of-error': {
      const id = path.startsWith('/v1/models/') ? decodeURIComponent(path.slice('/v1/models/'.length)) : undefined
      json(res, 200, id === undefined ? { object: 'list', data: [LIST_ITEM] } : retrieved(id))
      return
    }
    case 'wrong-content-type':
      return void res.writeHead(200, commonHeaders('application/json')).end(CREATED + delta(1))
    case 'endless-sse': {
      res.writeHead(200, commonHeaders('text/event-stream'))
      res.write(CREATED)
      let n = 1
      every(res, HOSTILE.sseEveryMs, () => res.write(delta(n++)))
      return
    }
    case 'cut-sse':
      res.writeHead(200, commonHeaders('text/event-stream'))
      return void res.end(
        `${CREATED}${delta(1)}event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_num`,
      )
    case 'silent-sse':
      res.writeHead(200, commonHeaders('text/event-stream'))
      return void res.flushHeaders()
  }
}

export async function startHostileServer(mode: HostileMode, options: HostileOptions = {}): Promise<HostileServer> {
  const on = options.on ?? (STREAM_MODES.has(mode) ? ['/v1/responses'] : ['/v1/models'])
  let hits = 0
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://hostile').pathname
    // Read the whole request first: a client still sending would otherwise see its own write fail, not our answer.
    req.resume()
    req.on('end', () => {
      if (on.some((prefix) => path.startsWith(prefix))) {
        hits += 1
        misbehave(mode, req, res, path, options)
      } else {
        plausible(req, res, path)
      }
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    mode,
    get hits() {
      return hits
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Hung and endless answers hold their sockets open: close them, or close() would wait for them forever.
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
