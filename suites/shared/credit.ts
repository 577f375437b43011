/** The caller's remaining credit (Part 1 §2.1), for the checks that a billable call was charged. */
import { expectStatus, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import type { KeySlot } from '../../harness/keys.ts'
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

/** A number field of GET /user/v1/credit with this key; a record without it stops the test as P1-2.1's. */
async function creditNumber(
  api: TargetClient,
  key: KeySlot,
  field: 'remaining_unit' | 'remaining_irt',
): Promise<{ value: number; ex: Exchange }> {
  const ex = await api.get('/user/v1/credit', { key })
  expectStatus(ex, 200)
  const body = ex.json
  precondition(
    isObject(body) && typeof body[field] === 'number',
    'P1-2.1-credit-record',
    `the credit record has no number ${field}`,
  )
  return { value: (body as Record<string, number>)[field] as number, ex }
}

/** remaining_unit (USD) of GET /user/v1/credit with this key. */
export async function remainingCredit(api: TargetClient, key: KeySlot): Promise<{ usd: number; ex: Exchange }> {
  const { value, ex } = await creditNumber(api, key, 'remaining_unit')
  return { usd: value, ex }
}

/**
 * remaining_irt of GET /user/v1/credit with this key: the credit itself (Part 1 §2.1, "Remaining credit in IRT"),
 * where remaining_unit also moves when the exchange rate does.
 */
export async function remainingIrt(api: TargetClient, key: KeySlot): Promise<{ irt: number; ex: Exchange }> {
  const { value, ex } = await creditNumber(api, key, 'remaining_irt')
  return { irt: value, ex }
}

/**
 * Reads until `settled(reading)` holds or CREDIT_SETTLE.timeoutMs has passed, and returns the last reading with
 * whether it settled: a charge read once right after the call may not show yet.
 */
export async function settledReading<T>(
  read: () => Promise<T>,
  settled: (reading: T) => boolean,
): Promise<T & { settled: boolean }> {
  let last = await read()
  if (settled(last)) return { ...last, settled: true }
  const done = await pollUntil(
    async () => {
      last = await read()
      return settled(last) ? true : undefined
    },
    { timeoutMs: CREDIT_SETTLE.timeoutMs, intervalMs: CREDIT_SETTLE.intervalMs },
  )
  return { ...last, settled: done === true }
}

/** remaining_unit read until `settled(usd)` holds or the settle bound passes (settledReading). */
export function settledCredit(
  api: TargetClient,
  key: KeySlot,
  settled: (usd: number) => boolean,
): Promise<{ usd: number; ex: Exchange; settled: boolean }> {
  return settledReading(
    () => remainingCredit(api, key),
    (reading) => settled(reading.usd),
  )
}
