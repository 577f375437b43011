/**
 * The shapes a catalogue model takes on the wire (Part 1 section 2.3): the compatible list item, the
 * compatible retrieve record with its extra object, and the alternate (x-api-key) item and retrieve.
 * Pure functions of the model, the caller's tier and the faults switched on.
 */
import { toIso } from '../clock.ts'
import {
  CAPABILITY_FLAGS,
  type CapabilityFlag,
  type CatalogueModel,
  type Pricing,
  type SearchContextCost,
} from './catalogue.ts'
import type { FaultSet } from '../faults.ts'
import { classLimits, TIERS, type Tier, type TierLimits } from '../limit-tables.ts'

type Flags = Partial<Record<CapabilityFlag, boolean>>

export type ModelListItem = {
  id: string
  object: 'model'
  owned_by?: string
  min_tier: Tier
  pricing: Pricing
  mode: string
  max_tokens: number
  max_input_tokens: number
  max_output_tokens: number
  extra?: ModelExtra
} & Flags

export interface ModelExtra {
  metadata: {
    min_tier: Tier
    mode: string
    max_tokens: number
    max_input_tokens: number
    max_output_tokens: number
    search_context_cost_per_query?: SearchContextCost
  } & Flags
  pricing: Pricing
  rate_limits: {
    tiers: Record<string, TierLimits>
    current: { tier: Tier } & TierLimits
  }
}

export interface ModelRetrieve {
  id: string
  object: 'model'
  created: number | string
  owned_by: string
  extra: ModelExtra
}

export interface AlternateModel {
  id: string
  created_at: string
  display_name: string
  type: 'model'
  extra?: ModelExtra
}

/** The chat model that the mode-unknown fault mislabels. */
const MISLABELLED_MODEL = 'gw-chat'

function modeOf(model: CatalogueModel, faults: FaultSet): string {
  return faults.has('mode-unknown') && model.id === MISLABELLED_MODEL ? 'text-generation' : model.mode
}

function flagsOf(model: CatalogueModel): Flags {
  const flags: Flags = {}
  for (const flag of CAPABILITY_FLAGS) {
    const value = model.supports[flag]
    if (value !== undefined) flags[flag] = value
  }
  return flags
}

/** The list item of /public/models, and the base of the Bearer list item. */
export function listItem(model: CatalogueModel, faults: FaultSet): ModelListItem {
  return {
    id: model.id,
    object: 'model',
    owned_by: model.ownedBy,
    min_tier: model.minTier,
    pricing: { ...model.pricing },
    mode: modeOf(model, faults),
    max_tokens: model.maxTokens,
    max_input_tokens: model.maxInputTokens,
    max_output_tokens: model.maxOutputTokens,
    ...flagsOf(model),
  }
}

/** The item of the Bearer GET /v1/models; the faults here leave /public/models alone. */
export function bearerListItem(model: CatalogueModel, callerTier: Tier, faults: FaultSet): ModelListItem {
  const item = listItem(model, faults)
  if (faults.has('model-list-no-owned-by')) delete item.owned_by
  if (faults.has('extra-on-list')) item.extra = modelExtra(model, callerTier, faults)
  return item
}

export function modelExtra(model: CatalogueModel, callerTier: Tier, faults: FaultSet): ModelExtra {
  const metadata: ModelExtra['metadata'] = {
    min_tier: model.minTier,
    mode: modeOf(model, faults),
    max_tokens: model.maxTokens,
    max_input_tokens: model.maxInputTokens,
    max_output_tokens: model.maxOutputTokens,
    ...flagsOf(model),
  }
  if (model.searchContextCostPerQuery) metadata.search_context_cost_per_query = { ...model.searchContextCostPerQuery }
  return { metadata, pricing: { ...model.pricing }, rate_limits: rateLimits(model, callerTier, faults) }
}

/**
 * Limits by tier for the model's class, and the caller's own. Tiers below min_tier cannot use the
 * model, so they are absent from `tiers` and the caller's `current` reads zero.
 */
function rateLimits(model: CatalogueModel, callerTier: Tier, faults: FaultSet): ModelExtra['rate_limits'] {
  const allowed = (tier: Tier): TierLimits =>
    tier >= model.minTier ? classLimits(model.rateClass, tier) : { rpm: 0, tpm: 0 }
  const tiers: Record<string, TierLimits> = {}
  for (const tier of TIERS) {
    // The disallowed-tiers fault lists such tiers with zero limits, which agree with `current` for a
    // caller at such a tier, so that the fault breaks only the min-tier rule.
    if (tier < model.minTier && !faults.has('rate-limit-disallowed-tiers')) continue
    tiers[String(tier)] = allowed(tier)
  }
  const tier = faults.has('rate-limit-current-tier-0')
    ? 0
    : faults.has('rate-limits-current-main-tier')
      ? 2
      : callerTier
  return { tiers, current: { tier, ...allowed(tier) } }
}

export function bearerRetrieve(model: CatalogueModel, callerTier: Tier, faults: FaultSet): ModelRetrieve {
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: model.ownedBy,
    extra: modelExtra(model, callerTier, faults),
  }
}

/** The convention's model object alone, as many compatible servers answer (the --bare-models option). */
export function bareModel(model: CatalogueModel): { id: string; object: 'model'; created: number; owned_by: string } {
  return { id: model.id, object: 'model', created: model.created, owned_by: model.ownedBy }
}

export function alternateItem(model: CatalogueModel): AlternateModel {
  return { id: model.id, created_at: toIso(model.created * 1000), display_name: model.displayName, type: 'model' }
}

export function alternateRetrieve(model: CatalogueModel, callerTier: Tier, faults: FaultSet): AlternateModel {
  return { ...alternateItem(model), extra: modelExtra(model, callerTier, faults) }
}
