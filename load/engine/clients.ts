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
  random?: () => number
}

export async function runClients(o: ClientsOptions): Promise<ClientFigures> {
  const ctx: CallContext = o
  const policy = POLICIES[o.policy]
  const random = o.random ?? Math.random
  const end = o.recorder.startedAt + o.durationMs
  const recovery = newHistogram()
  const figures = {
    tasks: 0,
    successes: 0,
    gaveUp: 0,
    attempts: 0,
    refusals: 0,
    refusedAfterWait: 0,
    retryAfterTotalMs: 0,
    retryAfterCount: 0,
  }
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
      // Admissions of the phase (any worker) when the 429 before this attempt was answered, if the worker then
      // waited all that its Retry-After asked.
      let waitedFrom: number | null = null
      for (let attempt = 1; ; attempt += 1) {
        await awaitTurn()
        if (!open()) return
        if (attempt === 1) figures.tasks += 1
        else o.recorder.retried()
        figures.attempts += 1
        const outcome = await callOnce(ctx, spec)
        if (outcome.status === 429) {
          figures.refusals += 1
          // Refused again although it waited what Retry-After asked and nobody was admitted meanwhile: the promise was
          // short, whatever the algorithm. An admission in between means another worker took the room, which is fair.
          if (waitedFrom !== null && o.recorder.admitted === waitedFrom) figures.refusedAfterWait += 1
          firstRefusal ??= nowMs()
        }
        if (outcome.status !== null && outcome.status < 400) {
          figures.successes += 1
          if (firstRefusal !== null) recordMs(recovery, nowMs() - firstRefusal)
          break
        }
        const wait =
          outcome.status === null
            ? null
            : policy.delay({
                attempt,
                maxAttempts: o.maxAttempts,
                status: outcome.status,
                headers: outcome.headers,
                now: Date.now(),
                random,
              })
        if (wait === null) {
          figures.gaveUp += 1
          break
        }
        // A wait that ends after the phase would only idle: the worker stops here, its task unfinished (not
        // given up, and no new task started, which would turn the phase's last moments into a burst).
        if (!open() || nowMs() + wait >= end) return
        const asked = retryAfterMs(outcome.headers, Date.now())
        if (asked !== null) {
          figures.retryAfterTotalMs += asked
          figures.retryAfterCount += 1
        }
        waitedFrom = asked !== null && wait >= asked ? o.recorder.admitted : null
        if (wait > 0) await sleep(wait, undefined, { signal: o.signal }).catch(() => undefined)
        if (!open()) return
      }
    }
  }
  await Promise.all(Array.from({ length: o.workers }, worker))
  return { policy: o.policy, workers: o.workers, maxAttempts: o.maxAttempts, ...figures, recovery: summarize(recovery) }
}
