/**
 * The open-loop engine's call for answers it only counts (no stream to time, no id to keep): undici's dispatch
 * with a handler of its own, so a call costs no response stream, no promise and no timer of its own. The body is
 * counted and dropped within the byte cap; deadlines are swept by one timer for every call in flight (Deadlines),
 * not one each. Streams and uploads go through callOnce (call.ts), which reads their bodies.
 */
import type { Dispatcher } from 'undici'
import type { RequestSpec } from '../types.ts'
import { CALL_LIMITS, errorName } from './call.ts'
import { normalizeHeaders } from './rate-headers.ts'
import { nowMs, type CallHandle, type PhaseRecorder } from './recorder.ts'

/** A spec made ready once per phase: its path, method, headers (the key included) and body as undici takes them. */
export interface LeanSpec {
  readonly spec: RequestSpec
  readonly options: Dispatcher.DispatchOptions
}

export function leanSpec(spec: RequestSpec, origin: string, key: string, timeoutMs: number): LeanSpec {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...spec.headers }
  return {
    spec,
    options: {
      origin,
      path: spec.path,
      method: spec.method,
      headers,
      ...(spec.body !== undefined ? { body: typeof spec.body === 'string' ? Buffer.from(spec.body) : spec.body } : {}),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    },
  }
}

/** A spec the lean call can make: one whose answer is only counted. */
export const isLean = (spec: RequestSpec): boolean => spec.stream !== true && spec.collectId !== true

interface Abortable {
  abort(reason?: Error): void
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

/** Handed to the recorder when it reads no header of an answer (recorder.wantsHeaders): nothing is copied. */
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>

/**
 * One call in flight, as undici's handler: a class, so that a call allocates one object rather than a closure per
 * callback; the answer's headers are handed on only when the recorder reads them.
 */
class LeanHandler implements Abortable {
  #bytes = 0
  #controller: Dispatcher.DispatchController | null = null
  #ended = false
  readonly recorder: PhaseRecorder
  readonly deadlines: Deadlines
  readonly handle: CallHandle
  readonly stopped: () => boolean
  readonly done: () => void

  constructor(
    recorder: PhaseRecorder,
    deadlines: Deadlines,
    handle: CallHandle,
    stopped: () => boolean,
    done: () => void,
  ) {
    this.recorder = recorder
    this.deadlines = deadlines
    this.handle = handle
    this.stopped = stopped
    this.done = done
  }

  finish(error: string | null): void {
    if (this.#ended) return
    this.#ended = true
    if (this.#controller !== null) this.deadlines.delete(this)
    this.recorder.end(this.handle, error)
    this.done()
  }

  /** The deadline's sweep, or the phase's stop. */
  abort(reason?: Error): void {
    this.#controller?.abort(reason as Error)
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller
    this.deadlines.add(this, this.handle.sentAt)
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    const read = this.recorder.wantsHeaders(statusCode) ? normalizeHeaders(headers) : NO_HEADERS
    this.recorder.headers(this.handle, statusCode, read)
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#bytes += chunk.length
    if (this.#bytes > CALL_LIMITS.maxBodyBytes)
      controller.abort(Object.assign(new Error('body too large'), { code: 'BODY_TOO_LARGE' }))
  }

  onResponseEnd(): void {
    this.finish(null)
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.finish(failure(error, this.stopped()))
  }
}

/**
 * Sends one call and records it; `done` runs once it has ended, whatever the outcome. `stopped` tells a stop of
 * the phase from a failure of the call.
 */
export function leanCall(
  dispatcher: Dispatcher,
  recorder: PhaseRecorder,
  deadlines: Deadlines,
  lean: LeanSpec,
  scheduledAt: number,
  stopped: () => boolean,
  done: () => void,
): void {
  const spec = lean.spec
  const handle: CallHandle = recorder.send({
    scheduledAt,
    deliberateFailure: spec.deliberateFailure ?? false,
    ...(spec.label !== undefined ? { label: spec.label } : {}),
  })
  const handler = new LeanHandler(recorder, deadlines, handle, stopped, done)
  try {
    dispatcher.dispatch(lean.options, handler)
  } catch (error) {
    handler.finish(failure(error, stopped()))
  }
}
