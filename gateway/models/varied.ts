/**
 * The catalogue as a variation presents it (../variations.ts). Under `system-messages-flag` the cheapest chat model
 * declares supports_system_messages false, as some providers' models do, and chat completions refuse a system or
 * developer message to it: Part 1 §2.3 makes the flag a capability, so a caller picks a model by it.
 */
import type { VariationName } from '../variations.ts'
import { CATALOGUE, findModel, type CatalogueModel } from './catalogue.ts'

export const NO_SYSTEM_MESSAGES_MODEL = 'gw-chat-mini'

function withoutSystemMessages(model: CatalogueModel): CatalogueModel {
  return { ...model, supports: { ...model.supports, supports_system_messages: false } }
}

/** The model as the catalogue shows it under these variations. */
export function variedModel(model: CatalogueModel, variations: ReadonlySet<VariationName>): CatalogueModel {
  return variations.has('system-messages-flag') && model.id === NO_SYSTEM_MESSAGES_MODEL
    ? withoutSystemMessages(model)
    : model
}

export function variedCatalogue(variations: ReadonlySet<VariationName>): readonly CatalogueModel[] {
  return variations.size === 0 ? CATALOGUE : CATALOGUE.map((model) => variedModel(model, variations))
}

export function findVariedModel(id: string, variations: ReadonlySet<VariationName>): CatalogueModel | undefined {
  const model = findModel(id)
  return model && variedModel(model, variations)
}

/** Whether the model, as shown, refuses a system or developer message (its flag says false). */
export function refusesSystemMessages(model: CatalogueModel, variations: ReadonlySet<VariationName>): boolean {
  return variedModel(model, variations).supports.supports_system_messages === false
}
