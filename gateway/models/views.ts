/**
 * The shapes a catalogue model takes on the wire (Part 1 section 2.3): the compatible list item, the
 * compatible retrieve record with its extra object, and the alternate (x-api-key) item and retrieve.
 * Pure functions of the model, the caller's tier and the rules the faults bend (./rules.ts).
 */
import { toIso } from '../clock.ts'
import {
  CAPABILITY_FLAGS,
  type CapabilityFlag,
  type CatalogueModel,
  type Pricing,
  type SearchContextCost,
} from './catalogue.ts'
import { classLimits, TIERS, type Tier, type TierLimits } from '../limit-tables.ts'
import type { ModelsRules } from './rules.ts'

/** The rules the views read. */
type ViewRules = Pick<
  ModelsRules,
  'listOwnedBy' | 'extraOnList' | 'modeOverride' | 'listDisallowedTiers' | 'currentTier'
>

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

function modeOf(model: CatalogueModel, rules: ViewRules): string {
  return rules.modeOverride?.model === model.id ? rules.modeOverride.mode : model.mode
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
export function listItem(model: CatalogueModel, rules: ViewRules): ModelListItem {
  return {
    id: model.id,
    object: 'model',
    owned_by: model.ownedBy,
    min_tier: model.minTier,
    pricing: { ...model.pricing },
    mode: modeOf(model, rules),
    max_tokens: model.maxTokens,
    max_input_tokens: model.maxInputTokens,
    max_output_tokens: model.maxOutputTokens,
    ...flagsOf(model),
  }
}

/** The item of the Bearer GET /v1/models; the rules bent here leave /public/models alone. */
export function bearerListItem(model: CatalogueModel, callerTier: Tier, rules: ViewRules): ModelListItem {
  const item = listItem(model, rules)
  if (!rules.listOwnedBy) delete item.owned_by
  if (rules.extraOnList) item.extra = modelExtra(model, callerTier, rules)
  return item
}

export function modelExtra(model: CatalogueModel, callerTier: Tier, rules: ViewRules): ModelExtra {
  const metadata: ModelExtra['metadata'] = {
    min_tier: model.minTier,
    mode: modeOf(model, rules),
    max_tokens: model.maxTokens,
    max_input_tokens: model.maxInputTokens,
    max_output_tokens: model.maxOutputTokens,
    ...flagsOf(model),
  }
  if (model.searchContextCostPerQuery) metadata.search_context_cost_per_query = { ...model.searchContextCostPerQuery }
  return { metadata, pricing: { ...model.pricing }, rate_limits: rateLimits(model, callerTier, rules) }
}

/**
 * Limits by tier for the model's class, and the caller's own. Tiers below min_tier cannot use the
 * model, so they are absent from `tiers` and the caller's `current` reads zero.
 */
function rateLimits(model: CatalogueModel, callerTier: Tier, rules: ViewRules): ModelExtra['rate_limits'] {
  const allowed = (tier: Tier): TierLimits =>
    tier >= model.minTier ? classLimits(model.rateClass, tier) : { rpm: 0, tpm: 0 }
  const tiers: Record<string, TierLimits> = {}
  for (const tier of TIERS) {
    // The disallowed-tiers fault lists such tiers with zero limits, which agree with `current` for a
    // caller at such a tier, so that the fault breaks only the min-tier rule.
    if (tier < model.minTier && !rules.listDisallowedTiers) continue
    tiers[String(tier)] = allowed(tier)
  }
  const tier = rules.currentTier ?? callerTier
  return { tiers, current: { tier, ...allowed(tier) } }
}

export function bearerRetrieve(model: CatalogueModel, callerTier: Tier, rules: ViewRules): ModelRetrieve {
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: model.ownedBy,
    extra: modelExtra(model, callerTier, rules),
  }
}

/** The convention's model object alone, as many compatible servers answer (the --bare-models option). */
export function bareModel(model: CatalogueModel): { id: string; object: 'model'; created: number; owned_by: string } {
  return { id: model.id, object: 'model', created: model.created, owned_by: model.ownedBy }
}

export function alternateItem(model: CatalogueModel): AlternateModel {
  return { id: model.id, created_at: toIso(model.created * 1000), display_name: model.displayName, type: 'model' }
}

export function alternateRetrieve(model: CatalogueModel, callerTier: Tier, rules: ViewRules): AlternateModel {
  return { ...alternateItem(model), extra: modelExtra(model, callerTier, rules) }
}
