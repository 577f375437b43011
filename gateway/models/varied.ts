/**
 * The catalogue as a variation presents it (../variations.ts).
 *
 * - `system-messages-flag`: the cheapest chat model declares supports_system_messages false, as some providers'
 *   models do, and chat completions refuse a system or developer message to it: Part 1 §2.3 makes the flag a
 *   capability, so a caller picks a model by it.
 * - `tool-choice-flags`: the same model declares supports_tool_choice and supports_parallel_function_calling false,
 *   and POST /v1/responses refuses tool_choice and parallel_tool_calls to it (§2.3: capability flags).
 * - `real-names`: the models the reference writes with a neutral word are listed and retrieved under their makers'
 *   names (REAL_NAMES), as the routes that serve them answer to those names, so that catalogue and routes agree.
 * - `disallowed-current-null`: a model the caller's tier may not use shows extra.rate_limits.current with rpm and tpm
 *   null: §2.3 gives current as the caller's tier's values, and such a tier has none (its entry is absent).
 */
import { REAL_NAMES, type VariationName } from '../variations.ts'
import type { Tier } from '../limit-tables.ts'
import { CATALOGUE, findModel, type CatalogueModel } from './catalogue.ts'
import type { ModelExtra } from './views.ts'

export const NO_SYSTEM_MESSAGES_MODEL = 'gw-chat-mini'

/** The catalogue ids that stand for the placeholders Part 2 writes in angle brackets (their routes name them so). */
const PLACEHOLDER_IDS: Readonly<Record<string, string>> = {
  '<ocr_model>': 'gw-ocr-1',
  '<ocr_model>-latest': 'gw-ocr-latest',
  '<tts_flash_model>': 'nv-tts-flash',
  '<tts_pro_model>': 'nv-tts-pro',
}

/** Catalogue id -> maker's name, for the ids REAL_NAMES renames that the catalogue lists. */
const MAKER_NAME_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(REAL_NAMES).flatMap(([reference, maker]) => {
    const id = PLACEHOLDER_IDS[reference] ?? reference
    return findModel(id) ? [[id, maker] as const] : []
  }),
)
const ID_OF_MAKER_NAME: ReadonlyMap<string, string> = new Map([...MAKER_NAME_OF].map(([id, maker]) => [maker, id]))

function withoutSystemMessages(model: CatalogueModel): CatalogueModel {
  return { ...model, supports: { ...model.supports, supports_system_messages: false } }
}

function withoutToolChoice(model: CatalogueModel): CatalogueModel {
  return {
    ...model,
    supports: { ...model.supports, supports_tool_choice: false, supports_parallel_function_calling: false },
  }
}

/** The model as the catalogue shows it under these variations. */
export function variedModel(model: CatalogueModel, variations: ReadonlySet<VariationName>): CatalogueModel {
  let shown = model
  if (variations.has('system-messages-flag') && model.id === NO_SYSTEM_MESSAGES_MODEL)
    shown = withoutSystemMessages(shown)
  if (variations.has('tool-choice-flags') && model.id === NO_SYSTEM_MESSAGES_MODEL) shown = withoutToolChoice(shown)
  const maker = variations.has('real-names') ? MAKER_NAME_OF.get(model.id) : undefined
  if (maker !== undefined) shown = { ...shown, id: maker }
  return shown
}

export function variedCatalogue(variations: ReadonlySet<VariationName>): readonly CatalogueModel[] {
  return variations.size === 0 ? CATALOGUE : CATALOGUE.map((model) => variedModel(model, variations))
}

/** A model by the id the catalogue shows: under `real-names` the maker's name, and no longer the neutral one. */
export function findVariedModel(id: string, variations: ReadonlySet<VariationName>): CatalogueModel | undefined {
  const realNames = variations.has('real-names')
  if (realNames && MAKER_NAME_OF.has(id)) return undefined
  const model = findModel(realNames ? (ID_OF_MAKER_NAME.get(id) ?? id) : id)
  return model && variedModel(model, variations)
}

/** Whether the model, as shown, refuses a system or developer message (its flag says false). */
export function refusesSystemMessages(model: CatalogueModel, variations: ReadonlySet<VariationName>): boolean {
  return variedModel(model, variations).supports.supports_system_messages === false
}

/** A retrieved model as shown under these variations. */
export function variedRetrieve(
  body: { extra?: ModelExtra },
  model: CatalogueModel,
  callerTier: Tier,
  variations: ReadonlySet<VariationName>,
): object {
  const extra = body.extra
  if (extra === undefined) return body
  const limits = extra.rate_limits
  const nulled = variations.has('disallowed-current-null') && callerTier < model.minTier
  const stringTier = variations.has('current-tier-string')
  if (!nulled && !stringTier) return body
  const current = {
    ...limits.current,
    ...(stringTier ? { tier: String(limits.current.tier) } : {}),
    ...(nulled ? { rpm: null, tpm: null } : {}),
  }
  return { ...body, extra: { ...extra, rate_limits: { ...limits, current } } }
}
