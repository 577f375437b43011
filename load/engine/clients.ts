/**
 * The clients engine of the backoff profile: `workers` callers each loop tasks (one task = one call that the
 * caller wants answered) for the phase's duration, and meet a 429 with their retry policy. What matters is what
 * the policy costs and yields against one limit: successes (goodput), 429s per success (retry amplification),
 * tasks given up, and the time from a task's first 429 to its success.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ClientFigures, ClientPolicyName, RequestSpec } from '../types.ts'
import { callOnce, type CallContext } from './call.ts'
import { newHistogram, recordMs, summarize } from './histogram.ts'
import { parseDurationMs } from '../../harness/duration.ts'
import { POLICIES, retryAfterMs } from './policies.ts'
import { nowMs } from './recorder.ts'

export interface ClientsOptions extends CallContext {
  requests: readonly RequestSpec[]
  policy: ClientPolicyName
  workers: number
  maxAttempts: number
  durationMs: number
  maxRequests: number
  /** At most this many calls a second across all workers, spaced evenly from the phase's start; null: unpaced. */
  pacePerSecond: number | null
  /** Two 429s whose announced window ends lie this close are in the same window (windows.ts windowTolerance). */
  sameWindowMs: number
  random?: () => number
}

/** When the 429's request window ends, as it announced it; null without a readable reset. */
function announcedEnd(headers: Record<string, string>, at: number): number | null {
  const reset = parseDurationMs(headers['x-ratelimit-reset-requests'])
  return reset === undefined ? null : at + reset
}

export async function runClients(o: ClientsOptions): Promise<Omit<ClientFigures, 'goodputPerWindow'>> {
  const ctx: CallContext = o
  const policy = POLICIES[o.policy]
  const random = o.random ?? Math.random
  const end = o.recorder.startedAt + o.durationMs
  const recovery = newHistogram()
  const figures = { tasks: 0, successes: 0, gaveUp: 0, attempts: 0, refusals: 0, refusedAfterWait: 0 }
  let taskIndex = 0
  let paced = 0
  // The call's turn on the pace: the n-th call of the phase starts no earlier than n / pace seconds after its start.
  const awaitTurn = async (): Promise<void> => {
    if (o.pacePerSecond === null) return
    const at = o.recorder.startedAt + (paced++ * 1000) / o.pacePerSecond
    const wait = at - nowMs()
    if (wait > 0) await sleep(wait, undefined, { signal: o.signal }).catch(() => undefined)
  }
  const open = (): boolean => !o.signal.aborted && nowMs() < end && o.recorder.sent < o.maxRequests

  const worker = async (): Promise<void> => {
    while (open()) {
      const spec = o.requests[taskIndex++ % o.requests.length] as RequestSpec
      let firstRefusal: number | null = null
      let honouredRetryAfter = false
      let refusedWindowEnd: number | null = null
      for (let attempt = 1; ; attempt += 1) {
        await awaitTurn()
        if (!open()) return
        if (attempt === 1) figures.tasks += 1
        else o.recorder.retried()
        figures.attempts += 1
        const outcome = await callOnce(ctx, spec)
        if (outcome.status === 429) {
          figures.refusals += 1
          const end = announcedEnd(outcome.headers, nowMs())
          // Refused again in the window that refused it before, although it waited what Retry-After asked: the
          // promise was short. Refused in a later window means others filled that one first, which is fair.
          if (honouredRetryAfter && end !== null && refusedWindowEnd !== null && Math.abs(end - refusedWindowEnd) <= o.sameWindowMs) figures.refusedAfterWait += 1
          refusedWindowEnd = end
          firstRefusal ??= nowMs()
        }
        if (outcome.status !== null && outcome.status < 400) {
          figures.successes += 1
          if (firstRefusal !== null) recordMs(recovery, nowMs() - firstRefusal)
          break
        }
        const wait = outcome.status === null ? null : policy.delay({ attempt, maxAttempts: o.maxAttempts, status: outcome.status, headers: outcome.headers, now: Date.now(), random })
        if (wait === null) {
          figures.gaveUp += 1
          break
        }
        // A wait that ends after the phase would only idle: the worker stops here, its task unfinished (not
        // given up, and no new task started, which would turn the phase's last moments into a burst).
        if (!open() || nowMs() + wait >= end) return
        const asked = retryAfterMs(outcome.headers, Date.now())
        honouredRetryAfter = asked !== null && wait >= asked
        if (wait > 0) await sleep(wait, undefined, { signal: o.signal }).catch(() => undefined)
        if (!open()) return
      }
    }
  }
  await Promise.all(Array.from({ length: o.workers }, worker))
  return { policy: o.policy, workers: o.workers, maxAttempts: o.maxAttempts, ...figures, recovery: summarize(recovery) }
}
