/** The caller's remaining credit (Part 1 §2.1), for the checks that a billable call was charged. */
import { expectStatus, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { DEFAULTS, type KeySlot } from '../../harness/setup/config.ts'
import { pollUntil } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { runConfig } from '../../harness/worker/suite.ts'

/**
 * How long a charge may take to show in the credit record (§2.1 does not say): GATEWAY_SETTLE_MS, read when a
 * test polls, polled every intervalMs. Pass it to pollUntil, or use settledCredit.
 */
export const CREDIT_SETTLE = {
  get timeoutMs(): number {
    // Without GATEWAY_SETTLE_MS: the reference does not say when a charge shows.
    return runConfig().settleMs ?? DEFAULTS.settleMs
  },
  intervalMs: 250,
}

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

/**
 * Reads the credit until `settled(usd)` holds or CREDIT_SETTLE.timeoutMs has passed, and returns the last reading
 * with whether it settled: a charge read once right after the call may not show yet.
 */
export async function settledCredit(
  api: TargetClient,
  key: KeySlot,
  settled: (usd: number) => boolean,
): Promise<{ usd: number; ex: Exchange; settled: boolean }> {
  let last = await remainingCredit(api, key)
  if (settled(last.usd)) return { ...last, settled: true }
  const done = await pollUntil(
    async () => {
      last = await remainingCredit(api, key)
      return settled(last.usd) ? true : undefined
    },
    { timeoutMs: CREDIT_SETTLE.timeoutMs, intervalMs: CREDIT_SETTLE.intervalMs },
  )
  return { ...last, settled: done === true }
}
