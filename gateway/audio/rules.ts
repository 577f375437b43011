/** Audio rules (Part 2 §4.2-§4.4, §5.1, §8), read by speech.ts, transcription.ts and routes.ts. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { AudioFault } from './faults.ts'
import {
  DIARIZE_CHUNKING_SECONDS,
  type Endpoint,
  FORMATS_BY_KIND,
  KNOWN_SPEAKERS,
  type Limit,
  SPEED,
  type SpeechFormat,
  TEMPERATURE,
} from './limits.ts'
import { BASE_TRANSCRIPTION_MODEL, type TranscriptionKind } from './models.ts'

/** The rules of one upload endpoint, transcriptions or translations. */
export interface UploadRules {
  /** 25 MB is allowed (transcription-size-exclusive, translation-size-exclusive refuse it). */
  readonly sizeExclusive: boolean
  /** The 25 MB limit is enforced (transcription-size-unchecked, translation-size-unchecked lift it). */
  readonly checkSize: boolean
  /** Only audio files are taken (transcription-any-file, translation-any-file take any). */
  readonly audioOnly: boolean
  /** Listed formats refused all the same (transcription-flac-refused: flac). */
  readonly refusedFormats: readonly string[]
  /** The model a form without one gets; undefined: model is required (*-model-optional). */
  readonly defaultModel: string | undefined
}

export interface AudioRules {
  /** Every call needs a valid key (audio-missing-key-allowed serves the main account). */
  readonly keyRequired: boolean

  /** Speech models answered 404 as unknown (speech-tts-1-hd-unknown: tts-1-hd). */
  readonly missingSpeechModels: readonly string[]
  /** mp3 when response_format is absent (speech-default-wav: wav). */
  readonly speechDefaultFormat: SpeechFormat
  /** Input of exactly the model's maximum is allowed (speech-input-limit-exclusive refuses it). */
  readonly speechInputExclusive: boolean
  /** Input over the model's maximum is refused (speech-input-unlimited takes any length). */
  readonly checkSpeechInput: boolean
  /** Voices refused though listed (speech-voice-cedar-refused: cedar). */
  readonly refusedVoices: readonly string[]
  /** The newer speech models take instructions (speech-instructions-refused refuses them on every model). */
  readonly speechInstructions: boolean
  /** speed outside 0.25..4.0 is refused (speech-speed-unchecked clamps it). */
  readonly checkSpeechSpeed: boolean
  /** The highest speed taken, 4.0 (speech-speed-4-refused: 3.99). */
  readonly speechSpeedMax: number
  /** An unknown response_format is refused (speech-format-unchecked answers the default). */
  readonly checkSpeechFormat: boolean
  /** tts-1 and tts-1-hd refuse stream_format sse (speech-sse-tts1-accepted streams events). */
  readonly checkSpeechSse: boolean
  /** stream_format audio is taken (speech-stream-audio-refused refuses it). */
  readonly speechStreamAudio: boolean
  /** stream_format sse answers events (speech-sse-as-audio answers audio bytes). */
  readonly speechSseEvents: boolean

  readonly uploads: Readonly<Record<Endpoint, UploadRules>>
  /** POST /v1/audio/translations is offered (translation-route-missing drops it). */
  readonly translationRoute: boolean
  /**
   * response_format per model kind (transcription-newer-srt-accepted gives the newer model the base model's,
   * transcription-newer-text-refused takes text from it, diarized-json-refused takes diarized_json from diarization).
   */
  readonly transcriptionFormats: Readonly<Record<TranscriptionKind, readonly string[]>>
  /** json when response_format is absent (transcription-default-text: text). */
  readonly transcriptionDefaultFormat: string
  /** An unknown response_format is refused (transcription-format-unchecked answers json). */
  readonly checkTranscriptionFormat: boolean
  /** SRT writes a comma before the milliseconds (transcription-srt-dot-millis: a full stop). */
  readonly srtSeparator: ',' | '.'
  /** A language hint is taken (transcription-language-refused refuses it). */
  readonly transcriptionLanguage: boolean
  /** The diarization model refuses prompt (diarize-prompt-accepted takes it). */
  readonly checkDiarizePrompt: boolean
  /** prompt is taken by the other models (transcription-prompt-refused refuses it everywhere). */
  readonly transcriptionPrompt: boolean
  /** chunking_strategy is taken as an object too (transcription-chunking-object-refused takes only auto). */
  readonly chunkingObject: boolean
  /** The newer transcription models take chunking_strategy auto (transcription-chunking-auto-refused refuses it). */
  readonly newerChunkingAuto: boolean
  /** timestamp_granularities[] is taken (timestamps-refused refuses it everywhere). */
  readonly timestamps: boolean
  /** timestamp_granularities[] needs verbose_json on the base model (timestamps-unchecked takes it anywhere). */
  readonly checkTimestampsFit: boolean
  /** The base model refuses stream (transcription-stream-base-accepted streams). */
  readonly checkStreamBase: boolean
  /** Diarization over 30 s needs chunking_strategy (chunking-unchecked never asks for it). */
  readonly checkChunking: boolean
  /** The length past which diarization needs chunking_strategy (chunking-from-29s: 29 s and more). */
  readonly chunkingOver: Limit
  /** include[] logprobs is taken (transcription-logprobs-refused refuses it). */
  readonly transcriptionLogprobs: boolean
  /** The highest temperature, on transcription and translation (transcription-temperature-2: 2; -1-refused: 0.99). */
  readonly temperatureMax: number
  /** Known speakers and clips past the limits are refused (known-speakers-unchecked takes any). */
  readonly checkKnownSpeakers: boolean
  /** The most known speakers, 4 (known-speakers-four-refused: 3). */
  readonly knownSpeakersMax: number
}

export function audioRules(faults: FaultSet): AudioRules {
  const bent = bentBy<AudioFault>(faults)
  let newer = bent('transcription-newer-srt-accepted') ? FORMATS_BY_KIND.base : FORMATS_BY_KIND.newer
  if (bent('transcription-newer-text-refused')) newer = newer.filter((format) => format !== 'text')
  const diarize = FORMATS_BY_KIND.diarize.filter(
    (format) => !(bent('diarized-json-refused') && format === 'diarized_json'),
  )
  return {
    keyRequired: !bent('audio-missing-key-allowed'),

    missingSpeechModels: bent('speech-tts-1-hd-unknown') ? ['tts-1-hd'] : [],
    speechDefaultFormat: bent('speech-default-wav') ? 'wav' : 'mp3',
    speechInputExclusive: bent('speech-input-limit-exclusive'),
    checkSpeechInput: !bent('speech-input-unlimited'),
    refusedVoices: bent('speech-voice-cedar-refused') ? ['cedar'] : [],
    speechInstructions: !bent('speech-instructions-refused'),
    checkSpeechSpeed: !bent('speech-speed-unchecked'),
    speechSpeedMax: SPEED.max - (bent('speech-speed-4-refused') ? 0.01 : 0),
    checkSpeechFormat: !bent('speech-format-unchecked'),
    checkSpeechSse: !bent('speech-sse-tts1-accepted'),
    speechStreamAudio: !bent('speech-stream-audio-refused'),
    speechSseEvents: !bent('speech-sse-as-audio'),

    uploads: {
      transcriptions: uploadRules(bent, 'transcription', bent('transcription-flac-refused') ? ['flac'] : []),
      translations: uploadRules(bent, 'translation', []),
    },
    translationRoute: !bent('translation-route-missing'),
    transcriptionFormats: { base: FORMATS_BY_KIND.base, newer, diarize },
    transcriptionDefaultFormat: bent('transcription-default-text') ? 'text' : 'json',
    checkTranscriptionFormat: !bent('transcription-format-unchecked'),
    srtSeparator: bent('transcription-srt-dot-millis') ? '.' : ',',
    transcriptionLanguage: !bent('transcription-language-refused'),
    checkDiarizePrompt: !bent('diarize-prompt-accepted'),
    transcriptionPrompt: !bent('transcription-prompt-refused'),
    chunkingObject: !bent('transcription-chunking-object-refused'),
    newerChunkingAuto: !bent('transcription-chunking-auto-refused'),
    timestamps: !bent('timestamps-refused'),
    checkTimestampsFit: !bent('timestamps-unchecked'),
    checkStreamBase: !bent('transcription-stream-base-accepted'),
    checkChunking: !bent('chunking-unchecked'),
    chunkingOver: bent('chunking-from-29s')
      ? { max: 29, exclusive: true }
      : { max: DIARIZE_CHUNKING_SECONDS, exclusive: false },
    transcriptionLogprobs: !bent('transcription-logprobs-refused'),
    temperatureMax: bent('transcription-temperature-2')
      ? TEMPERATURE.max + 1
      : bent('transcription-temperature-1-refused')
        ? TEMPERATURE.max - 0.01
        : TEMPERATURE.max,
    checkKnownSpeakers: !bent('known-speakers-unchecked'),
    knownSpeakersMax: bent('known-speakers-four-refused') ? KNOWN_SPEAKERS.max - 1 : KNOWN_SPEAKERS.max,
  }
}

/** The rules of one upload endpoint, whose faults are named after it. */
function uploadRules(
  bent: (fault: AudioFault) => boolean,
  endpoint: 'transcription' | 'translation',
  refusedFormats: readonly string[],
): UploadRules {
  return {
    sizeExclusive: bent(`${endpoint}-size-exclusive`),
    checkSize: !bent(`${endpoint}-size-unchecked`),
    audioOnly: !bent(`${endpoint}-any-file`),
    refusedFormats,
    defaultModel: bent(`${endpoint}-model-optional`) ? BASE_TRANSCRIPTION_MODEL : undefined,
  }
}
