/**
 * The open-loop engine: calls leave at planned instants (start + i / rate, or the offsets of an arrival process:
 * engine/arrivals.ts) whatever the answers do, which is how traffic arrives at a gateway and what the admission
 * bounds need. Latency is measured from the planned instant, so a late send is never hidden (coordinated
 * omission). It serves the phases autocannon cannot: rates under one call per second per connection, fractional
 * rates, streams timed event by event, and calls marked to fail on purpose. Every send records how late it left
 * against its plan; calls that would pass the phase's connection cap wait for a free one, so a target slower than
 * the plan shows up as schedule error, not as a pile of sockets.
 *
 * Near the core's limit: one timer per tick, not per call (every send due when it fires leaves on that tick); the
 * calls in flight are a counter, and the loop waits on a free slot only when the cap is reached; answers that are
 * only counted go through the lean call (lean-call.ts: an HTTP/1.1 client of its own, no stream, promise or timer
 * per call).
 */
import type { RequestSpec } from '../types.ts'
import { callOnce, type CallContext } from './call.ts'
import { Deadlines, isLean, leanCall, leanSpec, type LeanSpec } from './lean-call.ts'
import { LeanPool } from './lean-client.ts'
import { nowMs } from './recorder.ts'

export interface ScheduleOptions extends CallContext {
  requests: readonly RequestSpec[]
  rate: number
  connections: number
  durationMs: number
  maxRequests: number
  /** Planned send offsets (ms from the start, sorted); absent: constant, i / rate. */
  offsets?: Float64Array
}

export const SCHEDULER = {
  /** Sends in a row before the loop yields to the answers, when it is behind its plan. */
  maxBurst: 256,
}

/** Runs until the duration or the request cap is reached, or the signal stops it; waits for calls in flight. */
export async function runScheduled(o: ScheduleOptions): Promise<void> {
  const ctx: CallContext = o
  const start = o.recorder.startedAt
  const end = start + o.durationMs
  const intervalMs = 1000 / o.rate
  const url = new URL(o.baseUrl)
  const prefix = url.pathname.replace(/\/$/, '')
  const lean: (LeanSpec | null)[] = o.requests.map((spec) =>
    isLean(spec) ? leanSpec({ ...spec, path: `${prefix}${spec.path}` }, url.origin, o.key) : null,
  )
  // The lean calls' own connections, as many as the phase may have in flight; the others go through the dispatcher.
  const pool = new LeanPool(url.origin, o.connections)
  const deadlines = new Deadlines(o.timeoutMs)
  let inFlight = 0
  // The loop waits for one of two things: its next instant (a timer), or a free slot (an answer, which wakes it
  // only then, so that answers arriving while it waits for time cost nothing).
  let wake: (() => void) | null = null
  let forSlot = false
  let timer: NodeJS.Timeout | null = null
  const wakeUp = (): void => {
    if (timer !== null) clearTimeout(timer)
    timer = null
    forSlot = false
    const w = wake
    wake = null
    w?.()
  }
  const released = (): void => {
    inFlight -= 1
    if (forSlot) wakeUp()
  }
  const stopped = (): boolean => o.signal.aborted
  const onAbort = (): void => {
    deadlines.abortAll()
    wakeUp()
  }
  o.signal.addEventListener('abort', onAbort, { once: true })
  const untilTime = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve
      timer = setTimeout(wakeUp, ms)
    })
  const untilSlot = (): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve
      forSlot = true
    })
  let index = 0
  try {
    let burst = 0
    while (!o.signal.aborted && index < o.maxRequests) {
      if (o.offsets && index >= o.offsets.length) break
      const planned = start + (o.offsets ? (o.offsets[index] as number) : index * intervalMs)
      // The phase ends at its end, also for a generator behind its plan: calls it could not send in time are not
      // sent late (they would run the phase on into the next); the schedule figures show them as missed.
      if (planned >= end) break
      const now = nowMs()
      if (now >= end) break
      if (planned - now > 0.5) {
        burst = 0
        await untilTime(planned - now - 0.5)
        continue
      }
      if (inFlight >= o.connections) {
        burst = 0
        await untilSlot()
        continue
      }
      if (burst >= SCHEDULER.maxBurst) {
        burst = 0
        await new Promise((resolve) => setImmediate(resolve))
        continue
      }
      const i = index % o.requests.length
      inFlight += 1
      burst += 1
      const ready = lean[i]
      if (ready) leanCall(pool, o.recorder, deadlines, ready, planned, stopped, released, now)
      else void callOnce(ctx, o.requests[i] as RequestSpec, planned).finally(released)
      index += 1
    }
    while (inFlight > 0) await untilSlot()
  } finally {
    if (timer !== null) clearTimeout(timer)
    o.signal.removeEventListener('abort', onAbort)
    deadlines.close()
    pool.close()
  }
}
