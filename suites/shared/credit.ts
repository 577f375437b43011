/** The caller's remaining credit (Part 1 §2.1), for the checks that a billable call was charged. */
import { expectStatus, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/config.ts'
import type { Exchange, TargetClient } from '../../harness/http-client.ts'

/** How long a charge may take to show in the credit record. */
export const CREDIT_SETTLE = { timeoutMs: 5_000, intervalMs: 250 }

/** remaining_unit (USD) of GET /user/v1/credit with this key; a record without it stops the test as P1-2.1's. */
export async function remainingCredit(api: TargetClient, key: KeySlot): Promise<{ usd: number; ex: Exchange }> {
  const ex = await api.get('/user/v1/credit', { key })
  expectStatus(ex, 200)
  const body = ex.json
  precondition(
    isObject(body) && typeof body.remaining_unit === 'number',
    'P1-2.1-credit-record',
    'the credit record has no number remaining_unit',
  )
  return { usd: body.remaining_unit as number, ex }
}
