/**
 * When a run stops calling the target (docs/configuration.md, GATEWAY_MAX_DURATION): past the run's deadline, or once the
 * target looks unhealthy, a run of consecutive transport failures (timeouts, resets, cut or endless streams, answers
 * labelled JSON that do not parse). From then on every call is refused at once, and the test that wanted it ends as
 * a harness error that says why and shows the evidence, so a broken target costs minutes, not hours.
 *
 * Suite files run in several workers, so both are files (their paths come from the run's config): the failures in
 * a row, one line each, which any worker's complete answer empties; and the stop file, written by the worker that
 * counts the last failure of the run, which every worker's client reads before each call.
 */
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { HarnessError } from '../errors.ts'

export const RUN_STOP_DEFAULTS = {
  maxDurationMs: 30 * 60_000, // a run's deadline: a full remote run, tier windows and all, takes well under this
  consecutiveFailures: 5, // transport failures in a row, over all workers, that show a target unhealthy
  watchEveryMs: 1000, // how often the command looks for a stop, to cancel the tests not yet begun
}

/** What the gate reads of the target's config (setup/config.ts TargetConfig), which reads the defaults above. */
export interface RunStopConfig {
  readonly deadlineAt?: number
  readonly stopFile?: string
}

/** What vitest notes on a test that a cancelled run did not begin. */
export const NOT_BEGUN_NOTE = 'The test run was aborted by the user.'

/** What the stop file holds: why the run stopped calling, with the failures that made it stop. */
interface StopNotice {
  reason: string
  evidence: string[]
}

/** A call refused because the run has stopped calling: its test ends as a harness error (status error). */
export class RunStopped extends HarnessError {
  constructor(code: 'TARGET_UNHEALTHY' | 'RUN_DEADLINE', message: string) {
    super(code, message)
  }
}

/** Reads the stop file; undefined while the run goes on. */
export function readStop(file: string | undefined): StopNotice | undefined {
  if (file === undefined || !existsSync(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StopNotice
  } catch {
    // Being written by another worker at this very moment: it stops the run all the same.
    return { reason: 'target unhealthy', evidence: [] }
  }
}

export function describeStop(stop: StopNotice): string {
  return `${stop.reason}${stop.evidence.length > 0 ? `: ${stop.evidence.map((e, i) => `(${i + 1}) ${e}`).join('; ')}` : ''}`
}

/** The file of the failures in a row, beside the stop file. */
export function failuresFile(stopFile: string): string {
  return `${stopFile}.failures`
}

/** One worker's view of the target's health and the run's deadline. */
export class RunGate {
  readonly #config: RunStopConfig
  #stopped: StopNotice | undefined

  constructor(config: RunStopConfig) {
    this.#config = config
  }

  /** Throws RunStopped when the run has stopped calling. */
  check(what: string): void {
    const deadline = this.#config.deadlineAt
    if (deadline !== undefined && Date.now() >= deadline) {
      throw new RunStopped(
        'RUN_DEADLINE',
        `${what} not sent: the run's deadline (GATEWAY_MAX_DURATION, --max-duration) passed; not judged`,
      )
    }
    this.#stopped ??= readStop(this.#config.stopFile)
    if (this.#stopped !== undefined)
      throw new RunStopped(
        'TARGET_UNHEALTHY',
        `${what} not sent: the run stopped calling, ${describeStop(this.#stopped)}; not judged`,
      )
  }

  /** A complete, readable answer: the run of failures is broken. */
  answered(): void {
    const file = this.#config.stopFile === undefined ? undefined : failuresFile(this.#config.stopFile)
    if (file !== undefined && (statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0) writeFileSync(file, '')
  }

  /** A transport failure, in words; after enough in a row the run stops calling. */
  failed(description: string): void {
    const stopFile = this.#config.stopFile
    if (stopFile === undefined) return
    appendFileSync(failuresFile(stopFile), `${description.replace(/\s+/g, ' ')}\n`)
    const failures = readFileSync(failuresFile(stopFile), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
    if (failures.length < RUN_STOP_DEFAULTS.consecutiveFailures) return
    const notice: StopNotice = {
      reason: `target unhealthy, ${failures.length} transport failures in a row`,
      evidence: failures,
    }
    try {
      // 'wx': the first worker to trip writes the evidence; the others keep it.
      writeFileSync(stopFile, JSON.stringify(notice), { flag: 'wx' })
    } catch {
      // Already written by another worker.
    }
  }
}
