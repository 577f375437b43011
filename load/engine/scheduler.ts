/**
 * The open-loop engine: calls leave at planned instants (start + i / rate, or the offsets of an arrival process:
 * engine/arrivals.ts) whatever the answers do, which is how traffic arrives at a gateway and what the admission
 * bounds need. Latency is measured from the planned instant, so a late send is never hidden (coordinated omission). It serves the phases autocannon cannot: rates
 * under one call per second per connection, fractional rates, streams timed event by event, and calls marked
 * to fail on purpose. Every send records how late it left against its plan; calls that would pass the phase's
 * connection cap wait for a free one, so a target slower than the plan shows up as schedule error, not as a
 * pile of sockets.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { RequestSpec } from '../types.ts'
import { callOnce, type CallContext } from './call.ts'
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

/** Runs until the duration or the request cap is reached, or the signal stops it; waits for calls in flight. */
export async function runScheduled(o: ScheduleOptions): Promise<void> {
  const ctx: CallContext = o
  const start = o.recorder.startedAt
  const end = start + o.durationMs
  const intervalMs = 1000 / o.rate
  const inFlight = new Set<Promise<unknown>>()
  let index = 0
  while (!o.signal.aborted && index < o.maxRequests) {
    if (o.offsets && index >= o.offsets.length) break
    const planned = start + (o.offsets ? (o.offsets[index] as number) : index * intervalMs)
    // The phase ends at its end, also for a generator behind its plan: calls it could not send in time are not
    // sent late (they would run the phase on into the next); the schedule figures show them as missed.
    if (planned >= end || nowMs() >= end) break
    const wait = planned - nowMs()
    if (wait > 1) await sleep(wait, undefined, { signal: o.signal }).catch(() => undefined)
    if (o.signal.aborted) break
    while (inFlight.size >= o.connections && !o.signal.aborted) await Promise.race(inFlight)
    if (o.signal.aborted) break
    const spec = o.requests[index % o.requests.length] as RequestSpec
    const call = callOnce(ctx, spec, planned).finally(() => inFlight.delete(call))
    inFlight.add(call)
    index += 1
  }
  await Promise.allSettled([...inFlight])
}
