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
  /**
   * The phase's clock starts this long after the last thread is ready: the start reaches each thread as a message,
   * which a busy host delivers tens of milliseconds late, and a thread that got it late would begin behind its plan.
   */
  startLeadMs: 100,
  /** How long a thread told to close may take to exit before it is terminated. */
  closeMs: 2000,
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

/** What a worker tells the pool, naming the task it speaks of (a failed phase's late word is not the next one's). */
export type WorkerMessage = { id: number } & (
  | { kind: 'ready' }
  | { kind: 'counts'; sent: number; byStatus: Record<string, number>; errors: number }
  | { kind: 'result'; part: Omit<PhaseResult, 'plan'> }
  | { kind: 'error'; message: string }
)

/** What the pool tells a worker: a phase's slice to prepare, its start, a stop, or the end of the run. */
export type PoolMessage =
  | { kind: 'task'; id: number; task: WorkerTask }
  | { kind: 'go'; startedAt: number }
  | { kind: 'stop'; reason: string }
  | { kind: 'close' }

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

type Part = { slice: PhasePlan; part: Omit<PhaseResult, 'plan'> }
type Counts = { sent: number; byStatus: Record<string, number>; errors: number }

/**
 * The worker threads of a run, started when a phase first needs them and kept for the phases after: a thread
 * started per phase would load its modules and compile its code (the HTTP parser, the engine's hot paths) while
 * its first calls were due, and begin behind its plan. A thread that failed is replaced at the next phase.
 */
export class WorkerPool {
  readonly #threads: (Worker | null)[] = []
  #tasks = 0
  /** Threads started so far (a measure of the reuse, for the tests). */
  started = 0

  #thread(index: number): Worker {
    const live = this.#threads[index]
    if (live) return live
    const worker = new Worker(ENTRY)
    // An idle thread does not keep the process alive; run() holds it while a phase is under way.
    worker.unref()
    worker.once('exit', () => {
      if (this.#threads[index] === worker) this.#threads[index] = null
    })
    this.#threads[index] = worker
    this.started += 1
    return worker
  }

  /**
   * Runs the phase on `count` threads; what each measured merges exactly (merge.ts mergePhase). `progress` gets
   * the sum of their counts about once a second; the signal stops them all (each ends its calls as a stopped phase
   * does). `started` is called once every thread is ready; the phase's clock, from which each slice's plan runs,
   * starts startLeadMs after the time it returns.
   */
  async run(
    base: Omit<WorkerTask, 'plan' | 'index' | 'count'>,
    plan: PhasePlan,
    count: number,
    signal: AbortSignal,
    progress: (counts: Counts) => void,
    started: () => number,
  ): Promise<Part[]> {
    const counts: Counts[] = Array.from({ length: count }, () => ({ sent: 0, byStatus: {}, errors: 0 }))
    const workers = Array.from({ length: count }, (_, index) => this.#thread(index))
    const slices = workers.map((_, index) => slicePlan(plan, index, count))
    let ready = 0
    const onReady = (): void => {
      ready += 1
      if (ready < count) return
      const startedAt = started() + WORKERS.startLeadMs
      for (const w of workers) w.postMessage({ kind: 'go', startedAt } satisfies PoolMessage)
    }
    const stop = (): void => {
      const reason = String(signal.reason ?? 'stopped')
      for (const w of workers) w.postMessage({ kind: 'stop', reason } satisfies PoolMessage)
    }
    const onCounts = (index: number, c: Counts): void => {
      counts[index] = c
      const total: Counts = { sent: 0, byStatus: {}, errors: 0 }
      for (const x of counts) {
        total.sent += x.sent
        total.errors += x.errors
        for (const [s, n] of Object.entries(x.byStatus)) total.byStatus[s] = (total.byStatus[s] ?? 0) + n
      }
      progress(total)
    }
    signal.addEventListener('abort', stop, { once: true })
    for (const w of workers) w.ref()
    const id = ++this.#tasks
    try {
      const parts = await Promise.all(
        workers.map((worker, index) => {
          const task = { ...base, plan: slices[index] as PhasePlan, index, count }
          task.maxRequests = Math.ceil(base.maxRequests / count)
          const name = `load worker ${index + 1} of ${count}`
          return runSlice(worker, id, task, name, onReady, (c) => onCounts(index, c))
        }),
      )
      return parts.map((part, index) => ({ slice: slices[index] as PhasePlan, part }))
    } catch (error) {
      // A thread that failed may have left the others mid-phase: stop them, so that the next phase finds them idle.
      stop()
      throw error
    } finally {
      signal.removeEventListener('abort', stop)
      for (const w of workers) w.unref()
    }
  }

  /**
   * Ends every thread (the run is over). Each is held (ref) until it exits: an idle thread is unref'd, and a main
   * thread with nothing else alive (a target in another process) would otherwise end with this promise unsettled.
   * A thread that has not exited within closeMs (its calls' sockets still closing) is terminated.
   */
  async close(): Promise<void> {
    const live = this.#threads.filter((w): w is Worker => w !== null)
    this.#threads.length = 0
    await Promise.all(
      live.map(
        (w) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => void w.terminate(), WORKERS.closeMs)
            w.once('exit', () => {
              clearTimeout(timer)
              resolve()
            })
            w.ref()
            w.postMessage({ kind: 'close' } satisfies PoolMessage)
          }),
      ),
    )
  }
}

/** One thread's slice of a phase: its task posted, its messages followed until its result or its failure. */
function runSlice(
  worker: Worker,
  id: number,
  task: WorkerTask,
  name: string,
  onReady: () => void,
  onCounts: (c: Counts) => void,
): Promise<Omit<PhaseResult, 'plan'>> {
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      worker.off('message', onMessage)
      worker.off('error', onError)
      worker.off('exit', onExit)
    }
    const onMessage = (m: WorkerMessage): void => {
      if (m.id !== id) return
      if (m.kind === 'ready') onReady()
      else if (m.kind === 'counts') onCounts(m)
      else {
        settle()
        if (m.kind === 'result') resolve(m.part)
        else reject(new Error(`${name}: ${m.message}`))
      }
    }
    const onError = (error: Error): void => {
      settle()
      reject(error)
    }
    const onExit = (code: number): void => {
      settle()
      reject(new Error(`${name} exited (${code}) without its result`))
    }
    worker.on('message', onMessage)
    worker.on('error', onError)
    worker.on('exit', onExit)
    worker.postMessage({ kind: 'task', id, task } satisfies PoolMessage)
  })
}
