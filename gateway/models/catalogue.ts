/**
 * The simulated model catalogue: one model of every mode of Part 1 section 2.3, plus chat models at
 * min_tier 0, 1, 2, 3 and 5 so that tier rules have something to bite on. Names are neutral; where
 * Part 2 names a model (tts-1, omni-moderation-latest, vidA-2, p1-search) that name is used.
 *
 * The order of CATALOGUE is the stable order of every model list and of the alternate list's cursors.
 */
import type { ModelRateClass, Tier } from '../limit-tables.ts'

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
  // native: Part 2 sections 4.8 and 4.9. The native provider's own models (owner "nimbus"): two generation
  // models and two newer speech models served by /v1beta, and <tts_flash_model> / <tts_pro_model> of
  // /v1/text:synthesize, priced as section 4.9 states (per million tokens; audio counts 32 tokens per second).
  {
    id: 'nv-gen-flash', displayName: 'NV Gen Flash', ownedBy: 'nimbus', mode: 'chat', minTier: 0, rateClass: 'text',
    created: JAN_2025 + 150 * DAY, pricing: { input: 0.3, cached_input: 0.075, output: 2.5 },
    maxTokens: 65_536, maxInputTokens: 1_048_576, maxOutputTokens: 65_536, reasoning: true,
    supports: chatFlags({ supports_vision: true, supports_pdf_input: true }),
  },
  {
    id: 'nv-gen-pro', displayName: 'NV Gen Pro', ownedBy: 'nimbus', mode: 'chat', minTier: 1, rateClass: 'text',
    created: JAN_2025 + 151 * DAY, pricing: { input: 1.25, cached_input: 0.31, output: 10 },
    maxTokens: 65_536, maxInputTokens: 1_048_576, maxOutputTokens: 65_536, reasoning: true,
    supports: chatFlags({ supports_vision: true, supports_pdf_input: true }),
  },
  {
    id: 'nv-speech-flash-preview', displayName: 'NV Speech Flash (preview)', ownedBy: 'nimbus', mode: 'audio_speech', minTier: 0,
    rateClass: 'media', created: JAN_2025 + 152 * DAY, pricing: { input: 0.5, cached_input: 0.5, output: 10 },
    maxTokens: 16_384, maxInputTokens: 8_192, maxOutputTokens: 16_384, supports: {},
  },
  {
    id: 'nv-speech-pro-preview', displayName: 'NV Speech Pro (preview)', ownedBy: 'nimbus', mode: 'audio_speech', minTier: 1,
    rateClass: 'media', created: JAN_2025 + 153 * DAY, pricing: { input: 1, cached_input: 1, output: 20 },
    maxTokens: 16_384, maxInputTokens: 8_192, maxOutputTokens: 16_384, supports: {},
  },
  {
    id: 'nv-tts-flash', displayName: 'NV TTS Flash', ownedBy: 'nimbus', mode: 'audio_speech', minTier: 0, rateClass: 'media',
    created: JAN_2025 + 154 * DAY, pricing: { input: 0.5, cached_input: 0.25, output: 10 },
    maxTokens: 16_384, maxInputTokens: 8_192, maxOutputTokens: 16_384, supports: {},
  },
  {
    id: 'nv-tts-pro', displayName: 'NV TTS Pro', ownedBy: 'nimbus', mode: 'audio_speech', minTier: 1, rateClass: 'media',
    created: JAN_2025 + 155 * DAY, pricing: { input: 1, cached_input: 0.5, output: 20 },
    maxTokens: 16_384, maxInputTokens: 8_192, maxOutputTokens: 16_384, supports: {},
  },
  // search and ocr: Part 2 sections 4.5 and 4.6. The other eight search tools of section 4.5 (p1-search is above),
  // priced per query (searchUsdPerQuery; the token pricing does not apply), and the latest alias of the OCR model
  // gw-ocr-1 (<ocr_model>), which ocr/routes.ts resolves to it; OCR is priced per page (0.004 USD, 0.005 annotated).
  {
    id: 'p2-search', displayName: 'p2 Search', ownedBy: 'p2', mode: 'search', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 160 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
  {
    id: 'p3-search', displayName: 'p3 Search', ownedBy: 'p3', mode: 'search', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 161 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
  {
    id: 'p4-search', displayName: 'p4 Search', ownedBy: 'p4', mode: 'search', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 162 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
  {
    id: 'p5-search', displayName: 'p5 Search', ownedBy: 'p5', mode: 'search', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 163 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
  {
    id: 'p6-search', displayName: 'p6 Search', ownedBy: 'p6', mode: 'search', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 164 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
  {
    id: 'p3-search-pro', displayName: 'p3 Search Pro', ownedBy: 'p3', mode: 'search', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 165 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
  {
    id: 'p5-search-advanced', displayName: 'p5 Search Advanced', ownedBy: 'p5', mode: 'search', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 166 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
  {
    id: 'p7-search', displayName: 'p7 Search', ownedBy: 'p7', mode: 'search', minTier: 0, rateClass: 'utility',
    created: JAN_2025 + 167 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 1_024, maxInputTokens: 1_024, maxOutputTokens: 1_024, supports: {},
  },
  {
    id: 'gw-ocr-latest', displayName: 'GW OCR (latest)', ownedBy: 'delta-docs', mode: 'ocr', minTier: 1, rateClass: 'utility',
    created: JAN_2025 + 170 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 0, maxInputTokens: 0, maxOutputTokens: 0, supports: { supports_vision: true, supports_pdf_input: true },
  },
  // audio: Part 2 sections 4.2 to 4.4. tts-1-hd beside tts-1 (priced per million characters, like tts-1), a newer
  // compatible speech model (text tokens in, audio tokens out), and the newer and diarization transcription models
  // beside the base model gw-transcribe-1 (audio tokens in at 32 per second, text tokens out); gateway/audio/models.ts.
  {
    id: 'tts-1-hd', displayName: 'TTS 1 HD', ownedBy: 'atlas-ai', mode: 'audio_speech', minTier: 0, rateClass: 'media',
    created: JAN_2025 + 101 * DAY, pricing: { input: 30, cached_input: 30, output: 0 },
    maxTokens: 4_096, maxInputTokens: 4_096, maxOutputTokens: 0, supports: {},
  },
  {
    id: 'gw-speech-1', displayName: 'GW Speech 1', ownedBy: 'atlas-ai', mode: 'audio_speech', minTier: 0, rateClass: 'media',
    created: JAN_2025 + 102 * DAY, pricing: { input: 0.6, cached_input: 0.6, output: 12 },
    maxTokens: 2_000, maxInputTokens: 4_096, maxOutputTokens: 2_000, supports: {},
  },
  {
    id: 'gw-transcribe-2', displayName: 'GW Transcribe 2', ownedBy: 'atlas-ai', mode: 'audio_transcription', minTier: 0,
    rateClass: 'media', created: JAN_2025 + 91 * DAY, pricing: { input: 2.5, cached_input: 2.5, output: 10 },
    maxTokens: 2_000, maxInputTokens: 16_000, maxOutputTokens: 2_000, supports: {},
  },
  {
    id: 'gw-transcribe-2-diarize', displayName: 'GW Transcribe 2 Diarize', ownedBy: 'atlas-ai', mode: 'audio_transcription',
    minTier: 0, rateClass: 'media', created: JAN_2025 + 92 * DAY, pricing: { input: 2.5, cached_input: 2.5, output: 10 },
    maxTokens: 2_000, maxInputTokens: 16_000, maxOutputTokens: 2_000, supports: {},
  },
  // moderation: Part 2 section 4.7. The other three named models (free, like omni-moderation-latest above; the
  // text models take no images) and the hosted guard model, whose id the reference does not give and whose
  // price is its own (per million input tokens, charged by moderation/routes.ts).
  {
    id: 'omni-moderation-2024-09-26', displayName: 'Omni Moderation (2024-09-26)', ownedBy: 'atlas-ai', mode: 'moderation',
    minTier: 0, rateClass: 'utility', created: JAN_2025 + 180 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 32_768, maxInputTokens: 32_768, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'text-moderation-latest', displayName: 'Text Moderation (latest)', ownedBy: 'atlas-ai', mode: 'moderation',
    minTier: 0, rateClass: 'utility', created: JAN_2025 + 181 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 32_768, maxInputTokens: 32_768, maxOutputTokens: 0, supports: { supports_vision: false },
  },
  {
    id: 'text-moderation-stable', displayName: 'Text Moderation (stable)', ownedBy: 'atlas-ai', mode: 'moderation',
    minTier: 0, rateClass: 'utility', created: JAN_2025 + 182 * DAY, pricing: { input: 0, cached_input: 0, output: 0 },
    maxTokens: 32_768, maxInputTokens: 32_768, maxOutputTokens: 0, supports: { supports_vision: false },
  },
  {
    id: 'gw-guard-1', displayName: 'GW Guard 1 (hosted guard model)', ownedBy: 'cobalt', mode: 'moderation',
    minTier: 0, rateClass: 'utility', created: JAN_2025 + 183 * DAY, pricing: { input: 0.2, cached_input: 0.2, output: 0.2 },
    maxTokens: 8_192, maxInputTokens: 8_192, maxOutputTokens: 0, supports: { supports_vision: false },
  },
  // videos: Part 2 section 4.1. The other seven video models (vidA-2 is above). The reference shows no video
  // prices: pricing.output is this gateway's price in US dollars per second of video, charged when a job starts.
  {
    id: 'vidA-2-pro', displayName: 'vidA 2 Pro', ownedBy: 'vidA', mode: 'video_generation', minTier: 2, rateClass: 'media',
    created: JAN_2025 + 200 * DAY, pricing: { input: 0, cached_input: 0, output: 0.3 },
    maxTokens: 1_000, maxInputTokens: 1_000, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'gen4.5', displayName: 'gen 4.5', ownedBy: 'gen', mode: 'video_generation', minTier: 2, rateClass: 'media',
    created: JAN_2025 + 201 * DAY, pricing: { input: 0, cached_input: 0, output: 0.25 },
    maxTokens: 1_000, maxInputTokens: 1_000, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'gen4_turbo', displayName: 'gen 4 Turbo', ownedBy: 'gen', mode: 'video_generation', minTier: 2, rateClass: 'media',
    created: JAN_2025 + 202 * DAY, pricing: { input: 0, cached_input: 0, output: 0.05 },
    maxTokens: 1_000, maxInputTokens: 1_000, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'vidB-3.1-generate-001', displayName: 'vidB 3.1', ownedBy: 'vidB', mode: 'video_generation', minTier: 2, rateClass: 'media',
    created: JAN_2025 + 203 * DAY, pricing: { input: 0, cached_input: 0, output: 0.4 },
    maxTokens: 1_000, maxInputTokens: 1_000, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'vidB-3.1-fast-generate-001', displayName: 'vidB 3.1 Fast', ownedBy: 'vidB', mode: 'video_generation', minTier: 2, rateClass: 'media',
    created: JAN_2025 + 204 * DAY, pricing: { input: 0, cached_input: 0, output: 0.15 },
    maxTokens: 1_000, maxInputTokens: 1_000, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'vidB-3.1-generate-preview', displayName: 'vidB 3.1 (preview)', ownedBy: 'vidB', mode: 'video_generation', minTier: 2, rateClass: 'media',
    created: JAN_2025 + 205 * DAY, pricing: { input: 0, cached_input: 0, output: 0.4 },
    maxTokens: 1_000, maxInputTokens: 1_000, maxOutputTokens: 0, supports: { supports_vision: true },
  },
  {
    id: 'vidB-3.1-fast-generate-preview', displayName: 'vidB 3.1 Fast (preview)', ownedBy: 'vidB', mode: 'video_generation', minTier: 2, rateClass: 'media',
    created: JAN_2025 + 206 * DAY, pricing: { input: 0, cached_input: 0, output: 0.15 },
    maxTokens: 1_000, maxInputTokens: 1_000, maxOutputTokens: 0, supports: { supports_vision: true },
  },
]

const BY_ID: ReadonlyMap<string, CatalogueModel> = new Map(CATALOGUE.map((model) => [model.id, model]))

/** Exact, case-sensitive lookup: model ids are opaque (section 9.2). */
export function findModel(id: string): CatalogueModel | undefined {
  return BY_ID.get(id)
}
