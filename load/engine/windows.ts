/**
 * Rate-limit windows as the target announced them. Every response of the phase's bucket says when its window
 * ends (received-at plus x-ratelimit-reset-*); responses whose announced ends lie within a tolerance of each other
 * belong to one window. This needs no knowledge of how the target keeps time, keeps no response, and merges
 * exactly across shards (the same rule joins the records of two shards).
 */
import type { WindowRecord } from '../types.ts'

export interface WindowObservation {
  sentAt: number
  receivedAt: number
  status: number
  deliberateFailure: boolean
  limit: number | null
  remaining: number | null
  resetMs: number
  retryAfterMs: number | null
  /** Calls in flight when this one was sent, itself included. */
  inFlight: number
}

export function windowTolerance(minuteMs: number): number {
  // A third of a minute: far above the drift of one window's announced end (latency, a header rounded to whole
  // seconds, a generator's event loop running late on a busy machine), well below the gap between two windows'
  // ends (a whole minute).
  return Math.max(20, minuteMs / 3)
}

export class WindowBook {
  readonly #windows: WindowRecord[] = []

  constructor(readonly toleranceMs: number) {}

  observe(o: WindowObservation): void {
    const end = o.receivedAt + o.resetMs
    const window = this.#find(end) ?? this.#open(end, o)
    window.announcedEndMin = Math.min(window.announcedEndMin, end)
    window.announcedEndMax = Math.max(window.announcedEndMax, end)
    if (o.limit !== null && window.limit !== null && o.limit !== window.limit) window.limitChanges += 1
    if (window.limit === null) window.limit = o.limit
    window.firstSentAt = Math.min(window.firstSentAt, o.sentAt)
    window.lastSentAt = Math.max(window.lastSentAt, o.sentAt)
    window.maxInFlight = Math.max(window.maxInFlight, o.inFlight)
    if (o.remaining !== null) {
      if (o.remaining < 0) window.negativeRemaining += 1
      // Judged later against the calls in flight (verdicts.ts), which a merge of shards adds up.
      if (window.minRemaining !== null) window.maxRise = Math.max(window.maxRise, o.remaining - window.minRemaining)
      window.minRemaining = window.minRemaining === null ? o.remaining : Math.min(window.minRemaining, o.remaining)
      window.maxRemaining = window.maxRemaining === null ? o.remaining : Math.max(window.maxRemaining, o.remaining)
    }
    if (o.status === 429) {
      window.refused += 1
      if (o.remaining !== null && o.remaining > Math.max(0, o.inFlight - 1)) window.refusedWithRoom += 1
      window.lastRefusedSentAt = window.lastRefusedSentAt === null ? o.sentAt : Math.max(window.lastRefusedSentAt, o.sentAt)
      if (window.firstRefusedSentAt === null || o.sentAt < window.firstRefusedSentAt) {
        window.firstRefusedSentAt = o.sentAt
        window.firstRefusedReceivedAt = o.receivedAt
        window.promisedEnd = end
        window.retryAfterEnd = o.retryAfterMs === null ? null : o.receivedAt + o.retryAfterMs
      }
    } else {
      window.admitted += 1
      if (o.deliberateFailure) window.deliberateFailures += 1
      if (window.firstAdmittedSentAt === null || o.sentAt < window.firstAdmittedSentAt) window.firstAdmittedSentAt = o.sentAt
    }
  }

  /** The windows in the order of their ends. */
  records(): WindowRecord[] {
    return [...this.#windows].sort((a, b) => a.announcedEnd - b.announcedEnd)
  }

  #find(end: number): WindowRecord | undefined {
    let best: WindowRecord | undefined
    for (let i = this.#windows.length - 1; i >= 0 && i >= this.#windows.length - 8; i -= 1) {
      // Only the latest few windows can still receive answers; older ones are closed in practice.
      const w = this.#windows[i] as WindowRecord
      const distance = Math.abs(end - w.announcedEnd)
      if (distance <= this.toleranceMs && (best === undefined || distance < Math.abs(end - best.announcedEnd))) best = w
    }
    return best
  }

  #open(end: number, o: WindowObservation): WindowRecord {
    const window = emptyWindow(end, o.sentAt)
    this.#windows.push(window)
    return window
  }
}

export function emptyWindow(end: number, sentAt: number): WindowRecord {
  return {
    announcedEnd: end,
    announcedEndMin: end,
    announcedEndMax: end,
    limit: null,
    limitChanges: 0,
    firstSentAt: sentAt,
    lastSentAt: sentAt,
    admitted: 0,
    deliberateFailures: 0,
    refused: 0,
    refusedWithRoom: 0,
    firstRefusedSentAt: null,
    firstRefusedReceivedAt: null,
    lastRefusedSentAt: null,
    promisedEnd: null,
    retryAfterEnd: null,
    firstAdmittedSentAt: null,
    minRemaining: null,
    maxRemaining: null,
    maxRise: 0,
    negativeRemaining: 0,
    maxInFlight: 0,
  }
}

const minOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b))
const maxOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b))

/** Joins the window records of several shards: records whose announced ends agree within the tolerance are one. */
export function mergeWindows(lists: readonly WindowRecord[][], toleranceMs: number): WindowRecord[] {
  const all = lists.flat().sort((a, b) => a.announcedEnd - b.announcedEnd)
  const out: WindowRecord[] = []
  for (const w of all) {
    const last = out[out.length - 1]
    if (last === undefined || w.announcedEnd - last.announcedEnd > toleranceMs) {
      out.push({ ...w })
      continue
    }
    const firstRefusalIsNew = w.firstRefusedSentAt !== null && (last.firstRefusedSentAt === null || w.firstRefusedSentAt < last.firstRefusedSentAt)
    Object.assign(last, {
      announcedEndMin: Math.min(last.announcedEndMin, w.announcedEndMin),
      announcedEndMax: Math.max(last.announcedEndMax, w.announcedEndMax),
      limit: last.limit ?? w.limit,
      limitChanges: last.limitChanges + w.limitChanges + (last.limit !== null && w.limit !== null && last.limit !== w.limit ? 1 : 0),
      firstSentAt: Math.min(last.firstSentAt, w.firstSentAt),
      lastSentAt: Math.max(last.lastSentAt, w.lastSentAt),
      admitted: last.admitted + w.admitted,
      deliberateFailures: last.deliberateFailures + w.deliberateFailures,
      refused: last.refused + w.refused,
      refusedWithRoom: last.refusedWithRoom + w.refusedWithRoom,
      lastRefusedSentAt: maxOf(last.lastRefusedSentAt, w.lastRefusedSentAt),
      firstAdmittedSentAt: minOf(last.firstAdmittedSentAt, w.firstAdmittedSentAt),
      minRemaining: minOf(last.minRemaining, w.minRemaining),
      maxRemaining: maxOf(last.maxRemaining, w.maxRemaining),
      maxRise: Math.max(last.maxRise, w.maxRise),
      negativeRemaining: last.negativeRemaining + w.negativeRemaining,
      // Shards' calls overlap in time: their in-flight counts add up.
      maxInFlight: last.maxInFlight + w.maxInFlight,
      ...(firstRefusalIsNew
        ? { firstRefusedSentAt: w.firstRefusedSentAt, firstRefusedReceivedAt: w.firstRefusedReceivedAt, promisedEnd: w.promisedEnd, retryAfterEnd: w.retryAfterEnd }
        : {}),
    })
  }
  return out
}
