/**
 * The simulated model catalogue: one model of every mode of Part 1 section 2.3, plus chat models at
 * min_tier 0, 1, 2, 3 and 5 so that tier rules have something to bite on. Names are neutral; where
 * Part 2 names a model (tts-1, omni-moderation-latest, vidA-2, p1-search) that name is used.
 *
 * The models are data (catalogue.json), checked here on load so that a bad edit fails at start-up with the entry
 * and field to fix. The order of CATALOGUE is the stable order of every model list and of the alternate list's cursors.
 */
import { SetupError } from '../errors.ts'
import { TIERS, type ModelRateClass, type Tier } from '../limit-tables.ts'
import models from './catalogue.json' with { type: 'json' }

export const MODES = [
  'chat',
  'embedding',
  'completion',
  'image_generation',
  'video_generation',
  'audio_transcription',
  'audio_speech',
  'ocr',
  'moderation',
  'rerank',
  'search',
] as const
export type Mode = (typeof MODES)[number]

export const CAPABILITY_FLAGS = [
  'supports_system_messages',
  'supports_function_calling',
  'supports_parallel_function_calling',
  'supports_vision',
  'supports_pdf_input',
  'supports_prompt_caching',
  'supports_tool_choice',
  'supports_response_schema',
  'supports_web_search',
] as const
export type CapabilityFlag = (typeof CAPABILITY_FLAGS)[number]

export interface Pricing {
  readonly input: number
  readonly cached_input: number
  readonly output: number
}

export interface SearchContextCost {
  readonly search_context_size_high: number
  readonly search_context_size_low: number
  readonly search_context_size_medium: number
}

export interface CatalogueModel {
  readonly id: string
  readonly displayName: string
  readonly ownedBy: string
  readonly mode: Mode
  readonly minTier: Tier
  /** Row of schemas/limits/model-rate-limits.json that limits this model. */
  readonly rateClass: ModelRateClass
  /** Unix seconds. */
  readonly created: number
  /** The reference does not give the unit; these read as US dollars per million tokens. */
  readonly pricing: Pricing
  readonly maxTokens: number
  readonly maxInputTokens: number
  readonly maxOutputTokens: number
  /** Only the flags relevant to the model (section 2.3: "a flag is present only when relevant"). */
  readonly supports: Readonly<Partial<Record<CapabilityFlag, boolean>>>
  /** Search-capable chat models only. */
  readonly searchContextCostPerQuery?: SearchContextCost
  /** Bills hidden reasoning tokens (section 2.5). */
  readonly reasoning?: boolean
  /** Takes and answers audio on chat completions (section 4.7's audio-capable fields); section 2.3 shows no flag. */
  readonly audio?: boolean
}

const RATE_CLASSES: readonly ModelRateClass[] = ['text', 'media', 'utility']
const NUMBERS = ['created', 'maxTokens', 'maxInputTokens', 'maxOutputTokens'] as const
const PRICES = ['input', 'cached_input', 'output'] as const

/** Every entry of catalogue.json as CatalogueModel promises it, or a SetupError naming the entry and the field. */
export function checkCatalogue(entries: readonly Record<string, unknown>[]): readonly CatalogueModel[] {
  return entries.map((entry, i) => {
    const wrong = (field: string, what: string): never => {
      throw new SetupError('CATALOGUE_INVALID', `gateway/models/catalogue.json /${i}/${field}: ${what}`)
    }
    if (typeof entry.id !== 'string' || entry.id === '') wrong('id', 'a non-empty string')
    for (const field of ['displayName', 'ownedBy']) if (typeof entry[field] !== 'string') wrong(field, 'a string')
    if (!MODES.includes(entry.mode as Mode)) wrong('mode', `one of ${MODES.join(', ')}`)
    if (!TIERS.includes(entry.minTier as Tier)) wrong('minTier', 'a tier from 0 to 5')
    if (!RATE_CLASSES.includes(entry.rateClass as ModelRateClass)) wrong('rateClass', RATE_CLASSES.join(', '))
    for (const field of NUMBERS) if (!Number.isInteger(entry[field])) wrong(field, 'an integer')
    const pricing = entry.pricing as Record<string, unknown> | undefined
    for (const field of PRICES)
      if (typeof pricing?.[field] !== 'number') wrong(`pricing/${field}`, 'a number (US dollars per million tokens)')
    const supports = entry.supports as Record<string, unknown> | undefined
    if (typeof supports !== 'object' || supports === null) wrong('supports', 'an object of capability flags')
    for (const [flag, value] of Object.entries(supports as object))
      if (!CAPABILITY_FLAGS.includes(flag as CapabilityFlag) || typeof value !== 'boolean')
        wrong(`supports/${flag}`, `a boolean flag named in ${CAPABILITY_FLAGS.join(', ')}`)
    return entry as unknown as CatalogueModel
  })
}

export const CATALOGUE: readonly CatalogueModel[] = checkCatalogue(models)

const BY_ID: ReadonlyMap<string, CatalogueModel> = new Map(CATALOGUE.map((model) => [model.id, model]))

/** Exact, case-sensitive lookup: model ids are opaque (section 9.2). */
export function findModel(id: string): CatalogueModel | undefined {
  return BY_ID.get(id)
}
