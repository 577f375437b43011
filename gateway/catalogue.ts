/**
 * The simulated model catalogue: one model of every mode of Part 1 section 2.3, plus chat models at
 * min_tier 0, 1, 2, 3 and 5 so that tier rules have something to bite on. Names are neutral; where
 * Part 2 names a model (tts-1, omni-moderation-latest, vidA-2, p1-search) that name is used.
 *
 * The order of CATALOGUE is the stable order of every model list and of the alternate list's cursors.
 */
import type { ModelRateClass, Tier } from './limit-tables.ts'

export const MODES = [
  'chat', 'embedding', 'completion', 'image_generation', 'video_generation', 'audio_transcription',
  'audio_speech', 'ocr', 'moderation', 'rerank', 'search',
] as const
export type Mode = (typeof MODES)[number]

export const CAPABILITY_FLAGS = [
  'supports_system_messages', 'supports_function_calling', 'supports_parallel_function_calling',
  'supports_vision', 'supports_pdf_input', 'supports_prompt_caching', 'supports_tool_choice',
  'supports_response_schema', 'supports_web_search',
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
}

function chatFlags(overrides: Partial<Record<CapabilityFlag, boolean>>): Partial<Record<CapabilityFlag, boolean>> {
  return {
    supports_system_messages: true,
    supports_function_calling: true,
    supports_parallel_function_calling: true,
    supports_vision: false,
    supports_pdf_input: false,
    supports_prompt_caching: true,
    supports_tool_choice: true,
    supports_response_schema: true,
    supports_web_search: false,
    ...overrides,
  }
}

const JAN_2025 = 1_735_689_600
const DAY = 86_400

export const CATALOGUE: readonly CatalogueModel[] = [
  {
    id: 'gw-chat-mini', displayName: 'GW Chat Mini', ownedBy: 'atlas-ai', mode: 'chat', minTier: 0, rateClass: 'text',
    created: JAN_2025, pricing: { input: 0.15, cached_input: 0.075, output: 0.6 },
    maxTokens: 16_384, maxInputTokens: 128_000, maxOutputTokens: 16_384, supports: chatFlags({}),
  },
  {
    id: 'gw-chat', displayName: 'GW Chat', ownedBy: 'atlas-ai', mode: 'chat', minTier: 1, rateClass: 'text',
    created: JAN_2025 + 10 * DAY, pricing: { input: 2.5, cached_input: 1.25, output: 10 },
    maxTokens: 16_384, maxInputTokens: 128_000, maxOutputTokens: 16_384,
    supports: chatFlags({ supports_vision: true, supports_pdf_input: true }),
  },
  {
    id: 'gw-reasoner', displayName: 'GW Reasoner', ownedBy: 'borealis', mode: 'chat', minTier: 2, rateClass: 'text',
    created: JAN_2025 + 20 * DAY, pricing: { input: 1.1, cached_input: 0.55, output: 4.4 },
    maxTokens: 100_000, maxInputTokens: 200_000, maxOutputTokens: 100_000, reasoning: true,
    supports: chatFlags({ supports_parallel_function_calling: false }),
  },
  {
    id: 'gw-chat-pro', displayName: 'GW Chat Pro', ownedBy: 'atlas-ai', mode: 'chat', minTier: 3, rateClass: 'text',
    created: JAN_2025 + 30 * DAY, pricing: { input: 5, cached_input: 2.5, output: 20 },
    maxTokens: 32_768, maxInputTokens: 400_000, maxOutputTokens: 32_768,
    supports: chatFlags({ supports_vision: true, supports_pdf_input: true, supports_web_search: true }),
    searchContextCostPerQuery: { search_context_size_high: 0.05, search_context_size_low: 0.03, search_context_size_medium: 0.035 },
  },
  {
    id: 'gw-chat-ultra', displayName: 'GW Chat Ultra', ownedBy: 'borealis', mode: 'chat', minTier: 5, rateClass: 'text',
    created: JAN_2025 + 40 * DAY, pricing: { input: 15, cached_input: 7.5, output: 60 },
    maxTokens: 65_536, maxInputTokens: 1_000_000, maxOutputTokens: 65_536, reasoning: true,
    supports: chatFlags({ supports_vision: true, supports_pdf_input: true }),
  },
  {
    id: 'gw-complete-1', displayName: 'GW Complete 1', ownedBy: 'atlas-ai', mode: 'completion', minTier: 1, rateClass: 'text',
    created: JAN_2025 + 50 * DAY, pricing: { input: 1.5, cached_input: 1.5, output: 2 },
    maxTokens: 4_096, maxInputTokens: 16_384, maxOutputTokens: 4_096, supports: {},
  },
  {
    id: 'gw-embed-1', displayName: 'GW Embed 1', ownedBy: 'atlas-ai', mode: 'embedding', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 60 * DAY, pricing: { input: 0.02, cached_input: 0.02, output: 0 },
    maxTokens: 8_191, maxInputTokens: 8_191, maxOutputTokens: 0, supports: {},
  },
  {
    id: 'gw-image-1', displayName: 'GW Image 1', ownedBy: 'cobalt', mode: 'image_generation', minTier: 1, rateClass: 'media',
    created: JAN_2025 + 70 * DAY, pricing: { input: 5, cached_input: 1.25, output: 40 },
    maxTokens: 4_096, maxInputTokens: 32_000, maxOutputTokens: 4_096, supports: { supports_vision: true },
  },
  {
    id: 'vidA-2', displayName: 'vidA 2', ownedBy: 'vidA', mode: 'video_generation', minTier: 2, rateClass: 'media',
    created: JAN_2025 + 80 * DAY, pricing: { input: 0, cached_input: 0, output: 0.1 },
    maxTokens: 1_000, maxInputTokens: 1_000, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'gw-transcribe-1', displayName: 'GW Transcribe 1', ownedBy: 'atlas-ai', mode: 'audio_transcription', minTier: 0,
    rateClass: 'media', created: JAN_2025 + 90 * DAY, pricing: { input: 2.5, cached_input: 2.5, output: 10 },
    maxTokens: 2_000, maxInputTokens: 16_000, maxOutputTokens: 2_000, supports: {},
  },
  {
    id: 'tts-1', displayName: 'TTS 1', ownedBy: 'atlas-ai', mode: 'audio_speech', minTier: 0, rateClass: 'media',
    created: JAN_2025 + 100 * DAY, pricing: { input: 15, cached_input: 15, output: 0 },
    maxTokens: 4_096, maxInputTokens: 4_096, maxOutputTokens: 0, supports: {},
  },
  {
    id: 'gw-ocr-1', displayName: 'GW OCR 1', ownedBy: 'delta-docs', mode: 'ocr', minTier: 1, rateClass: 'utility',
    created: JAN_2025 + 110 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 0, maxInputTokens: 0, maxOutputTokens: 0, supports: { supports_vision: true, supports_pdf_input: true },
  },
  {
    id: 'omni-moderation-latest', displayName: 'Omni Moderation (latest)', ownedBy: 'atlas-ai', mode: 'moderation',
    minTier: 0, rateClass: 'utility', created: JAN_2025 + 120 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 32_768, maxInputTokens: 32_768, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'gw-rerank-1', displayName: 'GW Rerank 1', ownedBy: 'cobalt', mode: 'rerank', minTier: 1, rateClass: 'utility',
    created: JAN_2025 + 130 * DAY, pricing: { input: 0.05, cached_input: 0.05, output: 0 },
    maxTokens: 4_096, maxInputTokens: 4_096, maxOutputTokens: 0, supports: {},
  },
  {
    id: 'p1-search', displayName: 'p1 Search', ownedBy: 'p1', mode: 'search', minTier: 0, rateClass: 'utility',
    // Search is priced per query (Part 2 section 4.5), not per token.
    created: JAN_2025 + 140 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
]

const BY_ID: ReadonlyMap<string, CatalogueModel> = new Map(CATALOGUE.map((model) => [model.id, model]))

/** Exact, case-sensitive lookup: model ids are opaque (section 9.2). */
export function findModel(id: string): CatalogueModel | undefined {
  return BY_ID.get(id)
}
