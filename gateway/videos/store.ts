/**
 * Video jobs of one gateway (Part 2 sections 2.1, 3, 4.1) and the schedule they follow.
 *
 * A job that starts is queued for one step, processing for the next, then completed; the step is the
 * gateway option --video-step-ms, so that self-tests see every state in well under a second. A job that
 * cannot start is failed from its creation (the one transition section 3 shows) and stays failed.
 * Status is read from the clock when asked, never stored, so a job cannot skip or repeat a state and a
 * completed or failed job never changes again (transitions are not shown; this is the plain reading).
 * The gateway never fails a job that has started: section 4.1 says a failed job was not charged, and a
 * started job has been.
 */
import { randomBytes } from 'node:crypto'
import type { Clock } from '../clock.ts'

export const VIDEO_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const
export type VideoStatus = (typeof VIDEO_STATUSES)[number]

/** The default step: two of them to complete keeps the whole videos suite quick against the embedded gateway. */
export const DEFAULT_VIDEO_STEP_MS = 250

export interface VideoJob {
  readonly id: string
  readonly accountId: string
  readonly model: string
  readonly prompt: string
  readonly seconds: string
  readonly size: string
  readonly safetyIdentifier: string | null
  /** The svc-request-id of the call that created the job (Part 1 section 4.1 rules). */
  readonly requestId: string
  /** Gateway-clock milliseconds. */
  readonly createdMs: number
  /** Why the job did not start, or null for a job that started (and was charged). */
  readonly notStarted: string | null
  readonly remixedFrom: string | null
  /** What the account was charged, in US dollars. */
  readonly chargedUsd: number
  readonly seq: number
}

export type NewVideoJob = Omit<VideoJob, 'id' | 'createdMs' | 'seq'>

export interface VideoListFilter {
  safetyIdentifier?: string
  requestId?: string
}

export class VideoStore {
  readonly #jobs = new Map<string, VideoJob>()
  /** Every id handed out, deleted ones included: a deleted job is missing, an id never issued is unknown. */
  readonly #issued = new Set<string>()
  #seq = 0

  private readonly clock: Clock
  readonly stepMs: number

  constructor(clock: Clock, stepMs: number) {
    this.clock = clock
    this.stepMs = stepMs
  }

  create(job: NewVideoJob): VideoJob {
    this.#seq += 1
    const stored: VideoJob = {
      ...job,
      id: `video_${randomBytes(12).toString('hex')}`,
      createdMs: this.clock.now(),
      seq: this.#seq,
    }
    this.#jobs.set(stored.id, stored)
    this.#issued.add(stored.id)
    return stored
  }

  wasIssued(id: string): boolean {
    return this.#issued.has(id)
  }

  /** The caller's job, or undefined: another account's job is as missing as one that never existed. */
  get(accountId: string, id: string): VideoJob | undefined {
    const job = this.#jobs.get(id)
    return job?.accountId === accountId ? job : undefined
  }

  /** A job whatever its account: only for the fault that serves a job without a key. */
  anyones(id: string): VideoJob | undefined {
    return this.#jobs.get(id)
  }

  delete(accountId: string, id: string): boolean {
    if (!this.get(accountId, id)) return false
    return this.#jobs.delete(id)
  }

  /** The caller's jobs, newest first, after the filters of section 4.1 (exact matches). */
  list(accountId: string, filter: VideoListFilter): VideoJob[] {
    return [...this.#jobs.values()]
      .filter((job) => job.accountId === accountId)
      .filter((job) => filter.safetyIdentifier === undefined || job.safetyIdentifier === filter.safetyIdentifier)
      .filter((job) => filter.requestId === undefined || job.requestId === filter.requestId)
      .sort((a, b) => b.seq - a.seq)
  }

  status(job: VideoJob): VideoStatus {
    if (job.notStarted !== null) return 'failed'
    const elapsed = this.clock.now() - job.createdMs
    if (elapsed < this.stepMs) return 'queued'
    if (elapsed < 2 * this.stepMs) return 'processing'
    return 'completed'
  }

  /** Gateway-clock milliseconds at which a started job completed (or will). */
  completedMs(job: VideoJob): number {
    return job.createdMs + 2 * this.stepMs
  }

  /** 0 while queued or failed, 1 to 99 through processing, 100 when completed: a hint for people watching. */
  progress(job: VideoJob): number {
    const status = this.status(job)
    if (status === 'completed') return 100
    if (status !== 'processing') return 0
    const into = this.clock.now() - job.createdMs - this.stepMs
    return Math.max(1, Math.min(99, Math.floor((100 * into) / this.stepMs)))
  }
}
