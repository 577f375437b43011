/**
 * The limit tables of schemas/limits, read as data so that the gateway and the suites share one
 * source: the usage-endpoint limits of Part 1 section 8.1, the per-class model limits that the
 * gateway publishes through extra.rate_limits (section 8.3) and the file limits of section 8.4.
 */
import fileLimitTable from '../schemas/limits/file-limits.json' with { type: 'json' }
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

/** Section 8.4, per account and tier: operations per minute and the storage quota (bytes, 1 MB = 10^6). */
export interface FileTierLimits {
  readonly uploadsPerMinute: number
  readonly downloadsPerMinute: number
  readonly deletesPerMinute: number
  readonly maxStorageBytes: number
}

const fileTierTable: Readonly<Record<string, FileTierLimits>> = fileLimitTable.tiers

for (const tier of TIERS) {
  const limits = fileTierTable[String(tier)]
  if (!limits || !Object.values(limits).every((value) => Number.isSafeInteger(value) && value > 0)) {
    throw new Error(`schemas/limits/file-limits.json: incomplete file limits for tier ${tier}`)
  }
}
if (!Number.isSafeInteger(fileLimitTable.maxUploadBytes)) throw new Error('schemas/limits/file-limits.json: no maxUploadBytes')

/** Section 8.4: the largest file one upload may carry, in bytes (128 MB). */
export const MAX_UPLOAD_BYTES: number = fileLimitTable.maxUploadBytes

export function fileLimits(tier: Tier): FileTierLimits {
  return { ...fileTierTable[String(tier)]! }
}

export function classLimits(rateClass: RateClass, tier: Tier): TierLimits {
  const { rpm, tpm } = classTables[rateClass]![String(tier)]!
  return { rpm, tpm }
}

/** Requests per minute on /user/v1 for an account of this tier (section 8.1). */
export function usageRequestsPerMinute(tier: Tier): number {
  return usageTable[String(tier)]!
}
