/**
 * The autocannon engine: closed-loop saturation (as many calls as `connections` sustain) and constant rates of at
 * least one call per second per connection.
 *
 * What others learned the hard way, and how it is met here:
 * - its `response` event has no headers and its workers mode forwards no responses: each client's `headers`
 *   event (status line and raw headers, at the moment they are parsed) is taken in `setupClient`, on this thread,
 *   and names are lower-cased before anything reads them;
 * - with `overallRate` its latency correction for coordinated omission is wrong: `ignoreCoordinatedOmission`;
 * - its rate is enforced per connection per second and arrives in bursts: each send is recorded when the client
 *   emits `request`, and the recorder measures how far the sends were from an even schedule.
 */
import autocannon from 'autocannon'
import type { RequestSpec } from '../types.ts'
import { normalizeHeaders } from './rate-headers.ts'
import type { CallHandle, PhaseRecorder } from './recorder.ts'

export interface AutocannonOptions {
  baseUrl: string
  key: string
  timeoutMs: number
  signal: AbortSignal
  recorder: PhaseRecorder
  requests: readonly RequestSpec[]
  /** Calls per second over all connections; null: closed loop. */
  rate: number | null
  connections: number
  durationMs: number
  maxRequests: number
}

/** The part of autocannon's per-connection client this engine listens to. */
interface AutocannonClient {
  on(event: 'request', listener: () => void): void
  on(event: 'headers', listener: (info: { statusCode: number; headers: string[] }) => void): void
  on(event: 'response', listener: () => void): void
  on(event: 'timeout' | 'connError', listener: (error?: Error) => void): void
}

export function autocannonOptions(
  o: AutocannonOptions,
  setupClient?: (client: AutocannonClient) => void,
): autocannon.Options {
  if (o.requests.some((r) => r.deliberateFailure || r.stream)) {
    throw new Error('the autocannon engine cannot mark deliberate failures or time streams; use the scheduler engine')
  }
  return {
    url: o.baseUrl,
    connections: o.connections,
    // Not `amount`: it would override the duration. The request cap is enforced by runAutocannon instead.
    duration: Math.max(1, o.durationMs / 1000),
    timeout: Math.max(1, Math.ceil(o.timeoutMs / 1000)),
    ...(o.rate !== null ? { overallRate: Math.max(1, Math.round(o.rate)), ignoreCoordinatedOmission: true } : {}),
    requests: o.requests.map((r) => ({
      method: r.method,
      path: r.path,
      headers: {
        authorization: `Bearer ${o.key}`,
        ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...r.headers,
      },
      ...(r.body !== undefined ? { body: r.body } : {}),
    })),
    ...(setupClient ? { setupClient: setupClient as unknown as autocannon.Options['setupClient'] } : {}),
  }
}

export async function runAutocannon(o: AutocannonOptions): Promise<autocannon.Result> {
  const { recorder } = o
  let stopInstance = (): void => {}
  const setupClient = (client: AutocannonClient): void => {
    // With pipelining 1 a connection has at most one call outstanding; the queue keeps that explicit.
    const pending: CallHandle[] = []
    client.on('request', () => {
      pending.push(recorder.send({ scheduledAt: null }))
      if (recorder.sent >= o.maxRequests) stopInstance()
    })
    client.on('headers', (info) => {
      const call = pending[0]
      if (call) recorder.headers(call, info.statusCode, normalizeHeaders(info.headers))
    })
    client.on('response', () => {
      const call = pending.shift()
      if (call) recorder.end(call)
    })
    const fail = (name: string) => () => {
      const call = pending.shift()
      if (call) recorder.end(call, name)
    }
    client.on('timeout', fail('timeout'))
    client.on('connError', fail('connection error'))
  }
  return await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(autocannonOptions(o, setupClient), (error, result) =>
      error ? reject(error) : resolve(result),
    )
    const stop = (): void => instance.stop()
    stopInstance = stop
    o.signal.addEventListener('abort', stop, { once: true })
    instance.on('done', () => o.signal.removeEventListener('abort', stop))
  })
}
