/**
 * An open-loop phase driven by several worker threads, each with its own event loop, connections and recorder:
 * each takes a slice of the schedule as a shard does (rate and connections divided; a constant plan's instants
 * interleaved, an arrival process drawn per slice from a seed of its own), and their recorders' results merge
 * exactly (merge.ts: histograms, series and rate-limit facts add up), so that one generator uses more than one core.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { Objective, PhasePlan, PhaseResult } from '../types.ts'
import { deriveSeed } from './arrivals.ts'

export const WORKERS = {
  max: 64,
  /** A phase offering fewer calls a second per worker than this runs on the main thread: one core holds it. */
  minRatePerWorker: 500,
}

/** --workers' default: the cores, less one for the target when it runs in this process (the embedded gateway). */
export function defaultWorkers(embedded: boolean): number {
  return Math.max(1, availableParallelism() - (embedded ? 1 : 0))
}

/** How many workers drive a phase: none below the rate one core holds, and only plain open-loop phases. */
export function workersFor(plan: PhasePlan, workers: number): number {
  if (workers <= 1 || plan.engine !== 'scheduler' || plan.rate === null || plan.probe !== undefined) return 1
  if (plan.requests.some((r) => r.collectId)) return 1
  return Math.max(1, Math.min(workers, Math.floor(plan.rate / WORKERS.minRatePerWorker)))
}

/** What a worker is given: its slice of the plan and where to send; the phase's start comes once all are ready. */
export interface WorkerTask {
  plan: PhasePlan
  index: number
  count: number
  baseUrl: string
  key: string
  timeoutMs: number
  minuteMs: number
  bucketMs: number
  maxRequests: number
  objectives: readonly Objective[]
}

export type WorkerMessage =
  | { kind: 'ready' }
  | { kind: 'counts'; sent: number; byStatus: Record<string, number>; errors: number }
  | { kind: 'result'; part: Omit<PhaseResult, 'plan'> }
  | { kind: 'error'; message: string }

/** Slice `index` of `count` (from 0): rate, connections and cap divided, an arrival process seeded per slice. */
export function slicePlan(plan: PhasePlan, index: number, count: number): PhasePlan {
  return {
    ...plan,
    rate: (plan.rate as number) / count,
    connections: Math.max(1, Math.ceil(plan.connections / count)),
    ...(plan.arrival ? { arrival: { ...plan.arrival, seed: deriveSeed(plan.arrival.seed, 0x3000 + index) } } : {}),
  }
}

// The entry beside this module, of its own kind: node runs a clone's .ts as it is, and an installed package's
// JavaScript compiled at pack time (node strips no types under node_modules).
const ENTRY = new URL(import.meta.url.endsWith('.ts') ? './worker-main.ts' : './worker-main.js', import.meta.url)

/**
 * Runs the phase in `count` workers; what each measured merges exactly (merge.ts mergePhase). `progress` gets the sum of their counts about
 * once a second; the signal stops them all (each ends its calls as a stopped phase does).
 */
export async function runInWorkers(
  base: Omit<WorkerTask, 'plan' | 'index' | 'count' | 'startedAt'>,
  plan: PhasePlan,
  count: number,
  signal: AbortSignal,
  progress: (counts: { sent: number; byStatus: Record<string, number>; errors: number }) => void,
  /** Called once every worker is ready: the phase's start, from which each worker's plan runs. */
  started: () => number,
): Promise<Array<{ slice: PhasePlan; part: Omit<PhaseResult, 'plan'> }>> {
  const counts = Array.from({ length: count }, () => ({ sent: 0, byStatus: {} as Record<string, number>, errors: 0 }))
  // Workers load their modules first: the phase starts when the last is ready, so none starts behind its plan.
  let ready = 0
  const workers: Worker[] = []
  const go = (): void => {
    const startedAt = started()
    for (const w of workers) w.postMessage({ kind: 'go', startedAt })
  }
  const runs = Array.from({ length: count }, (_, index) => {
    const slice = slicePlan(plan, index, count)
    const task = { ...base, plan: slice, index, count, maxRequests: Math.ceil(base.maxRequests / count) }
    const worker = new Worker(ENTRY, { workerData: task })
    workers.push(worker)
    const stop = (): void => worker.postMessage({ kind: 'stop', reason: String(signal.reason ?? 'stopped') })
    signal.addEventListener('abort', stop, { once: true })
    return new Promise<{ slice: PhasePlan; part: Omit<PhaseResult, 'plan'> }>((resolve, reject) => {
      let done = false
      worker.on('message', (m: WorkerMessage) => {
        if (m.kind === 'ready') {
          ready += 1
          if (ready === count) go()
        } else if (m.kind === 'counts') {
          counts[index] = m
          const sum = { sent: 0, byStatus: {} as Record<string, number>, errors: 0 }
          for (const c of counts) {
            sum.sent += c.sent
            sum.errors += c.errors
            for (const [s, n] of Object.entries(c.byStatus)) sum.byStatus[s] = (sum.byStatus[s] ?? 0) + n
          }
          progress(sum)
        } else if (m.kind === 'result') {
          done = true
          resolve({ slice, part: m.part })
        } else {
          done = true
          reject(new Error(`load worker ${index + 1} of ${count}: ${m.message}`))
        }
      })
      worker.on('error', (error) => reject(error))
      worker.on('exit', (code) => {
        signal.removeEventListener('abort', stop)
        if (!done) reject(new Error(`load worker ${index + 1} of ${count} exited (${code}) without its result`))
      })
    })
  })
  return Promise.all(runs)
}
