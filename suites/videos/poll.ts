/**
 * Polling a video job until it ends (Part 2 §6.3: without webhooks, poll the job with backoff), and the credit
 * readings that tell whether a job was charged (§3, §4.1; Part 1 §2.1).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { CREDIT_SETTLE } from '../shared/credit.ts'
import { STATUSES, TERMINAL, videoPath } from './jobs.ts'

export const POLL_DEFAULTS = {
  initialDelayMs: 100, // first wait after the create; the reference gateway's steps are a few hundred ms
  factor: 2, // each wait doubles (exponential backoff, §6.3)
  maxDelayMs: 15_000, // a real video takes minutes: no point asking more often than this late on
  timeoutMs: 600_000, // 10 minutes: the bound within which a job must end (P2-6.3-poll-terminal)
  stableChecks: 3, // retrievals after a terminal status, at the first backoff delays (100, 200, 400 ms), that must agree
}

/** The test timeout of a test that polls: the bound plus room for the calls around it. */
export const POLLING_TEST_TIMEOUT_MS = POLL_DEFAULTS.timeoutMs + 60_000

/** The wait before poll n (1-based): initial, then doubling, capped. */
export function backoffDelayMs(attempt: number): number {
  return Math.min(
    POLL_DEFAULTS.maxDelayMs,
    POLL_DEFAULTS.initialDelayMs * POLL_DEFAULTS.factor ** Math.max(0, attempt - 1),
  )
}

export interface Poll {
  /** Every retrieval, in order. */
  seen: Array<{ ex: Exchange; status: unknown; atMs: number }>
  /** The first terminal status seen, or undefined when the bound passed first. */
  terminal: string | undefined
  elapsedMs: number
}

export function statusOf(ex: Exchange): unknown {
  return isObject(ex.json) ? ex.json.status : undefined
}

/**
 * GET /v1/videos/{id} with exponential backoff until the status is completed or failed, the bound passes, or
 * the retrieve stops answering 200 (then the poll ends with what it has: the caller judges).
 */
export async function pollUntilTerminal(
  api: TargetClient,
  id: string,
  key: KeySlot = 'main',
  timeoutMs: number = POLL_DEFAULTS.timeoutMs,
): Promise<Poll> {
  const started = Date.now()
  const seen: Poll['seen'] = []
  for (let attempt = 1; ; attempt += 1) {
    const ex = await api.get(videoPath(id), { key })
    const status = statusOf(ex)
    seen.push({ ex, status, atMs: Date.now() - started })
    if (ex.status < 200 || ex.status >= 300) return { seen, terminal: undefined, elapsedMs: Date.now() - started }
    if (typeof status === 'string' && TERMINAL.includes(status))
      return { seen, terminal: status, elapsedMs: Date.now() - started }
    const delay = backoffDelayMs(attempt)
    if (Date.now() - started + delay > timeoutMs) return { seen, terminal: undefined, elapsedMs: Date.now() - started }
    await sleep(delay)
  }
}

/**
 * Retrievals after a terminal status, at the first backoff delays: the statuses they answered. Together they
 * span longer than a whole queued-processing-completed cycle of the reference gateway's default schedule, so a
 * status that moved on would show, without making the suite wait as long as a real video takes.
 */
export async function laterStatuses(
  api: TargetClient,
  id: string,
  key: KeySlot = 'main',
): Promise<Array<{ ex: Exchange; status: unknown }>> {
  const out: Array<{ ex: Exchange; status: unknown }> = []
  for (let i = 1; i <= POLL_DEFAULTS.stableChecks; i += 1) {
    await sleep(backoffDelayMs(i))
    const ex = await api.get(videoPath(id), { key })
    out.push({ ex, status: statusOf(ex) })
  }
  return out
}

export function isKnownStatus(status: unknown): status is string {
  return typeof status === 'string' && STATUSES.includes(status)
}

/**
 * The account's remaining credit in US dollars (remaining_unit of GET /user/v1/credit, Part 1 §2.1), or null
 * when the target's usage endpoint does not answer one: then cost cannot be measured there.
 */
export async function remainingUsd(api: TargetClient, key: KeySlot): Promise<{ usd: number | null; ex: Exchange }> {
  const ex = await api.get('/user/v1/credit', { key })
  const value = isObject(ex.json) ? ex.json.remaining_unit : undefined
  return { usd: ex.status === 200 && typeof value === 'number' && Number.isFinite(value) ? value : null, ex }
}

/** Skips the running test when credit cannot be read. */
export function requireCredit(reading: { usd: number | null; ex: Exchange }): number {
  if (reading.usd === null)
    skipTest(
      `GET /user/v1/credit answered no remaining_unit (status ${reading.ex.status}), so cost cannot be measured on this target`,
    )
  return reading.usd
}

/** A difference of credit this small is rounding (remaining_unit has six decimals in the reference gateway). */
export const CREDIT_EPSILON_USD = 0.000_01

/**
 * The remaining credit after a charge was due: read until it is below `beforeUsd` by more than rounding, or the
 * settle bound (CREDIT_SETTLE) passes; a credit record may show a charge some seconds after the call.
 */
export async function creditAfterCharge(
  api: TargetClient,
  key: KeySlot,
  beforeUsd: number,
): Promise<{ usd: number; ex: Exchange; waitedMs: number }> {
  const started = Date.now()
  for (;;) {
    const reading = await remainingUsd(api, key)
    const usd = requireCredit(reading)
    const waitedMs = Date.now() - started
    if (usd < beforeUsd - CREDIT_EPSILON_USD || waitedMs + CREDIT_SETTLE.intervalMs > CREDIT_SETTLE.timeoutMs)
      return { usd, ex: reading.ex, waitedMs }
    await sleep(CREDIT_SETTLE.intervalMs)
  }
}

/** The remaining credit once the settle bound has passed: a charge that was going to show has shown by then. */
export async function creditSettled(api: TargetClient, key: KeySlot): Promise<{ usd: number; ex: Exchange }> {
  await sleep(CREDIT_SETTLE.timeoutMs)
  const reading = await remainingUsd(api, key)
  return { usd: requireCredit(reading), ex: reading.ex }
}
