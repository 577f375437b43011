/**
 * A run you can watch: each finished file's line says how far the run is (files and requirements done of the
 * selection, elapsed time, the family), and a heartbeat line comes at least every 15 s of silence, as when the tiers
 * family waits out a rate-limit minute. Plain lines, TTY or not: CI logs and terminals read the same.
 */
import { relative } from 'node:path'
import type { Reporter, TestModule, TestSpecification } from 'vitest/node'
import type { ConformanceMeta } from '../worker/recorder.ts'

export const PROGRESS_DEFAULTS = {
  heartbeatMs: 15_000, // the longest silence a watcher sees before a line says the run is alive
}

export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000)
  const minutes = Math.floor(seconds / 60)
  return minutes === 0 ? `${seconds}s` : `${minutes}m${String(seconds % 60).padStart(2, '0')}s`
}

/** suites/<family>/… names the family; anything else is its own path. */
export function familyOf(file: string): string {
  return /^suites\/([^/]+)\//.exec(file)?.[1] ?? file
}

export interface ProgressOptions {
  root: string
  /** The requirements the selection can reach, for "n of N requirements". */
  requirementsSelected: number
  write: (text: string) => void
  now?: () => number
  heartbeatMs?: number
}

export class ProgressReporter implements Reporter {
  readonly #o: ProgressOptions
  readonly #now: () => number
  #startedAt = 0
  #files = 0
  #filesDone = 0
  readonly #requirements = new Set<string>()
  readonly #running = new Set<string>()
  #lastWrite = 0
  #timer: NodeJS.Timeout | undefined

  constructor(options: ProgressOptions) {
    this.#o = options
    this.#now = options.now ?? Date.now
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.#startedAt = this.#now()
    this.#lastWrite = this.#startedAt
    this.#files = specifications.length
    const every = this.#o.heartbeatMs ?? PROGRESS_DEFAULTS.heartbeatMs
    // Checked four times a period, so no silence outlasts it by more than a quarter.
    this.#timer = setInterval(() => this.heartbeat(), Math.max(250, Math.floor(every / 4)))
    this.#timer.unref()
  }

  onTestModuleStart(module: TestModule): void {
    this.#running.add(this.#file(module))
  }

  onTestRunEnd(): void {
    if (this.#timer) clearInterval(this.#timer)
  }

  #file(module: TestModule): string {
    return relative(this.#o.root, module.moduleId)
  }

  /** Counts a finished file and returns what its line adds: "[12/91 files, 40/120 requirements, 1m05s, auth]". */
  fileDone(module: TestModule): string {
    const file = this.#file(module)
    this.#running.delete(file)
    this.#filesDone += 1
    for (const test of module.children.allTests()) {
      const id = (test.meta() as ConformanceMeta).requirement
      if (id !== undefined && test.result().state !== 'skipped') this.#requirements.add(id)
    }
    this.#lastWrite = this.#now()
    return `[${this.#filesDone}/${this.#files || '?'} files, ${this.#requirements.size}/${this.#o.requirementsSelected} requirements, ${formatElapsed(this.#lastWrite - this.#startedAt)}, ${familyOf(file)}]`
  }

  /** A line when nothing was written for a heartbeat period: what is still running, and for how long the run has. */
  heartbeat(): void {
    const now = this.#now()
    if (now - this.#lastWrite < (this.#o.heartbeatMs ?? PROGRESS_DEFAULTS.heartbeatMs)) return
    this.#lastWrite = now
    const families = [...new Set([...this.#running].map(familyOf))]
    const waiting = families.includes('tiers') ? ' (the tiers family waits out rate-limit minutes)' : ''
    this.#o.write(
      `  ... ${formatElapsed(now - this.#startedAt)} elapsed, ${this.#filesDone}/${this.#files || '?'} files done, running: ${families.join(', ') || 'starting'}${waiting}\n`,
    )
  }
}
