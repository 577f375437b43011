/**
 * The open-loop engine's call for answers it only counts (no stream to time, no id to keep): the request built once
 * per phase, sent on a keep-alive connection of the lean client (lean-client.ts), the answer parsed as it arrives,
 * its body counted and dropped within the byte cap, so that a call costs no stream, promise or timer of its own;
 * deadlines are swept by one timer for every call in flight (Deadlines), not one each. Streams and uploads go
 * through callOnce (call.ts), which reads their bodies.
 */
import type { RequestSpec } from '../types.ts'
import { errorName } from './call.ts'
import type { Exchange, LeanPool } from './lean-client.ts'
import { nowMs, type CallHandle, type PhaseRecorder } from './recorder.ts'

/** A spec made ready once per phase: the whole request (head, key and body) as it goes on the wire. */
export interface LeanSpec {
  readonly spec: RequestSpec
  readonly request: Buffer
}

/** Headers that frame the message or the connection: the client writes its own, so a spec's go through undici. */
const FRAMING = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
])
const LEAN_METHODS = new Set<string>(['GET', 'POST', 'DELETE'])
/** What undici accepts in a path and a header; it refuses the others, which callOnce then counts call by call. */
const PATH = /^\/[\u0021-\u00ff]*$/
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/

/**
 * The request of a spec as undici writes it (the same head, in the same order), or null for a spec the lean client
 * leaves to undici: one with a framing header of its own, or a path or header that undici would refuse.
 */
export function leanSpec(spec: RequestSpec, origin: string, key: string): LeanSpec | null {
  // The client frames the answers to these methods (that to a HEAD, say, has no body whatever it announces).
  if (!LEAN_METHODS.has(spec.method) || !PATH.test(spec.path)) return null
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...spec.headers }
  let head = `${spec.method} ${spec.path} HTTP/1.1\r\nhost: ${new URL(origin).host}\r\nconnection: keep-alive\r\n`
  for (const [name, value] of Object.entries(headers)) {
    if (FRAMING.has(name.toLowerCase()) || !NAME.test(name) || !VALUE.test(value)) return null
    head += `${name}: ${value}\r\n`
  }
  const body = spec.body === undefined ? null : typeof spec.body === 'string' ? Buffer.from(spec.body) : spec.body
  // A POST says its length even when empty; a GET or DELETE without a body says none (RFC 9110 section 8.6).
  if (body !== null && body.length > 0) head += `content-length: ${body.length}\r\n`
  else if (spec.method === 'POST') head += 'content-length: 0\r\n'
  const bytes = Buffer.from(`${head}\r\n`, 'latin1')
  return { spec, request: body !== null && body.length > 0 ? Buffer.concat([bytes, body]) : bytes }
}

/** A spec the lean call can make: one whose answer is only counted. */
export const isLean = (spec: RequestSpec): boolean => spec.stream !== true && spec.collectId !== true

interface Abortable {
  abort(reason: Error): void
}

/**
 * The deadline of every call in flight, swept by one timer: a call past `timeoutMs` (a target that never ends a
 * body) is aborted at the next sweep, so it is cut within a tenth of its deadline late.
 */
export class Deadlines {
  readonly #live = new Map<Abortable, number>()
  readonly #timer: NodeJS.Timeout

  readonly timeoutMs: number

  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs
    this.#timer = setInterval(() => this.#sweep(), Math.max(10, Math.min(1000, timeoutMs / 10)))
    this.#timer.unref()
  }

  add(call: Abortable, at: number): void {
    this.#live.set(call, at + this.timeoutMs)
  }

  delete(call: Abortable): void {
    this.#live.delete(call)
  }

  #sweep(): void {
    const now = nowMs()
    for (const [call, deadline] of this.#live)
      if (deadline <= now) {
        this.#live.delete(call)
        call.abort(Object.assign(new Error(`no complete answer within ${this.timeoutMs} ms`), { name: 'TimeoutError' }))
      }
  }

  /** Stops every call in flight (the phase's signal). */
  abortAll(): void {
    for (const call of this.#live.keys()) call.abort(Object.assign(new Error('stopped'), { name: 'AbortError' }))
    this.#live.clear()
  }

  close(): void {
    clearInterval(this.#timer)
  }
}

/** A failure's name as callOnce counts it; any failure once the phase was stopped is `stopped`. */
const failure = (error: unknown, stopped: boolean): string => (stopped ? 'stopped' : errorName(error))

/** One call in flight, as the lean client drives it: a class, so that a call allocates one object, not closures. */
class LeanCall implements Exchange, Abortable {
  carrier: object | null = null
  #ended = false
  readonly request: Buffer
  readonly pool: LeanPool
  readonly recorder: PhaseRecorder
  readonly deadlines: Deadlines
  readonly handle: CallHandle
  readonly stopped: () => boolean
  readonly done: () => void

  constructor(
    request: Buffer,
    pool: LeanPool,
    recorder: PhaseRecorder,
    deadlines: Deadlines,
    handle: CallHandle,
    stopped: () => boolean,
    done: () => void,
  ) {
    this.request = request
    this.pool = pool
    this.recorder = recorder
    this.deadlines = deadlines
    this.handle = handle
    this.stopped = stopped
    this.done = done
  }

  wantsHeaders(status: number): boolean {
    return this.recorder.wantsHeaders(status)
  }

  answered(status: number, headers: Record<string, string>, at: number): void {
    this.recorder.headers(this.handle, status, headers, at)
  }

  ended(error: Error | null, at: number = nowMs()): void {
    if (this.#ended) return
    this.#ended = true
    this.deadlines.delete(this)
    this.recorder.end(this.handle, error === null ? null : failure(error, this.stopped()), at)
    this.done()
  }

  /** The deadline's sweep, or the phase's stop. */
  abort(reason: Error): void {
    this.pool.abort(this, reason)
  }
}

/**
 * Sends one call now (`at`, epoch ms, read by the caller) and records it; `done` runs once it has ended, whatever
 * the outcome. `stopped` tells a stop of the phase from a failure of the call.
 */
export function leanCall(
  pool: LeanPool,
  recorder: PhaseRecorder,
  deadlines: Deadlines,
  lean: LeanSpec,
  scheduledAt: number,
  stopped: () => boolean,
  done: () => void,
  at: number = nowMs(),
): void {
  const spec = lean.spec
  const handle: CallHandle = recorder.send({
    scheduledAt,
    at,
    deliberateFailure: spec.deliberateFailure ?? false,
    ...(spec.label !== undefined ? { label: spec.label } : {}),
  })
  const call = new LeanCall(lean.request, pool, recorder, deadlines, handle, stopped, done)
  deadlines.add(call, at)
  pool.send(call, at)
}
