/**
 * The conformance projects' vitest pool: vitest's worker threads, except that a thread which ended a run cleanly is
 * kept for the next run of the same project in the same vitest instance, with the modules it loaded. The fault proof
 * makes dozens of runs per instance (proof/fault-runs.ts); vitest ends a run's threads, and each new one spends most
 * of a small run's CPU loading the harness again. A command's single run keeps its threads idle until it closes.
 *
 * A kept thread answers the next run's start itself (it was set up once, for this project), and a run's stop: the
 * thread's teardown would unhook it from its port. What a suite learns of a target lives for one file
 * (suites/setup.ts starts each afresh), never for the thread. A thread that speaks while shelved still had work of
 * its last run going (a late rejection, a call in flight), which must not be judged in the next: it is ended instead.
 * Watch mode gets vitest's own behaviour: a rerun there follows edited files and options, which a kept thread would
 * not see. Threads are ended when the instance closes.
 */
import type { Worker } from 'node:worker_threads'
import {
  type PoolOptions,
  type PoolRunnerInitializer,
  type PoolWorker,
  type TestProject,
  ThreadsPoolWorker,
  type WorkerRequest,
} from 'vitest/node'

/** The pool's name in the projects' `pool` (vitest.config.ts). */
export const KEPT_THREADS = 'kept-threads'

type Listener = (...args: unknown[]) => void

/** A shelved thread, and whether it has spoken since it was shelved. */
interface Shelved {
  worker: ThreadsPoolWorker
  spoke: boolean
  unhook: () => void
}

/** Idle threads by project and test environment (a thread is set up for one environment). */
const shelves = new WeakMap<TestProject, Map<string, Shelved[]>>()

function shelfOf(options: PoolOptions): Shelved[] {
  let byEnvironment = shelves.get(options.project)
  if (byEnvironment === undefined) {
    const made = new Map<string, Shelved[]>()
    byEnvironment = made
    shelves.set(options.project, made)
    options.project.vitest.onClose(async () => {
      const idle = [...made.values()].flat()
      made.clear()
      await Promise.all(idle.map(end))
    })
  }
  const key = JSON.stringify([options.environment.name, options.environment.options ?? null])
  let shelf = byEnvironment.get(key)
  if (shelf === undefined) {
    shelf = []
    byEnvironment.set(key, shelf)
  }
  return shelf
}

function threadOf(worker: ThreadsPoolWorker): Worker {
  return (worker as unknown as { thread: Worker }).thread
}

async function end(shelved: Shelved): Promise<void> {
  shelved.unhook()
  await shelved.worker.stop()
}

function shelve(shelf: Shelved[], worker: ThreadsPoolWorker): void {
  const thread = threadOf(worker)
  const entry: Shelved = { worker, spoke: false, unhook: () => {} }
  const spoke = () => {
    entry.spoke = true
  }
  thread.on('message', spoke).on('error', spoke).on('exit', spoke)
  entry.unhook = () => thread.off('message', spoke).off('error', spoke).off('exit', spoke)
  // An idle thread does not keep the process alive.
  thread.unref()
  shelf.push(entry)
}

class KeptThread implements PoolWorker {
  readonly name = KEPT_THREADS
  readonly #options: PoolOptions
  #inner: ThreadsPoolWorker | undefined
  /** The thread was set up by an earlier run: its start is answered here. */
  #resumed = false
  /** The run asked the thread to stop cleanly; a forced stop (a failed task) ends the thread instead. */
  #stopAsked = false
  /** What this run hooked on the thread, unhooked when it is shelved. */
  readonly #hooked: Array<[string, Listener]> = []

  constructor(options: PoolOptions) {
    this.#options = options
  }

  get #thread(): ThreadsPoolWorker {
    if (this.#inner === undefined) throw new Error('kept-threads: the worker was not started')
    return this.#inner
  }

  async start(): Promise<void> {
    const shelf = shelfOf(this.#options)
    let kept: ThreadsPoolWorker | undefined
    for (let entry = shelf.pop(); entry !== undefined && kept === undefined; entry = shelf.pop()) {
      if (entry.spoke || threadOf(entry.worker).threadId < 0) await end(entry)
      else {
        entry.unhook()
        kept = entry.worker
      }
    }
    this.#resumed = kept !== undefined
    this.#inner = kept ?? new ThreadsPoolWorker(this.#options)
    if (kept === undefined) await this.#inner.start()
    else threadOf(kept).ref()
  }

  on(event: string, callback: Listener): void {
    this.#hooked.push([event, callback])
    this.#thread.on(event, callback)
  }

  off(event: string, callback: Listener): void {
    const at = this.#hooked.findIndex(([e, c]) => e === event && c === callback)
    if (at >= 0) this.#hooked.splice(at, 1)
    this.#thread.off(event, callback)
  }

  send(message: WorkerRequest): void {
    if (message.type === 'start' && this.#resumed) this.#answer('started')
    else if (message.type === 'stop' && !this.#options.project.vitest.config.watch) {
      this.#stopAsked = true
      this.#answer('stopped')
    } else this.#thread.send(message)
  }

  deserialize(data: unknown): unknown {
    return data
  }

  async stop(): Promise<void> {
    const inner = this.#thread
    for (const [event, callback] of this.#hooked.splice(0)) inner.off(event, callback)
    if (this.#stopAsked && threadOf(inner).threadId >= 0) shelve(shelfOf(this.#options), inner)
    else await inner.stop()
    this.#inner = undefined
  }

  /** Answers as the thread would, after the caller has set up its wait for the answer. */
  #answer(type: 'started' | 'stopped'): void {
    const listeners = this.#hooked.filter(([event]) => event === 'message').map(([, callback]) => callback)
    setImmediate(() => {
      for (const callback of listeners) callback({ type, __vitest_worker_response__: true })
    })
  }
}

export const keptThreads: PoolRunnerInitializer = {
  name: KEPT_THREADS,
  createPoolWorker: (options) => new KeptThread(options),
}
