/** Faults of the model catalogue (Part 1 §2.3, §4.3, §7). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const MODELS_FAULTS = [
  {
    name: 'model-list-no-owned-by',
    breaks: ['P1-2.3-model-list'],
    description: 'Items of GET /v1/models (not /public/models) lack owned_by.',
  },
  {
    name: 'mode-unknown',
    breaks: ['P1-2.3-mode-values'],
    description: 'One chat model reports mode "text-generation" in the list, the public list and retrieve.',
  },
  {
    name: 'retrieve-created-iso',
    breaks: ['P1-2.3-model-retrieve'],
    description: 'The Bearer retrieve gives created as an ISO 8601 string instead of Unix seconds.',
  },
  {
    name: 'extra-on-list',
    breaks: ['P1-2.3-extra-only-on-retrieve'],
    description: 'Items of the Bearer GET /v1/models (not /public/models) carry the extra object.',
  },
  {
    name: 'rate-limit-tiers-named',
    breaks: ['P1-2.3-rate-limits-tiers'],
    description: 'extra.rate_limits.tiers is keyed "tier_0".."tier_5" instead of "0".."5".',
  },
  {
    name: 'rate-limit-disallowed-tiers',
    breaks: ['P1-2.3-rate-limits-min-tier'],
    description: 'extra.rate_limits.tiers lists all six tiers whatever min_tier (tiers below it with zero limits).',
  },
  {
    name: 'rate-limit-current-tier-0',
    breaks: ['P1-2.3-rate-limits-current'],
    description: 'extra.rate_limits.current always reports tier 0 and its limits.',
  },
  {
    name: 'allowed-tier-missing',
    breaks: ['P1-2.3-rate-limits-allowed-tiers'],
    description: 'Tier "5" is left out of extra.rate_limits.tiers.',
  },
  {
    name: 'list-retrieve-disagree',
    breaks: ['P1-2.3-list-retrieve-agree'],
    description: "Retrieve's extra.pricing.input is double the list item's pricing.input.",
  },
  {
    name: 'alternate-format-ignored',
    breaks: ['P1-2.3-alternate-list'],
    description: 'The x-api-key model list answers in the Bearer format.',
  },
  {
    name: 'alternate-retrieve-no-extra',
    breaks: ['P1-2.3-alternate-retrieve'],
    description: 'The x-api-key model retrieve has no extra object.',
  },
  {
    name: 'alternate-limit-ignored',
    breaks: ['P1-4.3-alternate-limit'],
    description: 'The alternate model list ignores limit and returns every remaining item.',
  },
  {
    name: 'alternate-after-id-ignored',
    breaks: ['P1-4.3-alternate-cursors'],
    description: 'The alternate model list ignores after_id and always pages from the start.',
  },
  {
    name: 'unknown-model-500',
    breaks: ['P1-7-unknown-model-404'],
    description: 'Retrieving an unknown model id answers 500 (compatible error body) instead of 404.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the models faults: what its rules and reshapes are typed by. */
export type ModelsFault = (typeof MODELS_FAULTS)[number]['name']
