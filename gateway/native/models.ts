/**
 * Which models each native route serves (Part 2 sections 4.2, 4.8, 4.9). The native interface serves only the
 * provider's own models; the newer speech models go to /v1beta and never to the legacy text:synthesize, which
 * takes only <tts_flash_model> and <tts_pro_model> (here nv-tts-flash and nv-tts-pro).
 */
import { findModel, type CatalogueModel } from '../models/catalogue.ts'

export const NATIVE_GENERATION_MODELS: ReadonlySet<string> = new Set(['nv-gen-flash', 'nv-gen-pro'])
export const NATIVE_SPEECH_MODELS: ReadonlySet<string> = new Set(['nv-speech-flash-preview', 'nv-speech-pro-preview'])
export const SYNTHESIZE_MODELS: ReadonlySet<string> = new Set(['nv-tts-flash', 'nv-tts-pro'])

/** Section 4.9: audio output counts 32 tokens per second. */
export const AUDIO_TOKENS_PER_SECOND = 32

export function nativeModel(id: string): CatalogueModel | undefined {
  return NATIVE_GENERATION_MODELS.has(id) || NATIVE_SPEECH_MODELS.has(id) ? findModel(id) : undefined
}

export function isSpeechModel(model: CatalogueModel): boolean {
  return NATIVE_SPEECH_MODELS.has(model.id)
}

/** US dollars for a call: pricing is per million tokens (section 4.9's unit, read the same for every model). */
export function costUsd(model: CatalogueModel, inputTokens: number, outputTokens: number): number {
  return (inputTokens * model.pricing.input + outputTokens * model.pricing.output) / 1_000_000
}
