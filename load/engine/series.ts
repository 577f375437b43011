/**
 * A phase's time series: fixed 100 ms slices keyed by absolute time (floor(epoch ms / bucketMs)), so a run keeps
 * a few numbers per slice instead of every response, and the series of shards add up slice by slice.
 */
import type { SeriesBucket } from '../types.ts'

export const BUCKET_MS = 100

export type Outcome = 'ok' | 'refused' | 'clientErrors' | 'serverErrors' | 'errors'

export function outcomeOf(status: number | null): Outcome {
  if (status === null) return 'errors'
  if (status === 429) return 'refused'
  if (status >= 500) return 'serverErrors'
  if (status >= 400) return 'clientErrors'
  return 'ok'
}

function emptyBucket(t: number): SeriesBucket {
  return {
    t,
    sent: 0,
    ok: 0,
    refused: 0,
    clientErrors: 0,
    serverErrors: 0,
    errors: 0,
    retries: 0,
    good: 0,
    admittedSent: 0,
    refusedSent: 0,
    failedSent: 0,
    minRemaining: null,
    maxRemaining: null,
    limit: null,
  }
}

export class Series {
  readonly #buckets = new Map<number, SeriesBucket>()
  // Most calls fall in the slice of the call before: it is looked up once, not once per call.
  #last: SeriesBucket | null = null

  readonly bucketMs: number

  constructor(bucketMs: number = BUCKET_MS) {
    this.bucketMs = bucketMs
  }

  #at(epochMs: number): SeriesBucket {
    const t = Math.floor(epochMs / this.bucketMs)
    if (this.#last !== null && this.#last.t === t) return this.#last
    let bucket = this.#buckets.get(t)
    if (bucket === undefined) {
      bucket = emptyBucket(t)
      this.#buckets.set(t, bucket)
    }
    this.#last = bucket
    return bucket
  }

  sent(at: number): void {
    this.#at(at).sent += 1
  }

  retried(at: number): void {
    this.#at(at).retries += 1
  }

  /** A call that ended at `at` was good: answered 2xx within every per-call objective. */
  good(at: number): void {
    const bucket = this.#at(at)
    bucket.good = (bucket.good ?? 0) + 1
  }

  /**
   * A call sent at `sentAt` was answered with `status`: counted in the slice it was sent in, for the admission
   * bounds, by what the target did with it: served (a deliberate failure's 4xx is its own fault, and counts toward
   * the limit as failed calls do), refused with 429, or refused otherwise.
   */
  admission(sentAt: number, status: number, deliberateFailure: boolean): void {
    const bucket = this.#at(sentAt)
    if (status === 429) bucket.refusedSent += 1
    else if (status < 400 || (deliberateFailure && status < 500)) {
      bucket.admittedSent += 1
      if (deliberateFailure) bucket.failedSent += 1
    } else bucket.otherSent = (bucket.otherSent ?? 0) + 1
  }

  answered(at: number, status: number | null, remaining: number | null, limit: number | null): void {
    const bucket = this.#at(at)
    bucket[outcomeOf(status)] += 1
    if (remaining !== null) {
      bucket.minRemaining = bucket.minRemaining === null ? remaining : Math.min(bucket.minRemaining, remaining)
      bucket.maxRemaining = bucket.maxRemaining === null ? remaining : Math.max(bucket.maxRemaining, remaining)
    }
    if (limit !== null) bucket.limit = limit
  }

  buckets(): SeriesBucket[] {
    return [...this.#buckets.values()].sort((a, b) => a.t - b.t)
  }
}

/** Adds the series of several shards slice by slice (sums; minima and maxima of remaining). */
export function mergeSeries(lists: readonly SeriesBucket[][]): SeriesBucket[] {
  const byT = new Map<number, SeriesBucket>()
  for (const b of lists.flat()) {
    const into = byT.get(b.t)
    if (into === undefined) {
      byT.set(b.t, { ...b })
      continue
    }
    into.sent += b.sent
    into.ok += b.ok
    into.refused += b.refused
    into.clientErrors += b.clientErrors
    into.serverErrors += b.serverErrors
    into.errors += b.errors
    into.retries += b.retries
    // A result without `good` (written by a tool that counted no goodput) adds nothing, not NaN.
    if (into.good !== undefined || b.good !== undefined) into.good = (into.good ?? 0) + (b.good ?? 0)
    into.admittedSent += b.admittedSent
    into.refusedSent += b.refusedSent
    into.failedSent += b.failedSent
    if (into.otherSent !== undefined || b.otherSent !== undefined)
      into.otherSent = (into.otherSent ?? 0) + (b.otherSent ?? 0)
    into.minRemaining =
      into.minRemaining === null
        ? b.minRemaining
        : b.minRemaining === null
          ? into.minRemaining
          : Math.min(into.minRemaining, b.minRemaining)
    into.maxRemaining =
      into.maxRemaining === null
        ? b.maxRemaining
        : b.maxRemaining === null
          ? into.maxRemaining
          : Math.max(into.maxRemaining, b.maxRemaining)
    into.limit = into.limit ?? b.limit
  }
  return [...byT.values()].sort((a, b) => a.t - b.t)
}
