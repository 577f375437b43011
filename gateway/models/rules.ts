/** Model endpoint rules (Part 1 §2.3, §4.3, §7), read by routes and views; a list is built once, beyond any reshape. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { ModelsFault as OwnFault } from './faults.ts'
import type { Tier } from '../limit-tables.ts'

/** The models faults, and the one of the tiers family that bends the tier a model's extra reports. */
type ModelsFault = OwnFault | 'rate-limits-current-main-tier'

export type ModelsRules = Readonly<ReturnType<typeof modelsRules>>

export function modelsRules(faults: FaultSet) {
  const bent = bentBy<ModelsFault>(faults)
  return {
    // Section 2.3: a Bearer list item has owned_by; the fault leaves it out (/public/models keeps it).
    listOwnedBy: !bent('model-list-no-owned-by'),
    // Section 2.3: extra is on the retrieve only; the fault puts it on the Bearer list items too.
    extraOnList: bent('extra-on-list'),
    // Section 2.3: mode is one of the listed modes; the fault reports gw-chat's as text-generation.
    modeOverride: bent('mode-unknown') ? { model: 'gw-chat', mode: 'text-generation' } : undefined,
    // Section 2.3: rate_limits.tiers lists the tiers from min_tier up; the fault lists all six.
    listDisallowedTiers: bent('rate-limit-disallowed-tiers'),
    // Section 2.3: current is the caller's tier (undefined); one fault reports tier 0, the tiers one the main key's 2.
    currentTier: (bent('rate-limit-current-tier-0') ? 0 : bent('rate-limits-current-main-tier') ? 2 : undefined) as
      | Tier
      | undefined,
    // Section 2.3: an x-api-key list answers the alternate format; the fault answers the Bearer one.
    alternateFormat: !bent('alternate-format-ignored'),
    // Section 4.3: the alternate list honours after_id and limit; each fault ignores one.
    honourAfterId: !bent('alternate-after-id-ignored'),
    honourLimit: !bent('alternate-limit-ignored'),
    // Section 7: an unknown model id is 404; the fault answers 500.
    unknownModelStatus: bent('unknown-model-500') ? (500 as const) : (404 as const),
  }
}
