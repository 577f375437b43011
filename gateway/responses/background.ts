/**
 * Background responses (Part 1 §3, §4.5: background true, when supported). The reference says only that they
 * leave the states queued and in_progress and can be cancelled; the timing here is the gateway's own, short so
 * that suites need not wait: queued, then in progress, then the finished response, all well under a second.
 */
import type { Phase } from './response-object.ts'
import type { StoredResponse } from './store.ts'

export const BACKGROUND_DEFAULTS = {
  queuedMs: 100, // time in queued
  inProgressMs: 200, // then time in in_progress before the response is finished
}

export type Render = (phase: Phase) => Record<string, unknown>

/**
 * The timing behind a slow network (--vary's latency): a job lasts some round trips, as a real model's does, so
 * that a client that cancels or polls at once still finds it running, not one that finished during one answer.
 */
export function backgroundTiming(latencyMs: number): typeof BACKGROUND_DEFAULTS {
  if (latencyMs <= 0) return BACKGROUND_DEFAULTS
  return {
    queuedMs: BACKGROUND_DEFAULTS.queuedMs + 2 * latencyMs,
    inProgressMs: BACKGROUND_DEFAULTS.inProgressMs + 4 * latencyMs,
  }
}

export function runInBackground(entry: StoredResponse, render: Render, timing = BACKGROUND_DEFAULTS): void {
  entry.body = render('queued')
  const started = setTimeout(() => {
    entry.body = render('in_progress')
  }, timing.queuedMs)
  const finished = setTimeout(() => {
    entry.body = render('final')
    entry.timers = []
  }, timing.queuedMs + timing.inProgressMs)
  // Pending jobs never keep a process alive; the store clears them on close.
  started.unref()
  finished.unref()
  entry.timers = [started, finished]
}

export function isRunning(entry: StoredResponse): boolean {
  return entry.body.status === 'queued' || entry.body.status === 'in_progress'
}

export function cancelBackground(entry: StoredResponse, render: Render): void {
  for (const timer of entry.timers) clearTimeout(timer)
  entry.timers = []
  entry.body = render('cancelled')
}
