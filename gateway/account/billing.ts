/**
 * Charging billable calls against an account's credit (Part 1 section 2.1; Part 2 sections 3, 4.5,
 * 4.6, 4.9 for the prices). Credit is held in IRT; prices are stated in US dollars and converted at
 * the gateway's exchange rate. Sources are drawn in the order the credit record lists them (grants,
 * then packages), each down to zero: the reference does not say which source pays first, and this
 * keeps GET /user/v1/credit consistent with what was charged. A charge larger than what is left takes
 * what is left; refusing calls for lack of credit is not described by the reference, so the gateway
 * does not.
 *
 * Callers charge when the work has started (a video that failed to start costs nothing, section 3).
 */
import { EXCHANGE_RATE, type Account } from './accounts.ts'
import { SetupError } from '../errors.ts'
import { noteCharge } from './settling.ts'

export interface Charge {
  /** What was asked, in US dollars. */
  readonly usd: number
  /** What was taken from the account, in IRT (less than usd * rate when credit ran out). */
  readonly irt: number
}

export function chargeUsd(account: Account, usd: number): Charge {
  if (!Number.isFinite(usd) || usd < 0)
    throw new SetupError('INTERNAL', `a charge must be a non-negative number of USD, got ${usd}`)
  let owed = usd * EXCHANGE_RATE
  let taken = 0
  for (const source of [...account.grants, ...account.packages]) {
    if (owed <= 0) break
    const part = Math.min(owed, source.remainingIrt)
    source.remainingIrt -= part
    owed -= part
    taken += part
  }
  noteCharge(account, taken)
  return { usd, irt: taken }
}

/** What the account has left, in US dollars: the credit record's remaining_unit before rounding. */
export function remainingUsd(account: Account): number {
  const irt = [...account.grants, ...account.packages].reduce((sum, source) => sum + source.remainingIrt, 0)
  return irt / EXCHANGE_RATE
}
