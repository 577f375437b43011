/**
 * What each audio model of the catalogue can do (Part 2 §4.2, §4.3, §4.4), and how its calls are priced.
 * The catalogue gives every model the same three prices (input, cached_input, output, per million); the unit
 * they count is this gateway's reading, since the reference states prices for search, OCR and synthesis only:
 *
 * - tts-1 and tts-1-hd: `input` per million characters of input (the compatible convention's pricing);
 * - the newer speech models: `input` per million text tokens, `output` per million audio tokens;
 * - transcription and translation: `input` per million audio tokens, `output` per million text tokens.
 *
 * Audio counts 32 tokens per second, the rate Part 2 §4.9 states for audio; the reference gives none for these
 * endpoints, so transcription is in effect charged by the second of audio.
 */
import { findModel, type CatalogueModel } from '../models/catalogue.ts'
import { limitOf } from '../../common/request-schemas.ts'

export const AUDIO_TOKENS_PER_SECOND = 32

export interface SpeechModel {
  readonly id: string
  readonly pricedBy: 'characters' | 'tokens'
  /** §4.2: stream_format sse is unsupported by tts-1 and tts-1-hd. */
  readonly sse: boolean
  /** §4.2: 4096 characters on the compatible models; "other models may differ". */
  readonly maxInputChars: number
  /** §4.2: an object {name, languageCode} selects a prebuilt voice on one model family. */
  readonly voiceObject: boolean
  /** §4.2: one preview model requires pcm. Undefined: every format. */
  readonly onlyFormat?: 'pcm'
}

/** Section 4.2: up to 4096 characters on the compatible models, as the request schema states it for tts-1. */
const COMPATIBLE_INPUT = limitOf('POST /v1/audio/speech', 'body', 'input', 'maxLength', { model: 'tts-1' })
/**
 * The newer speech models of the native family (nv-speech-*, in the catalogue with the native interface of §4.8,
 * which §4.2 says this endpoint also serves) take the voice object and longer input ("other models may differ"):
 * 8192 characters, their max_input_tokens read as characters.
 */
const NATIVE_FAMILY_INPUT = 8192

export const SPEECH_MODELS: Readonly<Record<string, SpeechModel>> = {
  'tts-1': {
    id: 'tts-1',
    pricedBy: 'characters',
    sse: false,
    maxInputChars: COMPATIBLE_INPUT,
    voiceObject: false,
  },
  'tts-1-hd': {
    id: 'tts-1-hd',
    pricedBy: 'characters',
    sse: false,
    maxInputChars: COMPATIBLE_INPUT,
    voiceObject: false,
  },
  'gw-speech-1': {
    id: 'gw-speech-1',
    pricedBy: 'tokens',
    sse: true,
    maxInputChars: COMPATIBLE_INPUT,
    voiceObject: false,
  },
  'nv-speech-pro-preview': {
    id: 'nv-speech-pro-preview',
    pricedBy: 'tokens',
    sse: true,
    maxInputChars: NATIVE_FAMILY_INPUT,
    voiceObject: true,
  },
  // The preview model that requires pcm: its native answer is raw PCM (audio/L16, §4.8) and it is not re-encoded.
  'nv-speech-flash-preview': {
    id: 'nv-speech-flash-preview',
    pricedBy: 'tokens',
    sse: true,
    maxInputChars: NATIVE_FAMILY_INPUT,
    voiceObject: true,
    onlyFormat: 'pcm',
  },
}

export type TranscriptionKind = 'base' | 'newer' | 'diarize'

export interface TranscriptionModel {
  readonly id: string
  readonly kind: TranscriptionKind
  /** §4.4: translation takes the base transcription model unless another is enabled (none is here). */
  readonly translation: boolean
}

/** §4.4: the base transcription model, the one translation takes. */
export const BASE_TRANSCRIPTION_MODEL = 'gw-transcribe-1'

export const TRANSCRIPTION_MODELS: Readonly<Record<string, TranscriptionModel>> = {
  'gw-transcribe-1': { id: 'gw-transcribe-1', kind: 'base', translation: true },
  'gw-transcribe-2': { id: 'gw-transcribe-2', kind: 'newer', translation: false },
  'gw-transcribe-2-diarize': { id: 'gw-transcribe-2-diarize', kind: 'diarize', translation: false },
}

/** A speech model this endpoint serves: in the table above and in the catalogue. */
export function speechModel(id: string): SpeechModel | undefined {
  return findModel(id) ? SPEECH_MODELS[id] : undefined
}

export function transcriptionModel(id: string): TranscriptionModel | undefined {
  return findModel(id) ? TRANSCRIPTION_MODELS[id] : undefined
}

function pricing(id: string): CatalogueModel['pricing'] {
  return findModel(id)?.pricing ?? { input: 0, cached_input: 0, output: 0 }
}

export function audioTokens(seconds: number): number {
  return Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND)
}

/** USD of a speech call: characters or text tokens in, audio tokens out. */
export function speechCostUsd(model: SpeechModel, chars: number, textTokens: number, seconds: number): number {
  const price = pricing(model.id)
  if (model.pricedBy === 'characters') return (chars * price.input) / 1e6
  return (textTokens * price.input + audioTokens(seconds) * price.output) / 1e6
}

/** USD of a transcription or translation: audio tokens in, text tokens out. */
export function transcriptionCostUsd(modelId: string, seconds: number, outputTokens: number): number {
  const price = pricing(modelId)
  return (audioTokens(seconds) * price.input + outputTokens * price.output) / 1e6
}
