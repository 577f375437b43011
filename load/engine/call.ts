/**
 * One call of the scheduler and clients engines, with undici: sends, hands the status and headers to the
 * recorder the moment they arrive, then reads the body to its end (timing each server-sent event of a stream)
 * within a time and byte cap, so that a target that hangs or never ends a body costs one bounded call.
 */
import { createParser } from 'eventsource-parser'
import { request, type Dispatcher } from 'undici'
import { ConfigError } from '../../harness/errors.ts'
import type { RequestSpec } from '../types.ts'
import { nowMs, type CallHandle, type PhaseRecorder } from './recorder.ts'
import { normalizeHeaders } from './rate-headers.ts'
import type { StreamStats, StreamTimer } from './stream-stats.ts'

export const CALL_LIMITS = {
  maxBodyBytes: 8 * 1024 * 1024, // bytes; a load call's answer is small; past this the target is broken or hostile
  lookupMaxBodyBytes: 8 * 1024 * 1024, // bytes; a model list or record that a plan reads, whole, before any load
}

/** Where calls go and where they are recorded: what every engine's calls share. */
export interface CallContext {
  baseUrl: string
  key: string
  dispatcher: Dispatcher
  timeoutMs: number
  signal: AbortSignal
  recorder: PhaseRecorder
  stream?: StreamStats
  /** Ids of what calls marked `collectId` created, for the run's clean-up. */
  created?: string[]
}

export interface CallOutcome {
  status: number | null
  headers: Record<string, string>
  error: string | null
}

/** The name a call's failure is counted by (recorder errors): stopped, timeout, connection reset, ... */
export function errorName(error: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return 'stopped'
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException }
  if (err.name === 'TimeoutError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT')
    return 'timeout'
  const code = err.code ?? err.cause?.code
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset'
  if (code === 'ECONNREFUSED') return 'connection refused'
  if (code === 'BODY_TOO_LARGE') return 'body too large'
  // The lean client's names (lean-client.ts), and llhttp's for the same faults, so that every engine says the same.
  if (code === 'HEADERS_TOO_LARGE' || code === 'UND_ERR_HEADERS_OVERFLOW' || code === 'HPE_HEADER_OVERFLOW')
    return 'headers too large'
  if (code === 'MALFORMED_ANSWER' || code?.startsWith('HPE_')) return 'malformed answer'
  return code ?? err.name ?? 'error'
}

function collectId(text: string, into: string[]): void {
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id
    if (typeof id === 'string' && id !== '') into.push(id)
  } catch {
    // Not JSON: nothing to clean up that we could name.
  }
}

/**
 * A signal that aborts when `parent` does, or with a TimeoutError after `ms`; `release` clears the timer. Not
 * AbortSignal.any([parent, AbortSignal.timeout(ms)]): Node 20 may garbage-collect a timeout signal that only a
 * composite holds before it fires (nodejs/node#57736), and then a stream that never ends (its events keep undici's
 * body timeout from firing) was never cut: the hostile self-test hung past its 60 s now and then on a busy machine.
 */
export function withDeadline(parent: AbortSignal, ms: number): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController()
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no complete answer within ${ms} ms`, 'TimeoutError')),
    ms,
  )
  timer.unref()
  return { signal: AbortSignal.any([parent, controller.signal]), release: () => clearTimeout(timer) }
}

export async function callOnce(
  ctx: CallContext,
  spec: RequestSpec,
  scheduledAt: number | null = null,
): Promise<CallOutcome> {
  const { recorder } = ctx
  const handle: CallHandle = recorder.send({
    scheduledAt,
    deliberateFailure: spec.deliberateFailure ?? false,
    ...(spec.label !== undefined ? { label: spec.label } : {}),
  })
  const { signal, release } = withDeadline(ctx.signal, ctx.timeoutMs)
  let status: number | null = null
  let headers: Record<string, string> = {}
  let events: StreamTimer | null = null
  try {
    const response = await request(`${ctx.baseUrl}${spec.path}`, {
      method: spec.method,
      headers: { authorization: `Bearer ${ctx.key}`, ...spec.headers },
      body: spec.body,
      dispatcher: ctx.dispatcher,
      signal,
      headersTimeout: ctx.timeoutMs,
      bodyTimeout: ctx.timeoutMs,
    })
    status = response.statusCode
    headers = normalizeHeaders(response.headers as Record<string, string | string[] | undefined>)
    recorder.headers(handle, status, headers)
    const timer =
      spec.stream && status === 200 && ctx.stream ? ctx.stream.begin(handle.scheduledAt ?? handle.sentAt) : null
    events = timer
    const parser = timer
      ? createParser({ onEvent: (event) => timer.event(event.event ?? 'message', event.data, nowMs()) })
      : null
    const decoder = new TextDecoder()
    const keep = spec.collectId === true && status >= 200 && status < 300 && ctx.created !== undefined
    let text = ''
    let bytes = 0
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      bytes += chunk.length
      if (bytes > CALL_LIMITS.maxBodyBytes) throw Object.assign(new Error('body too large'), { code: 'BODY_TOO_LARGE' })
      if (parser) parser.feed(decoder.decode(chunk, { stream: true }))
      else if (keep) text += decoder.decode(chunk, { stream: true })
    }
    const at = nowMs()
    const streamed = events?.end(at) ?? null
    events = null
    if (keep) collectId(text, ctx.created as string[])
    recorder.end(handle, null, at, streamed)
    return { status, headers, error: null }
  } catch (error) {
    const name = errorName(error, ctx.signal)
    // An answer whose body broke still answered: its latency is not recorded, the failure is; a stream that broke
    // (endless past the deadline, reset, too large) never completed, and counts so.
    if (events !== null && name !== 'stopped') events.cut()
    recorder.end(handle, name)
    return { status, headers, error: name }
  } finally {
    release()
  }
}

/**
 * A GET whose JSON a profile's plan reads (a model list, a model record): within the deadline and a byte cap,
 * like every call. A target that cannot answer it leaves nothing to plan with: one line saying what it did.
 */
export async function lookupJson(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; body: unknown; headers: Record<string, string> }> {
  const path = new URL(url).pathname
  let status: number | null = null
  try {
    const response = await request(url, {
      headers,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    })
    status = response.statusCode
    const chunks: Buffer[] = []
    let bytes = 0
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      bytes += chunk.length
      if (bytes > CALL_LIMITS.lookupMaxBodyBytes)
        throw Object.assign(new Error('body too large'), { code: 'BODY_TOO_LARGE' })
      chunks.push(chunk)
    }
    const out = normalizeHeaders(response.headers as Record<string, string | string[] | undefined>)
    try {
      return { status, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown, headers: out }
    } catch {
      return { status, body: null, headers: out }
    }
  } catch (error) {
    const name = errorName(error)
    const what =
      name === 'timeout'
        ? `no complete answer within ${timeoutMs} ms`
        : name === 'body too large'
          ? `a body past ${CALL_LIMITS.lookupMaxBodyBytes} bytes`
          : name
    throw new ConfigError(
      `the target's answer to GET ${path}${status === null ? '' : ` (${status})`} cannot be ` +
        `used to plan the run: ${what}`,
    )
  }
}
