/**
 * backoff: a sustained overload of one tier's usage limit (section 8.1), driven in turn by three clients of the
 * same number of workers: one that follows the section 7 client rules, a naive one that retries at once, and a
 * replay of the official OpenAI Node client's retry policy. Each phase starts from rest and lasts three minutes
 * and a little more, so that the client meets the limit again and again whatever the algorithm.
 */
import { usageLimitPerMinute } from '../../harness/limits.ts'
import { POLICIES } from '../engine/policies.ts'
import {
  phaseMs,
  ratePerSecond,
  requireKey,
  slotOf,
  type PlanContext,
  type Profile,
  type ProfileListing,
} from './profile.ts'
import type { ClientPolicyName, PhasePlan } from '../types.ts'

export const BACKOFF = {
  tier: 2, // 50 calls a minute: enough workers to overload it, few enough calls to be gentle on a real target
  // The naive client never waits, so on loopback it would make thousands of calls a second: it is paced at this
  // many times the limit (calls per minute across its workers), which overloads the limit twentyfold and keeps a
  // phase to a few thousand calls on any target and any minute (3.2 minutes x 20 x the limit).
  naiveOverload: 20,
}

export const PROFILES: ProfileListing[] = [{ order: 50, make: () => [backoffProfile()] }]

export function backoffProfile(): Profile {
  return {
    name: 'backoff',
    description:
      "A sustained overload of one tier's usage limit by a section 7 client, a naive client and the OpenAI Node " +
      "client's retry policy, in turn: goodput, 429s per success, time to recover",
    tier: null,
    caps: { maxDurationMs: 30 * 60_000, maxRequests: 40_000 },
    async plan(ctx: PlanContext): Promise<PhasePlan[]> {
      const tier = ctx.tier ?? BACKOFF.tier
      const slot = slotOf(tier)
      requireKey(ctx, slot, 'backoff')
      const limit = usageLimitPerMinute(tier) as number
      const workers = ctx.connections ?? Math.max(2, Math.ceil(limit / 10))
      const phase = (policy: ClientPolicyName): PhasePlan => {
        const pace = policy === 'naive' ? ratePerSecond(ctx, BACKOFF.naiveOverload * limit) : null
        const paced =
          pace === null ? '' : `, paced at ${pace.toFixed(1)} calls a second (${BACKOFF.naiveOverload}x the limit)`
        return {
          name: policy,
          description: `${workers} workers of the ${POLICIES[policy].label} against ${limit} calls per minute${paced}`,
          engine: 'clients',
          slot,
          requests: [{ method: 'GET', path: '/user/v1/credit' }],
          rate: null,
          connections: workers,
          durationMs: phaseMs(ctx, 3.2),
          bucket: 'requests',
          expectedLimit: limit,
          fromRest: true,
          verdicts: policy === 'spec7' ? ['backoff', 'admission'] : ['admission'],
          client: { policy, workers, maxAttempts: POLICIES[policy].maxAttempts, pacePerSecond: pace },
        }
      }
      return [phase('spec7'), phase('naive'), phase('openai-node')]
    },
  }
}
