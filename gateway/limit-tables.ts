/**
 * The limit tables of schemas/limits, read as data so that the gateway and the suites share one
 * source: the usage-endpoint limits of Part 1 section 8.1, the per-class model limits that the
 * gateway publishes through extra.rate_limits (section 8.3) and the file limits of section 8.4.
 */
import fileLimitTable from '../schemas/limits/file-limits.json' with { type: 'json' }
import modelRateLimits from '../schemas/limits/model-rate-limits.json' with { type: 'json' }
import usageRateLimits from '../schemas/limits/usage-rate-limits.json' with { type: 'json' }
import { SetupError } from './errors.ts'

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

/** Everything section 8.3 names; a class has the day and image limits only where the table gives them. */
export interface ModelLimits extends TierLimits {
  /** Requests per day. */
  readonly rpd?: number
  /** Tokens per day. */
  readonly tpd?: number
  /** Images per minute. */
  readonly ipm?: number
}

const classTables: Readonly<Record<string, Readonly<Record<string, ModelLimits>>>> = modelRateLimits.classes
const projectTokenTable: Readonly<Record<string, number>> = modelRateLimits.projectTokensPerMinute

/** Routes on which the project-scoped token bucket of section 4.1 applies. */
export const PROJECT_TOKEN_ROUTES: ReadonlySet<string> = new Set(modelRateLimits.projectTokenRoutes)

/** Model id -> the pool its limits are counted in (sibling aliases share one; section 8.3). */
const POOL_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(modelRateLimits.pools as Record<string, string[]>).flatMap(([pool, ids]) =>
    ids.map((id) => [id, pool] as const),
  ),
)

export function poolOf(modelId: string): string {
  return POOL_OF.get(modelId) ?? modelId
}

/** Model ids named in pools, for the start-up check against the catalogue. */
export function pooledModelIds(): string[] {
  return [...POOL_OF.keys()]
}
const usageTable: Readonly<Record<string, number>> = usageRateLimits.requestsPerMinute

// Fail at start-up, not on the first request of some tier, if a table lost an entry.
for (const rateClass of ['account', 'text', 'media', 'utility'] satisfies RateClass[]) {
  for (const tier of TIERS) {
    const limits = classTables[rateClass]?.[String(tier)]
    if (!limits || !Number.isInteger(limits.rpm) || !Number.isInteger(limits.tpm)) {
      throw new SetupError(
        'LIMIT_TABLE_INVALID',
        `schemas/limits/model-rate-limits.json: class ${rateClass} has no rpm/tpm for tier ${tier}`,
      )
    }
  }
}
for (const tier of TIERS) {
  if (!Number.isInteger(projectTokenTable[String(tier)])) {
    throw new SetupError(
      'LIMIT_TABLE_INVALID',
      `schemas/limits/model-rate-limits.json: no projectTokensPerMinute for tier ${tier}`,
    )
  }
  if (!Number.isInteger(usageTable[String(tier)])) {
    throw new SetupError(
      'LIMIT_TABLE_INVALID',
      `schemas/limits/usage-rate-limits.json: no requestsPerMinute for tier ${tier}`,
    )
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
    throw new SetupError(
      'LIMIT_TABLE_INVALID',
      `schemas/limits/file-limits.json: incomplete file limits for tier ${tier}`,
    )
  }
}
if (!Number.isSafeInteger(fileLimitTable.maxUploadBytes))
  throw new SetupError('LIMIT_TABLE_INVALID', 'schemas/limits/file-limits.json: no maxUploadBytes')

/** Section 8.4: the largest file one upload may carry, in bytes (128 MB). */
export const MAX_UPLOAD_BYTES: number = fileLimitTable.maxUploadBytes

/**
 * The most images one image request may ask for (`n`): the gateway's own bound (the reference gives none). The
 * route refuses more, and the images-per-minute bucket never counts more for one request.
 */
export const MAX_IMAGES = 4

export function fileLimits(tier: Tier): FileTierLimits {
  return { ...fileTierTable[String(tier)]! }
}

export function classLimits(rateClass: RateClass, tier: Tier): TierLimits {
  const { rpm, tpm } = classTables[rateClass]![String(tier)]!
  return { rpm, tpm }
}

/** All the limits of a class at a tier: rpm and tpm, plus rpd, tpd and ipm where the class has them. */
export function modelLimits(rateClass: ModelRateClass, tier: Tier): ModelLimits {
  return { ...classTables[rateClass]![String(tier)]! }
}

/** Tokens per minute of the project-scoped bucket (section 4.1) at this tier. */
export function projectTokensPerMinute(tier: Tier): number {
  return projectTokenTable[String(tier)]!
}

/** Requests per minute on /user/v1 for an account of this tier (section 8.1). */
export function usageRequestsPerMinute(tier: Tier): number {
  return usageTable[String(tier)]!
}
