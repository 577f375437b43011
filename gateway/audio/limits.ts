/**
 * The audio family's limits: how one is compared, and those its rules read beside the request readers (speech.ts,
 * transcription.ts), kept here so the rules and the readers both import them and neither imports the other's module.
 */
import { defaultOf, limitOf, rangeOf, valuesOf } from '../../common/request-schemas.ts'
import type { TranscriptionKind } from './models.ts'

/** A limit of the audio family (characters, bytes, seconds) and how it is compared. */
export interface Limit {
  readonly max: number
  /** The limit itself is refused too (>= instead of >): how the faults of an off-by-one bend it. */
  readonly exclusive: boolean
}

export function exceeds(value: number, limit: Limit): boolean {
  return limit.exclusive ? value >= limit.max : value > limit.max
}

const SPEECH = 'POST /v1/audio/speech'
/** The formats CONTENT_TYPES answers; the ones taken are those the request schema lists. */
export type SpeechFormat = 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm'
export const SPEECH_FORMATS: readonly SpeechFormat[] = valuesOf<SpeechFormat>(SPEECH, 'body', 'response_format')

/** Section 4.2: speed's range and default, as the request schema states them. */
export const SPEED = {
  ...rangeOf(SPEECH, 'body', 'speed'),
  default: defaultOf<number>(SPEECH, 'body', 'speed'),
} as const

export const FORMATS_BY_KIND: Readonly<Record<TranscriptionKind, readonly string[]>> = {
  base: ['json', 'text', 'srt', 'verbose_json', 'vtt'],
  newer: ['json', 'text'],
  diarize: ['json', 'text', 'diarized_json'],
}
const TRANSCRIPTION = 'POST /v1/audio/transcriptions'
/** Section 4.3: every listed response_format, as the request schema lists them. */
export const ALL_FORMATS: readonly string[] = valuesOf(TRANSCRIPTION, 'body', 'response_format')

export const DIARIZE_CHUNKING_SECONDS = 30
// The clip lengths are not a request field: they are stated here.
export const KNOWN_SPEAKERS = {
  max: limitOf(TRANSCRIPTION, 'body', 'known_speaker_names[]', 'maxItems'),
  minSeconds: 2,
  maxSeconds: 10,
} as const
export const TEMPERATURE = rangeOf(TRANSCRIPTION, 'body', 'temperature')

export type Endpoint = 'transcriptions' | 'translations'
