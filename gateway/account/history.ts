/**
 * Older transactions of every seeded account: a real account has a history, and without one the time window of the
 * transaction list (hours_ago's default of 24, hours_ago ignored when dates are given; Part 1 §4.2) could not be
 * seen at work. Recorded at start-up, before any call.
 */
import { isoFormatter } from '../clock.ts'
import type { GatewayState } from '../state.ts'
import { createUuid7Generator } from '../uuid7.ts'

const HOUR_MS = 3_600_000

/** How long ago each seeded record was made: within hours_ago's range of 720 hours, but past its default of 24. */
const AGES_MS = [30 * HOUR_MS, 10 * 24 * HOUR_MS] as const

export function seedHistory(state: GatewayState): void {
  const toIso = isoFormatter()
  const now = state.clock.now()
  for (const ageMs of [...AGES_MS].sort((a, b) => b - a)) {
    const at = now - ageMs
    const id = createUuid7Generator({ now: () => at })
    for (const account of state.accounts.accounts) {
      state.transactions.add({
        record: {
          id: id(),
          created_at: toIso(at),
          requested_at: toIso(at),
          safety_identifier: null,
          model: 'gateway',
          provider: 'gateway',
          status_code: 200,
          stream: false,
          tokens: { total: 0, prompt: 0, completion: 0, reasoning: 0, cached: 0 },
        },
        accountId: account.id,
        apiKeyId: account.key.id,
        path: '/user/v1/credit',
        createdMs: at,
      })
    }
  }
}
