/**
 * Choices of the account endpoints that the reference leaves open, made as real providers make them (variations.ts):
 * a transaction that is listed a few seconds after its call (§4.2 promises "within 30 seconds"), and a charge that
 * shows in the credit record a few seconds after the call (§2.1 does not say when). In one place, so that the
 * normal path reads as the reference says.
 */
import type { Account } from './accounts.ts'
import type { GatewayState } from '../state.ts'

/** Short, so that runs stay quick, and long enough that a suite reading once right after the call would miss it. */
export const LATE_TRANSACTIONS_MS = 2_500
export const LATE_CREDIT_MS = 2_500

/** What each account was charged lately, by wall-clock time: the credit record hides it under `late-credit`. */
const recentCharges = new WeakMap<Account, Array<{ atMs: number; irt: number }>>()

export function noteCharge(account: Account, irt: number): void {
  const now = Date.now()
  const kept = (recentCharges.get(account) ?? []).filter((c) => now - c.atMs < LATE_CREDIT_MS)
  kept.push({ atMs: now, irt })
  recentCharges.set(account, kept)
}

/** IRT charged to the account that the credit record does not show yet. */
export function unsettledIrt(state: GatewayState, account: Account): number {
  if (!state.variations.has('late-credit')) return 0
  const now = Date.now()
  return (recentCharges.get(account) ?? []).reduce((sum, c) => (now - c.atMs < LATE_CREDIT_MS ? sum + c.irt : sum), 0)
}

/** Transactions created after this gateway-clock time are not listed yet. */
export function listedUntilMs(state: GatewayState): number {
  return state.variations.has('late-transactions') ? state.clock.now() - LATE_TRANSACTIONS_MS : Number.POSITIVE_INFINITY
}
