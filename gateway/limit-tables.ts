/**
 * The limit tables of schemas/limits, read as data so that the gateway and the suites share one
 * source: the usage-endpoint limits of Part 1 section 8.1 and the per-class model limits that the
 * gateway publishes through extra.rate_limits (section 8.3).
 */
import modelRateLimits from '../schemas/limits/model-rate-limits.json' with { type: 'json' }
import usageRateLimits from '../schemas/limits/usage-rate-limits.json' with { type: 'json' }

export const TIERS = [0, 1, 2, 3, 4, 5] as const
export type Tier = (typeof TIERS)[number]

/** `account` covers routes that name no model; the others are the classes a catalogue model belongs to. */
export type RateClass = 'account' | 'text' | 'media' | 'utility'
export type ModelRateClass = Exclude<RateClass, 'account'>

export interface TierLimits {
  /** Requests per minute. */
  readonly rpm: number
  /** Tokens per minute. */
  readonly tpm: number
}

const classTables: Readonly<Record<string, Readonly<Record<string, TierLimits>>>> = modelRateLimits.classes
const usageTable: Readonly<Record<string, number>> = usageRateLimits.requestsPerMinute

// Fail at start-up, not on the first request of some tier, if a table lost an entry.
for (const rateClass of ['account', 'text', 'media', 'utility'] satisfies RateClass[]) {
  for (const tier of TIERS) {
    const limits = classTables[rateClass]?.[String(tier)]
    if (!limits || !Number.isInteger(limits.rpm) || !Number.isInteger(limits.tpm)) {
      throw new Error(`schemas/limits/model-rate-limits.json: class ${rateClass} has no rpm/tpm for tier ${tier}`)
    }
  }
}
for (const tier of TIERS) {
  if (!Number.isInteger(usageTable[String(tier)])) {
    throw new Error(`schemas/limits/usage-rate-limits.json: no requestsPerMinute for tier ${tier}`)
  }
}

export function classLimits(rateClass: RateClass, tier: Tier): TierLimits {
  const { rpm, tpm } = classTables[rateClass]![String(tier)]!
  return { rpm, tpm }
}

/** Requests per minute on /user/v1 for an account of this tier (section 8.1). */
export function usageRequestsPerMinute(tier: Tier): number {
  return usageTable[String(tier)]!
}
