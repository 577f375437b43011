/**
 * The HTTP client of the suites, on undici. Every request has a deadline and a body cap, so a hostile or broken
 * target cannot hang or exhaust a run; every exchange is recorded (redacted) for audits, reports and failure
 * messages; every attempt carries a fresh X-Client-Request-Id (Part 1 section 4.1).
 */
import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent, request, errors as undiciErrors, type Dispatcher } from 'undici'
import type { TargetConfig } from '../setup/config.ts'
import { KEY_ENV, type KeySlot } from '../keys.ts'
import { HarnessError, TargetFailure } from '../errors.ts'
import { EXCERPT_CHARS, bodyExcerpt, type AuthMode, type ExchangeExcerpt, type KeyUse } from '../exchange.ts'
import { nextSequence, recordExchange, skipTest } from './recorder.ts'
import { noteServed } from './served-routes.ts'
import { INVALID_KEY_PREFIX, Redactor } from '../redact.ts'
import { recordNotes } from './records.ts'
import { Pacer } from './pacing.ts'
import { delayBeforeRetryMs } from './retry.ts'
import { claimReservations, settleReservations } from './budget.ts'
import { RunGate } from '../setup/run-stop.ts'
import {
  describeSseEnd,
  readSse,
  SSE_DEFAULTS,
  type SseEnd,
  type SseEvent,
  type SseItem,
  type SseLimits,
} from './sse.ts'

export const CLIENT_DEFAULTS = {
  maxBodyBytes: 16 * 1024 * 1024, // bytes; larger than any response the reference describes; a bigger one is a fault, and reading stops there
  connections: 16, // per origin; the suites run a few requests at a time
  // Multiples of the per-request deadline (GATEWAY_TIMEOUT_MS) that a streamed answer may take in all: a stream is
  // one answer in pieces, and two of them must end within one test's time (SUITE_DEFAULTS.testTimeoutMs), or a
  // target whose stream never ends would show as a harness error instead of its own failure.
  streamDeadlines: 1,
}

export interface RequestSpec {
  method?: string
  path: string
  query?: Record<string, string | number | boolean | undefined>
  /** Which key to send: a configured slot (default main), 'invalid' for a made-up key, or null for none. */
  key?: KeyUse
  /** How to send it (default bearer). */
  auth?: AuthMode
  headers?: Record<string, string>
  json?: unknown
  /**
   * A raw body instead of `json`: text or bytes, or a factory of a byte stream for bodies too large to hold in
   * memory (a factory, so that a retry can send it again). Set content-type in `headers`.
   */
  body?: string | Uint8Array | (() => AsyncIterable<Uint8Array>)
  /** How a streamed body appears in reports and curl lines, e.g. "multipart: file (128000001 bytes), purpose". */
  bodyNote?: string
  /** Our trace id: a string to send exactly, false to send none; default a fresh id per attempt. */
  clientRequestId?: string | false
  /** Retry 429 with backoff (default true). Tests about rate limits turn it off to see every 429. */
  retry429?: boolean
  timeoutMs?: number
}

/** A response read as server-sent events (Part 1 §6.2): what arrived, when, and how the stream ended. */
interface StreamResult {
  items: SseItem[]
  events: SseEvent[]
  end: SseEnd
  /** For each event, milliseconds after the request was sent at which it was read. */
  eventTimesMs: number[]
}

/** A completed exchange as tests see it: the full body, parsed JSON, and the excerpt that reports keep. */
export class Exchange {
  readonly excerpt: ExchangeExcerpt
  readonly text: string
  /** Present when the response was read as a stream of server-sent events. */
  readonly stream?: StreamResult
  /** The body exactly as received, for binary answers (audio, video); empty for streams. */
  readonly bytes: Buffer

  constructor(excerpt: ExchangeExcerpt, text: string, stream?: StreamResult, bytes: Buffer = Buffer.alloc(0)) {
    this.excerpt = excerpt
    this.text = text
    this.stream = stream
    this.bytes = bytes
  }

  get status(): number {
    return this.excerpt.status ?? 0
  }

  header(name: string): string | undefined {
    return this.excerpt.responseHeaders?.[name.toLowerCase()]
  }

  get svcRequestId(): string | undefined {
    return this.header('svc-request-id')
  }

  #parsed: { value: unknown; error?: string } | undefined

  /** The body parsed as JSON; undefined when it is not JSON (see jsonError). */
  get json(): unknown {
    return this.#parse().value
  }

  get jsonError(): string | undefined {
    return this.#parse().error
  }

  #parse(): { value: unknown; error?: string } {
    if (this.#parsed === undefined) {
      try {
        this.#parsed = { value: JSON.parse(this.text) }
      } catch (error) {
        this.#parsed = { value: undefined, error: (error as Error).message }
      }
    }
    return this.#parsed
  }
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
])

/** A request body as undici sends it: text, bytes, or a stream made from the spec's generator. */
type RequestBody = string | Uint8Array | Readable | undefined

export class TargetClient {
  readonly config: TargetConfig
  readonly redactor: Redactor
  readonly #dispatcher: Dispatcher
  readonly #pacer = new Pacer()
  readonly #gate: RunGate
  #counter = 0

  constructor(config: TargetConfig, dispatcher?: Dispatcher) {
    this.config = config
    this.#gate = new RunGate(config)
    this.redactor = new Redactor(config.keys, [config.nativeKeyHeader])
    // HTTP/1.1 only, as before undici 8, which takes HTTP/2 when a TLS target offers it: the checks read the
    // target's HTTP/1.1 answer. Every Agent of ours says the same.
    this.#dispatcher = dispatcher ?? new Agent({ connections: CLIENT_DEFAULTS.connections, allowH2: false })
  }

  hasKey(slot: KeySlot): boolean {
    return this.config.keys[slot] !== undefined
  }

  /** The key of a slot; skips the running test when the run was given none, saying which variable to set. */
  keyOrSkip(slot: KeySlot): string {
    const key = this.config.keys[slot]
    if (key === undefined) skipTest(`no key for ${slot}: set ${KEY_ENV[slot]}`)
    return key
  }

  get(path: string, spec: Omit<RequestSpec, 'path' | 'method'> = {}): Promise<Exchange> {
    return this.request({ ...spec, path, method: 'GET' })
  }

  post(path: string, json: unknown, spec: Omit<RequestSpec, 'path' | 'method' | 'json'> = {}): Promise<Exchange> {
    return this.request({ ...spec, path, method: 'POST', json })
  }

  /**
   * Sends a request and reads the answer as server-sent events when it is `text/event-stream` (otherwise as a
   * plain body, e.g. an error). The stream is read to its end within the SSE caps and timeouts.
   */
  stream(spec: RequestSpec, limits: Partial<SseLimits> = {}): Promise<Exchange> {
    return this.request(spec, limits)
  }

  async request(spec: RequestSpec, sseLimits?: Partial<SseLimits>): Promise<Exchange> {
    // Taken before any await: the cost reserved for this call (harness/worker/budget.ts), settled by its answer.
    const reservations = claimReservations()
    const exchange = await this.#send(spec, sseLimits)
    settleReservations(reservations, exchange.status)
    // A route once served is not taken for missing when it later answers 404 (harness/worker/assert.ts).
    noteServed(this.config.runId, exchange.excerpt)
    return exchange
  }

  async #send(spec: RequestSpec, sseLimits: Partial<SseLimits> | undefined): Promise<Exchange> {
    const retry = spec.retry429 ?? true
    const bucket = Pacer.bucketOf(String(spec.key === undefined ? 'main' : spec.key), spec.path, modelOf(spec))
    for (let attempt = 1; ; attempt += 1) {
      // Tests about rate limits (retry429: false) see every 429; everything else waits for an empty bucket's reset.
      const pacedMs = retry ? this.#pacer.waitMs(bucket) : 0
      if (pacedMs > 0) await sleep(pacedMs)
      const exchange = await this.#watched(spec, attempt, sseLimits)
      if (pacedMs > 0) exchange.excerpt.pacedMs = Math.round(pacedMs)
      this.#pacer.observe(bucket, exchange.excerpt.responseHeaders ?? {})
      if (exchange.status !== 429 || !retry) return exchange
      const delay = delayBeforeRetryMs(attempt, exchange.excerpt.responseHeaders ?? {})
      if (delay === undefined) return exchange
      await sleep(delay)
    }
  }

  /** One attempt, refused when the run has stopped calling, and counted towards the target's health (run-stop.ts). */
  async #watched(spec: RequestSpec, attempt: number, sseLimits: Partial<SseLimits> | undefined): Promise<Exchange> {
    const what = `${spec.method ?? 'GET'} ${spec.path}`
    this.#gate.check(what)
    let exchange: Exchange
    try {
      exchange = await this.#once(spec, attempt, sseLimits)
    } catch (error) {
      if (error instanceof TargetFailure || (error instanceof HarnessError && error.code === 'TARGET_UNREACHABLE'))
        this.#gate.failed(error.message)
      throw error
    }
    const broken = brokenAnswer(exchange)
    if (broken === undefined) this.#gate.answered()
    else this.#gate.failed(`${what}: ${broken}`)
    return exchange
  }

  #url(spec: RequestSpec): string {
    const url = new URL(spec.path, this.config.baseUrl)
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.append(name, String(value))
    }
    return url.toString()
  }

  #headers(
    spec: RequestSpec,
    attempt: number,
    crossOrigin: boolean,
  ): { headers: Record<string, string>; key: KeyUse; auth: AuthMode } {
    const headers: Record<string, string> = { accept: 'application/json', ...spec.headers }
    // A key never leaves the service: a URL of another origin (a storage host a redirect leads to) goes without one.
    const key: KeyUse = crossOrigin ? null : spec.key === undefined ? 'main' : spec.key
    const auth: AuthMode = key === null ? 'none' : (spec.auth ?? 'bearer')
    if (key !== null) {
      const value = key === 'invalid' ? `${INVALID_KEY_PREFIX}${randomUUID()}` : this.keyOrSkip(key)
      if (auth === 'bearer') headers.authorization = `Bearer ${value}`
      else if (auth === 'x-api-key') headers['x-api-key'] = value
    }
    if (spec.clientRequestId !== false) {
      this.#counter += 1
      // Not UUID-shaped on purpose: a target must never take it for its own id (Part 1 section 4.1).
      headers['x-client-request-id'] =
        spec.clientRequestId ?? `gc-${this.config.runId}-${process.pid}-${this.#counter}-${attempt}`
    }
    if (spec.json !== undefined) headers['content-type'] ??= 'application/json'
    return { headers, key, auth }
  }

  async #once(spec: RequestSpec, attempt: number, sseLimits: Partial<SseLimits> | undefined): Promise<Exchange> {
    const { url, headers, body, excerpt } = this.#prepare(spec, attempt)
    recordExchange(excerpt)
    const started = performance.now()
    const timeoutMs = spec.timeoutMs ?? this.config.timeoutMs
    const { text, bytes, stream } = await this.#receive(url, headers, body, excerpt, timeoutMs, sseLimits, started)
    excerpt.durationMs = Math.round(performance.now() - started)
    return this.#finish(spec, excerpt, text, bytes, stream)
  }

  /** The request as sent and its excerpt as reports show it, redacted, before anything is sent. */
  #prepare(
    spec: RequestSpec,
    attempt: number,
  ): {
    url: string
    headers: Record<string, string>
    body: RequestBody
    excerpt: ExchangeExcerpt
  } {
    const method = spec.method ?? 'GET'
    const url = this.#url(spec)
    const parsed = new URL(url)
    const crossOrigin = parsed.origin !== new URL(this.config.baseUrl).origin
    const { headers, key, auth } = this.#headers(spec, attempt, crossOrigin)
    const body: RequestBody =
      spec.json !== undefined
        ? JSON.stringify(spec.json)
        : typeof spec.body === 'function'
          ? Readable.from(spec.body())
          : spec.body
    // What reports show of the request body: a note where the caller gave one, else the text or its size.
    const described =
      spec.bodyNote ??
      (typeof body === 'string'
        ? body
        : body instanceof Uint8Array
          ? `[${body.byteLength} bytes]`
          : body === undefined
            ? undefined
            : '[streamed body]')
    const excerpt: ExchangeExcerpt = {
      seq: nextSequence(),
      method,
      url: this.redactor.text(url),
      path: this.redactor.text(parsed.pathname + parsed.search),
      key,
      auth,
      requestHeaders: this.redactor.headers(headers),
      ...(described === undefined
        ? {}
        : {
            requestBody: this.redactor.text(bodyExcerpt(described).text),
            ...(typeof body === 'string' && spec.bodyNote === undefined ? {} : { requestBodyIsNote: true }),
          }),
      ...(headers['x-client-request-id'] ? { clientRequestId: headers['x-client-request-id'] } : {}),
      startedAt: Date.now(),
      durationMs: 0,
      attempt,
      ...(crossOrigin ? { crossOrigin: true as const } : {}),
    }
    return { url, headers, body, excerpt }
  }

  /** Sends the request and reads the answer within its deadline (a stream within its own caps). */
  async #receive(
    url: string,
    headers: Record<string, string>,
    body: RequestBody,
    excerpt: ExchangeExcerpt,
    timeoutMs: number,
    sseLimits: Partial<SseLimits> | undefined,
    started: number,
  ): Promise<{ text: string; bytes?: Buffer; stream?: StreamResult }> {
    const method = excerpt.method
    // One deadline for the answer's head and, unless it is a stream, its whole body: the target's to meet.
    const deadline = new AbortController()
    const timer = setTimeout(
      () => deadline.abort(new DOMException(`no complete response within ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    )
    const caps = sseLimits === undefined ? undefined : streamCaps(timeoutMs, sseLimits)
    let text: string
    let bytes: Buffer | undefined
    let stream: StreamResult | undefined
    try {
      // No redirect is followed (undici's default; no redirect interceptor): a conformance target answers itself,
      // a key must not travel to another host, and a redirect loop then stays one 3xx answer, judged as such.
      const response = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        signal: deadline.signal,
        dispatcher: this.#dispatcher,
        headersTimeout: timeoutMs,
        // Between two chunks; a stream's reader has its own idle cap, and this one is only its backstop.
        bodyTimeout: caps === undefined ? timeoutMs : caps.idleTimeoutMs + 1000,
      })
      excerpt.status = response.statusCode
      excerpt.responseHeaders = normaliseHeaders(response.headers)
      const location = excerpt.responseHeaders.location
      if (excerpt.status >= 300 && excerpt.status < 400 && location !== undefined)
        excerpt.error = `a redirect to ${this.redactor.text(location)}, not followed`
      if (caps !== undefined && /^text\/event-stream\b/i.test(excerpt.responseHeaders['content-type'] ?? '')) {
        // A stream is read within the reader's own caps (bytes, events, idle and total time), which end it cleanly
        // with what arrived so far; the head's deadline stops here.
        clearTimeout(timer)
        // The whole stream's time counts from when the request left, so less what the head took.
        const left = Math.max(1, Math.round(caps.totalTimeoutMs - (performance.now() - started)))
        try {
          ;({ text, stream } = await readStream(response.body, { ...caps, totalTimeoutMs: left }, started))
        } finally {
          // A reader that stopped early leaves the body open (a silent stream never settles): release the socket.
          response.body.destroy()
        }
        excerpt.bodyBytes = stream.end.bytes
        const cut = describeSseEnd(stream.end, caps)
        if (cut !== undefined) excerpt.error = cut
      } else {
        bytes = await readCapped(response.body, CLIENT_DEFAULTS.maxBodyBytes, excerpt)
        text = bytes.toString('utf8')
      }
    } catch (error) {
      excerpt.durationMs = Math.round(performance.now() - started)
      throw this.#transportError(error, excerpt, timeoutMs)
    } finally {
      clearTimeout(timer)
    }
    return { text, ...(bytes ? { bytes } : {}), ...(stream ? { stream } : {}) }
  }

  /** The exchange, with the answer's body cut for reports and the notes of what it showed. */
  #finish(
    spec: RequestSpec,
    excerpt: ExchangeExcerpt,
    text: string,
    bytes: Buffer | undefined,
    stream: StreamResult | undefined,
  ): Exchange {
    if (bytes !== undefined && isBinary(excerpt.responseHeaders?.['content-type'])) {
      // Audio or video as UTF-8 is noise in a report: say what it was instead.
      excerpt.body = `[${bytes.length} bytes of ${excerpt.responseHeaders?.['content-type']}; first bytes ${bytes.subarray(0, 16).toString('hex')}]`
    } else {
      const cut = bodyExcerpt(this.redactor.text(text))
      excerpt.body = cut.text
      excerpt.bodyTruncated = cut.truncated || excerpt.bodyTruncated === true
    }
    const exchange = new Exchange(excerpt, text, stream, bytes)
    const notes = recordNotes(
      excerpt,
      spec.json,
      spec.json === undefined && spec.body !== undefined,
      () => exchange.json,
      stream?.events,
    )
    if (notes !== undefined) excerpt.notes = notes
    return exchange
  }

  #transportError(error: unknown, excerpt: ExchangeExcerpt, timeoutMs: number): Error {
    if (error instanceof TargetFailure) return error
    const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException }
    const code = err.code ?? err.cause?.code
    const read = excerpt.bodyBytes === undefined ? '' : ` (${excerpt.bodyBytes} bytes of the body read)`
    if (
      err.name === 'TimeoutError' ||
      err.name === 'AbortError' ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError
    ) {
      excerpt.error =
        excerpt.status === undefined
          ? `no response within ${timeoutMs} ms`
          : `no complete response within ${timeoutMs} ms: the body did not end${read}`
      return new TargetFailure(`${excerpt.method} ${excerpt.path}: ${excerpt.error}`, excerpt)
    }
    if (excerpt.status === undefined && code !== undefined && UNREACHABLE_CODES.has(code)) {
      excerpt.error = `cannot connect (${code})`
      return new HarnessError('TARGET_UNREACHABLE', `cannot reach ${this.config.baseUrl}: ${code}`, { cause: error })
    }
    // undici says "other side closed" (UND_ERR_SOCKET) where the target dropped the connection.
    const why =
      code === undefined ? err.message : `${code}${err.message && err.message !== code ? `: ${err.message}` : ''}`
    excerpt.error =
      excerpt.status === undefined
        ? `the connection closed before any response (${why})`
        : `the connection closed before the body ended${read} (${why})`
    return new TargetFailure(`${excerpt.method} ${excerpt.path}: ${excerpt.error}`, excerpt)
  }
}

/**
 * What makes a complete answer unusable at the transport level, for the run's health (run-stop.ts): a stream cut
 * or stopped by a cap, or a body labelled JSON that does not parse. Undefined for a usable answer, whatever its status.
 */
function brokenAnswer(ex: Exchange): string | undefined {
  if (ex.stream !== undefined)
    return ex.stream.end.reason === 'end' && ex.stream.end.cleanEnd ? undefined : ex.excerpt.error
  if (ex.text !== '' && /\bjson\b/i.test(ex.header('content-type') ?? '') && ex.jsonError !== undefined) {
    return `status ${ex.status}, a body labelled ${ex.header('content-type')} that is not JSON (${ex.jsonError})`
  }
  return undefined
}

/** The model a call names, for telling rate-limit buckets apart: the JSON body's model, or the native path's. */
function modelOf(spec: RequestSpec): string | undefined {
  const json = spec.json
  if (typeof json === 'object' && json !== null && typeof (json as { model?: unknown }).model === 'string')
    return (json as { model: string }).model
  return /^\/v1beta\/models\/([^/:]+)/.exec(spec.path)?.[1]
}

function normaliseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

/** Reads an SSE body through the reader's caps, keeping the raw text's beginning as evidence. */
async function readStream(
  body: AsyncIterable<Buffer>,
  limits: Partial<SseLimits>,
  startedAt: number,
): Promise<{ text: string; stream: StreamResult }> {
  let raw = ''
  const tee = async function* (): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      if (raw.length < EXCERPT_CHARS * 4) raw += chunk.toString('utf8')
      yield chunk
    }
  }
  const items: SseItem[] = []
  const eventTimesMs: number[] = []
  const reader = readSse(tee(), limits)
  for (;;) {
    const next = await reader.next()
    if (next.done) {
      return {
        text: raw,
        stream: {
          items,
          events: items.filter((i): i is SseEvent => i.kind === 'event'),
          end: next.value,
          eventTimesMs,
        },
      }
    }
    items.push(next.value)
    if (next.value.kind === 'event') eventTimesMs.push(Math.round(performance.now() - startedAt))
  }
}

/** Media and opaque bytes; text, JSON, XML and SSE stay readable in reports. */
export function isBinary(contentType: string | undefined): boolean {
  if (contentType === undefined) return false
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  return /^(audio|video|image)\//.test(type) || type === 'application/octet-stream' || type === 'application/pdf'
}

/** Reads a body up to `maxBytes`, counting as it goes (so a failure can say how much came), and stops there. */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
  excerpt: ExchangeExcerpt,
): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  excerpt.bodyBytes = 0
  for await (const chunk of body) {
    total += chunk.length
    excerpt.bodyBytes = total
    if (total > maxBytes) {
      body.destroy()
      excerpt.bodyTruncated = true
      excerpt.error = `response body past ${maxBytes} bytes: reading stopped there`
      throw new TargetFailure(`${excerpt.method} ${excerpt.path}: ${excerpt.error}`, excerpt)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/**
 * The caps a streamed answer is read within: the reader's defaults, no silence longer than the request's deadline,
 * the whole stream within CLIENT_DEFAULTS.streamDeadlines of it, and whatever the caller asked for instead.
 */
function streamCaps(timeoutMs: number, limits: Partial<SseLimits> = {}): SseLimits {
  return {
    ...SSE_DEFAULTS,
    idleTimeoutMs: Math.min(SSE_DEFAULTS.idleTimeoutMs, timeoutMs),
    totalTimeoutMs: Math.min(SSE_DEFAULTS.totalTimeoutMs, timeoutMs * CLIENT_DEFAULTS.streamDeadlines),
    ...limits,
  }
}
