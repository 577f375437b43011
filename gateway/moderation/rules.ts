/** Moderation rules (Part 2 §4.7, §7), read by the route. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { ModerationFault } from './faults.ts'

export type ModerationRules = Readonly<ReturnType<typeof moderationRules>>

export function moderationRules(faults: FaultSet) {
  const bent = bentBy<ModerationFault>(faults)
  return {
    // Section 7: a call with no valid key is 401; the fault serves it as the main account.
    requireKey: !bent('moderation-key-optional'),
    // Section 7: a request without input is 400; the fault answers 200 with no results.
    requireInput: !bent('moderation-missing-input-served'),
    // Section 4.7: input is a string, an array or content items; the fault moderates any other value as its JSON text.
    checkInputType: !bent('moderation-input-type-unchecked'),
    // Section 4.7: content items may all be text items; the fault refuses an array without an image item.
    takesTextItems: !bent('moderation-text-items-refused'),
    // Section 4.7: model is optional; the fault refuses a request without one.
    modelOptional: !bent('moderation-model-required'),
    // An unknown model is 404; the fault serves omni-moderation-latest instead.
    refuseUnknownModel: !bent('moderation-unknown-model-defaulted'),
    // Section 7: the model's 429 has the compatible error body; the fault gives the /user/v1 one.
    compatible429: !bent('moderation-429-usage-body'),
    // Section 4.7: the four named models are served; the fault refuses text-moderation-stable.
    refusedNamedModels: bent('moderation-stable-refused') ? ['text-moderation-stable'] : [],
    // Section 4.7: the hosted guard model is served; the fault refuses it.
    servesGuardModel: !bent('moderation-guard-refused'),
    // Section 4.7: the omni models take images; one fault refuses them on both, the other on the dated one.
    omniRefusingImages: bent('moderation-image-refused')
      ? ['omni-moderation-latest', 'omni-moderation-2024-09-26']
      : bent('moderation-image-refused-dated')
        ? ['omni-moderation-2024-09-26']
        : [],
    // Section 4.7: the four named models are free; the fault charges each call to one of them this much (USD).
    namedModelUsdPerCall: bent('moderation-named-model-charged') ? 0.001 : 0,
    // Section 4.7: the text models refuse images; the fault scores them.
    textModelsRefuseImages: !bent('moderation-image-any-model'),
  }
}
