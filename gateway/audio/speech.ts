/**
 * POST /v1/audio/speech (Part 2 §4.2, §6.2, §8): reading the request and making the audio.
 *
 * Faithful where the reference is explicit: the model list, input up to 4096 characters on the compatible
 * models, the thirteen voices, instructions and stream_format sse refused by tts-1 and tts-1-hd, the six formats
 * with mp3 the default, speed 0.25 to 4.0. Reasonable where it is silent:
 * - the voice object {name, languageCode} is taken by the native family's newer speech models (nv-speech-*),
 *   whose prebuilt names are those of §4.8 and §4.9; a compatible voice name is refused there, and an object
 *   anywhere else;
 * - the audio lasts max(0.5, characters / 15) seconds divided by speed (about 15 characters a second, a
 *   speaking pace), 24 kHz mono 16-bit where the format has samples;
 * - the preview model that requires pcm refuses every other format, the default included.
 */
import { invalidParameter } from '../errors.ts'
import { countTokens } from '../simulate/tokenizer.ts'
import { aacFile, flacFile, mp3File, opusFile } from './containers.ts'
import { audioTokens, type SpeechModel } from './models.ts'
import { exceeds, SPEECH_FORMATS, SPEED, type SpeechFormat } from './limits.ts'
import type { AudioRules } from './rules.ts'
import { toneSamples } from './tone.ts'
import { wavFile, withUnknownSizes } from './wav.ts'

export const VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'nova',
  'onyx',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
] as const
/** Prebuilt voices of the native family (§4.8, §4.9 name these). */
export const PREBUILT_VOICES = ['Kore', 'Puck', 'Zephyr', 'Charon', 'Fenrir', 'Aoede'] as const

export const SPEECH_AUDIO = {
  sampleRate: 24_000,
  channels: 1,
  bitsPerSample: 16,
  charsPerSecond: 15,
  minSeconds: 0.5,
} as const

export const CONTENT_TYPES: Readonly<Record<SpeechFormat, string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
}

export interface SpeechRequest {
  input: string
  voice: string
  format: SpeechFormat
  speed: number
  stream: 'audio' | 'sse' | undefined
}

/**
 * A body the request schema has judged (request-validation.ts): what it states, tts-1's and tts-1-hd's refusals
 * of instructions and stream_format sse among them, is not judged again here.
 */
export function parseSpeechRequest(
  body: Record<string, unknown>,
  model: SpeechModel,
  rules: AudioRules,
): SpeechRequest {
  const { input } = body
  if (typeof input !== 'string' || input === '')
    throw invalidParameter('input', 'input is required: the text to speak.')
  const chars = [...input].length
  const over = exceeds(chars, { max: model.maxInputChars, exclusive: rules.speechInputExclusive })
  if (over && rules.checkSpeechInput)
    throw invalidParameter('input', `input is ${chars} characters; ${model.id} takes at most ${model.maxInputChars}.`)

  const voice = parseVoice(body.voice, model, rules)

  if (body.instructions !== undefined && body.instructions !== null && !rules.speechInstructions)
    throw invalidParameter('instructions', `${model.id} does not support instructions.`)

  let format: SpeechFormat = rules.speechDefaultFormat
  if (body.response_format !== undefined && body.response_format !== null) {
    if ((SPEECH_FORMATS as readonly unknown[]).includes(body.response_format))
      format = body.response_format as SpeechFormat
    else if (rules.checkSpeechFormat)
      throw invalidParameter('response_format', `response_format must be one of ${SPEECH_FORMATS.join(', ')}.`)
  }
  if (model.onlyFormat !== undefined && format !== model.onlyFormat)
    throw invalidParameter('response_format', `${model.id} requires response_format ${model.onlyFormat}.`)

  let speed: number = SPEED.default
  if (body.speed !== undefined && body.speed !== null) {
    if (typeof body.speed !== 'number' || !Number.isFinite(body.speed))
      throw invalidParameter('speed', 'speed must be a number.')
    speed = body.speed
    if (speed < SPEED.min || speed > rules.speechSpeedMax) {
      if (rules.checkSpeechSpeed) throw invalidParameter('speed', `speed must be from ${SPEED.min} to ${SPEED.max}.`)
      speed = Math.min(SPEED.max, Math.max(SPEED.min, speed))
    }
  }

  let stream: SpeechRequest['stream']
  if (body.stream_format !== undefined && body.stream_format !== null) {
    if (body.stream_format !== 'audio' && body.stream_format !== 'sse')
      throw invalidParameter('stream_format', 'stream_format must be audio or sse.')
    if (body.stream_format === 'audio' && !rules.speechStreamAudio)
      throw invalidParameter('stream_format', 'stream_format audio is not supported.')
    // sse gets past the schema on a model without it only where lenient-audio-fields lifts the refusal: ignored.
    const sseUnsupported = body.stream_format === 'sse' && !model.sse && rules.checkSpeechSse
    stream = sseUnsupported ? 'audio' : body.stream_format
  }
  return { input, voice, format, speed, stream }
}

function parseVoice(voice: unknown, model: SpeechModel, rules: AudioRules): string {
  // Absent only where a fault lifts the schema's requirement: spoken with alloy.
  if (voice === undefined) return 'alloy'
  if (model.voiceObject) {
    if (typeof voice === 'object' && !Array.isArray(voice)) {
      const { name, languageCode } = voice as Record<string, unknown>
      if (!(PREBUILT_VOICES as readonly unknown[]).includes(name))
        throw invalidParameter('voice.name', `voice.name must be a prebuilt voice: ${PREBUILT_VOICES.join(', ')}.`)
      if (typeof languageCode !== 'string' || !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(languageCode))
        throw invalidParameter('voice.languageCode', 'voice.languageCode must be a BCP-47 tag such as en-US.')
      return name as string
    }
    if ((PREBUILT_VOICES as readonly unknown[]).includes(voice)) return voice as string
    throw invalidParameter(
      'voice',
      `${model.id} takes a prebuilt voice (${PREBUILT_VOICES.join(', ')}), as a name or as {name, languageCode}.`,
    )
  }
  if (typeof voice !== 'string')
    throw invalidParameter('voice', `${model.id} takes a voice name: one of ${VOICES.join(', ')}.`)
  const known = (VOICES as readonly string[]).includes(voice) && !rules.refusedVoices.includes(voice)
  if (!known) throw invalidParameter('voice', `Unknown voice '${voice}': use one of ${VOICES.join(', ')}.`)
  return voice
}

export interface Speech {
  bytes: Buffer
  contentType: string
  seconds: number
  textTokens: number
  audioTokens: number
}

export function speechSeconds(input: string, speed: number): number {
  const base = Math.max(SPEECH_AUDIO.minSeconds, [...input].length / SPEECH_AUDIO.charsPerSecond)
  return Math.round((base / speed) * SPEECH_AUDIO.sampleRate) / SPEECH_AUDIO.sampleRate
}

/** The tone a request's audio carries, the same for every format that has samples. */
export function speechSamples(request: SpeechRequest, seconds: number): Buffer {
  return toneSamples(`${request.voice}:${request.input}`, seconds, SPEECH_AUDIO.sampleRate)
}

/** `streamingWav` (variation streaming-wav): WAV sizes written as unknown, as a streaming encoder writes them. */
export function synthesize(request: SpeechRequest, streamingWav = false): Speech {
  const seconds = speechSeconds(request.input, request.speed)
  const { sampleRate } = SPEECH_AUDIO
  let bytes: Buffer
  switch (request.format) {
    case 'wav': {
      const wav = wavFile(SPEECH_AUDIO, speechSamples(request, seconds))
      bytes = streamingWav ? withUnknownSizes(wav) : wav
      break
    }
    case 'pcm':
      bytes = speechSamples(request, seconds)
      break
    case 'flac':
      bytes = flacFile(speechSamples(request, seconds), sampleRate)
      break
    case 'aac':
      bytes = aacFile(seconds, sampleRate)
      break
    case 'opus':
      bytes = opusFile(seconds, sampleRate)
      break
    default:
      bytes = mp3File(seconds)
  }
  return {
    bytes,
    contentType: CONTENT_TYPES[request.format],
    seconds,
    textTokens: countTokens(request.input),
    audioTokens: audioTokens(seconds),
  }
}
