/**
 * The spending budget of a run (docs/configuration.md: GATEWAY_BUDGET_USD). A test that is about to
 * make a billable call estimates its cost from the prices in the reference and calls `spend()` first.
 * Within the budget the estimate is reserved and the test goes on; past it the test is skipped with
 * that reason, so no run spends more than it was allowed.
 *
 * Suite files run in several worker processes at once, so reservations go through one ledger file per
 * run, read and appended under a lock directory (mkdir is atomic): two workers cannot both take the
 * last dollar. With no budget (the embedded gateway) nothing is locked; estimates are still recorded,
 * so the summary reports what the run would have cost.
 *
 * A reservation belongs to the call it was made for: the first request the test starts in the same synchronous
 * turn (spend() and then the call, with no await between them). It is settled by that call's answer: a call refused
 * with a 4xx did no work (no tokens, no job), so its reservation is released; any other answer, or none, keeps it.
 * A reservation no request claims in its turn (the call went out another way, or never) is kept: never handed to
 * another call, whose refusal would release what this one may have spent.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { appendFileSync, mkdirSync, readFileSync, rmdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HarnessError } from '../errors.ts'
import { noteSpend, skipTest, type SpendItem } from './recorder.ts'

const BUDGET_DEFAULTS = {
  lockWaitMs: 10_000, // longest wait for another worker's reservation; each takes microseconds
  staleLockMs: 30_000, // a lock older than this was left by a crashed worker: break it
  pollMs: 5, // between attempts to take the lock
}

interface BudgetTarget {
  runId: string
  budgetUsd: number | null
}

/** A cent's fraction of a micro-dollar: sums of many small prices must not drift past the budget. */
const toMicros = (usd: number): number => Math.round(usd * 1_000_000)

function ledgerPaths(runId: string): { ledger: string; lock: string } {
  const safe = runId.replace(/[^A-Za-z0-9._-]/g, '_')
  const base = join(tmpdir(), `gateway-conformance-budget-${safe}`)
  return { ledger: `${base}.ledger`, lock: `${base}.lock` }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4))

function withLock<T>(lock: string, fn: () => T): T {
  const deadline = Date.now() + BUDGET_DEFAULTS.lockWaitMs
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new HarnessError('INTERNAL', `budget lock ${lock}: ${(error as Error).message}`)
      try {
        if (Date.now() - statSync(lock).mtimeMs > BUDGET_DEFAULTS.staleLockMs) rmdirSync(lock)
      } catch {
        // Released between the two calls: try again.
      }
      if (Date.now() > deadline)
        throw new HarnessError('INTERNAL', `budget lock ${lock} held for over ${BUDGET_DEFAULTS.lockWaitMs} ms`)
      Atomics.wait(sleeper, 0, 0, BUDGET_DEFAULTS.pollMs)
    }
  }
  try {
    return fn()
  } finally {
    rmdirSync(lock)
  }
}

function reservedMicros(ledger: string): number {
  let text: string
  try {
    text = readFileSync(ledger, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw error
  }
  let sum = 0
  for (const line of text.split('\n')) if (line !== '') sum += Number(line.split('\t')[0])
  return sum
}

/**
 * Reserves `usd` for a billable call described by `what` (e.g. "4 s vidA-2 video"), or skips the test
 * when that would pass the budget. Estimate high rather than low: the budget is a promise to the user.
 */
export function reserveSpend(target: BudgetTarget, usd: number, what: string): void {
  const decision = tryReserve(target, usd, what)
  if (!decision.ok) {
    skipTest(
      `budget: ${what} would cost about $${formatUsd(usd)}, and $${formatUsd(decision.reservedUsd)} of GATEWAY_BUDGET_USD=${target.budgetUsd} is already reserved`,
    )
  }
  const item: SpendItem = { usd, what }
  noteSpend(item)
  const reservation: Reservation = { target, item, open: true }
  // Open until the turn ends: an await between spend() and the call would let the reservation pass to a later call.
  queueMicrotask(() => {
    reservation.open = false
  })
  // A list of this flow's own from here on: concurrent flows of the worker keep theirs, and never see this one.
  turns.enterWith([...(turns.getStore() ?? []).filter((r) => r.open), reservation])
}

interface Reservation {
  target: BudgetTarget
  item: SpendItem
  /** Still in the turn that made it, so the call it was made for has not started yet. */
  open: boolean
}

/**
 * The reservations of one flow of a test (its chain of awaits), so that one call never claims what another made:
 * four creates in flight at once each claim only their own.
 */
const turns = new AsyncLocalStorage<Reservation[]>()

/**
 * Called as a call starts, before any await: the reservations made for it (in this flow, in this turn), to settle by
 * its answer. One that no call claimed in its turn stays reserved, claimed by no one.
 */
export function claimReservations(): Reservation[] {
  const mine = turns.getStore()
  if (mine === undefined) return []
  const claimed = mine.filter((r) => r.open)
  mine.length = 0
  for (const r of claimed) r.open = false
  return claimed
}

/** Settles the reservations of a call by its final status: released when the call was refused with a 4xx. */
export function settleReservations(claimed: readonly Reservation[], status: number | undefined): void {
  if (status === undefined || status < 400 || status >= 500) return
  for (const { target, item } of claimed) {
    item.refused = status
    if (target.budgetUsd === null) continue
    const { ledger, lock } = ledgerPaths(target.runId)
    withLock(lock, () =>
      appendFileSync(ledger, `${-toMicros(item.usd)}\trefused with ${status}: ${item.what.replace(/\s+/g, ' ')}\n`),
    )
  }
}

/** The decision alone: reserves and says ok, or says how much was already reserved. Safe across processes. */
export function tryReserve(target: BudgetTarget, usd: number, what: string): { ok: boolean; reservedUsd: number } {
  if (!Number.isFinite(usd) || usd < 0)
    throw new HarnessError('INTERNAL', `a cost estimate must be a non-negative number of USD, got ${usd} for ${what}`)
  if (target.budgetUsd === null) return { ok: true, reservedUsd: 0 }
  const { ledger, lock } = ledgerPaths(target.runId)
  const budget = toMicros(target.budgetUsd)
  return withLock(lock, () => {
    const reserved = reservedMicros(ledger)
    const ok = reserved + toMicros(usd) <= budget
    if (ok) appendFileSync(ledger, `${toMicros(usd)}\t${what.replace(/\s+/g, ' ')}\n`)
    return { ok, reservedUsd: reserved / 1_000_000 }
  })
}

export function formatUsd(usd: number): string {
  return usd < 0.01 && usd > 0 ? usd.toFixed(6).replace(/0+$/, '') : usd.toFixed(2)
}
