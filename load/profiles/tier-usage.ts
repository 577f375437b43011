/**
 * tier-N-usage: the /user/v1 usage endpoints of one tier at half, once and twice the section 8.1 limit, then at
 * twice the limit with every other call failing on purpose (section 7: failed calls still count). The double
 * phase loads another account's key beside it at a quarter of its own limit: it must not be throttled.
 */
import { usageLimitPerMinute } from '../../harness/limits.ts'
import {
  connectionsFor,
  otherTier,
  phaseMs,
  ratePerSecond,
  requireKey,
  slotOf,
  TIERS,
  type PlanContext,
  type Profile,
  type ProfileListing,
} from './profile.ts'
import type { PhasePlan, RequestSpec } from '../types.ts'

const CREDIT: RequestSpec = { method: 'GET', path: '/user/v1/credit' }
const TRANSACTIONS: RequestSpec = { method: 'GET', path: '/user/v1/transactions?hours_ago=1&page_size=1' }
// page_size 0 is outside 1 to 1000 (section 4.2): a 400 that the limiter must still count.
const FAILING: RequestSpec = { method: 'GET', path: '/user/v1/transactions?page_size=0', deliberateFailure: true }

/**
 * The light phases span two minutes and a little more; the overloaded ones three, so that a limiter admitting one
 * call more per minute than the table passes the long-run bound L + L·T/minute (by 1 a minute, less a minute's
 * share of slack for the first) whatever its algorithm.
 */
const PHASE_MINUTES = 2.2
const OVERLOAD_MINUTES = 3.2

export const PROFILES: ProfileListing[] = [{ order: 10, make: () => TIERS.map(tierUsageProfile) }]

export function tierUsageProfile(tier: number): Profile {
  const name = `tier-${tier}-usage`
  return {
    name,
    description:
      `The /user/v1 usage endpoints with the tier-${tier} key at 0.5x, 1x and 2x the section 8.1 limit ` +
      `(${usageLimitPerMinute(tier)} per minute), then 2x with failing calls mixed in`,
    tier,
    caps: { maxDurationMs: 30 * 60_000, maxRequests: 50_000 },
    async plan(ctx: PlanContext): Promise<PhasePlan[]> {
      const slot = slotOf(tier)
      requireKey(ctx, slot, name)
      const limit = usageLimitPerMinute(tier) as number
      const other = otherTier(ctx, tier)
      const phase = (label: string, multiple: number, extra: Partial<PhasePlan>): PhasePlan => {
        const rate = ratePerSecond(ctx, multiple * limit)
        return {
          name: label,
          description: `${multiple}x the limit: ${rate.toFixed(2)} calls/s against ${limit} per minute`,
          engine: 'scheduler',
          slot,
          requests: [CREDIT, TRANSACTIONS],
          rate,
          connections: connectionsFor(ctx, rate),
          durationMs: phaseMs(ctx, multiple > 1 ? OVERLOAD_MINUTES : PHASE_MINUTES),
          bucket: 'requests',
          expectedLimit: limit,
          fromRest: true,
          verdicts: ['admission', 'headers'],
          ...extra,
        }
      }
      const otherLimit = other === null ? null : (usageLimitPerMinute(other) as number)
      return [
        phase('half', 0.5, {}),
        phase('at-limit', 1, {}),
        phase('double', 2, {
          verdicts: ['admission', 'headers', 'recovery', 'isolation'],
          ...(other !== null && otherLimit !== null
            ? {
                probe: {
                  slot: slotOf(other),
                  rate: ratePerSecond({ ...ctx, rate: null }, otherLimit / 4),
                  requests: [CREDIT],
                },
              }
            : {}),
        }),
        phase('failed-calls', 2, {
          requests: [CREDIT, FAILING],
          verdicts: ['failed-calls', 'headers'],
          description: `2x the limit, every other call a 400 (page_size=0) that must count`,
        }),
      ]
    },
  }
}
