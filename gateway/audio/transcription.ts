/**
 * Reading a transcription or translation form (Part 2 §4.3, §4.4, §8) into what the route answers.
 *
 * Faithful where the reference is explicit: the file formats, response_format per model (text, srt,
 * verbose_json, vtt and json on the base model; json or text on the newer ones; diarized_json for diarization),
 * timestamp_granularities[] only with verbose_json on the base model and never for diarization, stream only on the
 * newer models, chunking_strategy required for diarization over 30 seconds, prompt refused by the diarization
 * model, temperature 0 to 1, up to four known speakers with reference clips of 2 to 10 seconds.
 * Reasonable where it is silent: include[] takes only logprobs, and only with json on a newer model; translation
 * answers the base model's formats. What the request schema alone states (language's two letters, stream true or
 * false) is judged before, by checkForm (request-validation.ts).
 */
import { GatewayError, invalidParameter } from '../errors.ts'
import { AUDIO_EXTENSIONS, containerOf, durationOf, extensionOf, type Container } from './probe.ts'
import type { TranscriptionKind } from './models.ts'
import {
  ALL_FORMATS,
  DIARIZE_CHUNKING_SECONDS,
  exceeds,
  FORMATS_BY_KIND,
  KNOWN_SPEAKERS,
  TEMPERATURE,
} from './limits.ts'
import type { AudioRules, UploadRules } from './rules.ts'
import type { AudioForm } from './upload.ts'

export interface AudioFile {
  container: Container
  seconds: number
}

export interface TranscriptionRequest {
  file: AudioFile
  format: string
  granularities: string[]
  stream: boolean
  language: string
  logprobs: boolean
  speakers: string[] | undefined
}

/** The file part: present, of a listed format (by extension and by signature), with a readable duration. */
export function readAudioFile(form: AudioForm, rules: UploadRules): AudioFile {
  const file = form.file
  if (!file) throw invalidParameter('file', 'file is required: the audio to transcribe, as a multipart file part.')
  const extension = extensionOf(file.filename)
  const container = containerOf(file.bytes)
  const refused = rules.refusedFormats.some((format) => format === container || format === extension)
  if (!rules.audioOnly && !refused && container === undefined)
    return { container: 'mp4', seconds: Math.max(1, file.bytes.length / 16_000) }
  if (!(AUDIO_EXTENSIONS as readonly string[]).includes(extension) || container === undefined || refused) {
    throw invalidParameter(
      'file',
      `Unsupported file '${file.filename}': send audio in one of ${AUDIO_EXTENSIONS.join(', ')}.`,
    )
  }
  const seconds = durationOf(container, file.bytes)
  if (seconds === undefined || !Number.isFinite(seconds))
    throw invalidParameter('file', `The ${container} header of '${file.filename}' cannot be read.`)
  return { container, seconds }
}

export function readTemperature(form: AudioForm, rules: AudioRules): void {
  const text = form.fields.get('temperature')
  if (text === undefined) return
  const value = Number(text)
  const max = rules.temperatureMax
  if (text.trim() === '' || !Number.isFinite(value) || value < TEMPERATURE.min || value > max)
    throw invalidParameter('temperature', `temperature must be a number from ${TEMPERATURE.min} to ${TEMPERATURE.max}.`)
}

export function readFormat(
  form: AudioForm,
  allowed: readonly string[],
  defaultFormat: string,
  unchecked: boolean,
): string {
  const format = form.fields.get('response_format')
  if (format === undefined) return defaultFormat
  if (allowed.includes(format)) return format
  if (!ALL_FORMATS.includes(format) && unchecked) return 'json'
  throw invalidParameter('response_format', `response_format must be one of ${allowed.join(', ')} on this model.`)
}

/**
 * `lenient` (variation lenient-audio-fields): what §4.3 says a model does not support (stream on the base model,
 * timestamp_granularities[] off verbose_json or on diarization, prompt on diarization) is accepted and ignored.
 */
export function parseTranscription(
  form: AudioForm,
  kind: TranscriptionKind,
  file: AudioFile,
  rules: AudioRules,
  lenient = false,
): TranscriptionRequest {
  const format = readFormat(
    form,
    rules.transcriptionFormats[kind],
    rules.transcriptionDefaultFormat,
    !rules.checkTranscriptionFormat,
  )

  const language = form.fields.get('language')
  if (language !== undefined && !rules.transcriptionLanguage)
    throw invalidParameter('language', 'language is not supported.')

  if (form.fields.has('prompt') && kind === 'diarize' && rules.checkDiarizePrompt && !lenient)
    throw invalidParameter('prompt', 'The diarization model does not support prompt.')
  if (form.fields.has('prompt') && !rules.transcriptionPrompt)
    throw invalidParameter('prompt', 'prompt is not supported.')

  const granularities = readGranularities(form, kind, format, rules, lenient)

  const stream = form.fields.get('stream') === 'true' && !(lenient && kind === 'base')
  if (stream && kind === 'base' && rules.checkStreamBase)
    throw invalidParameter('stream', 'stream is supported by the newer transcription models only, not the base model.')

  readChunking(form, kind, file, rules)

  const include = form.lists.get('include[]') ?? []
  if (include.some((i) => i !== 'logprobs')) throw invalidParameter('include[]', 'include[] takes logprobs.')
  const logprobs = include.length > 0
  if (logprobs && !rules.transcriptionLogprobs) throw invalidParameter('include[]', 'include[] is not supported.')
  if (logprobs && (kind !== 'newer' || format !== 'json'))
    throw invalidParameter('include[]', 'include[] logprobs needs response_format json on a newer transcription model.')

  readTemperature(form, rules)
  const speakers = readKnownSpeakers(form, kind, rules)
  return { file, format, granularities, stream, language: language ?? 'en', logprobs, speakers }
}

function readGranularities(
  form: AudioForm,
  kind: TranscriptionKind,
  format: string,
  rules: AudioRules,
  lenient: boolean,
): string[] {
  const fits = kind === 'base' && format === 'verbose_json'
  const granularities = form.lists.get('timestamp_granularities[]') ?? []
  if (lenient && !fits) return []
  if (granularities.length === 0) return granularities
  if (!granularities.every((g) => g === 'word' || g === 'segment'))
    throw invalidParameter('timestamp_granularities[]', 'timestamp_granularities[] takes word and segment.')
  if (!rules.timestamps)
    throw invalidParameter('timestamp_granularities[]', 'timestamp_granularities[] is not supported.')
  if (!fits && rules.checkTimestampsFit)
    throw invalidParameter(
      'timestamp_granularities[]',
      'timestamp_granularities[] needs response_format verbose_json on the base model, and is not for diarization.',
    )
  return granularities
}

/** chunking_strategy: auto or an object with a type; required for diarization over 30 seconds. */
function readChunking(form: AudioForm, kind: TranscriptionKind, file: AudioFile, rules: AudioRules): void {
  const chunking = form.fields.get('chunking_strategy')
  if (chunking === 'auto' && kind === 'newer' && !rules.newerChunkingAuto)
    throw invalidParameter('chunking_strategy', 'chunking_strategy must be an object with a type.')
  if (chunking !== undefined && chunking !== 'auto') {
    let parsed: unknown
    try {
      parsed = JSON.parse(chunking)
    } catch {
      parsed = undefined
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Array.isArray(parsed) ||
      typeof (parsed as Record<string, unknown>).type !== 'string'
    ) {
      throw invalidParameter('chunking_strategy', 'chunking_strategy must be auto or an object with a type (JSON).')
    }
    if (!rules.chunkingObject) throw invalidParameter('chunking_strategy', 'chunking_strategy must be auto.')
  }
  if (kind === 'diarize' && chunking === undefined && rules.checkChunking && exceeds(file.seconds, rules.chunkingOver))
    throw invalidParameter(
      'chunking_strategy',
      `The audio lasts ${file.seconds.toFixed(3)} s; diarization of more than ${DIARIZE_CHUNKING_SECONDS} s needs chunking_strategy (use auto).`,
    )
}

function readKnownSpeakers(form: AudioForm, kind: TranscriptionKind, rules: AudioRules): string[] | undefined {
  const names = form.lists.get('known_speaker_names[]') ?? []
  const references = form.lists.get('known_speaker_references[]') ?? []
  if (names.length === 0 && references.length === 0) return undefined
  if (kind !== 'diarize')
    throw invalidParameter('known_speaker_names[]', 'Known speakers are for the diarization model.')
  if (names.length !== references.length)
    throw invalidParameter('known_speaker_references[]', 'Give one reference clip per known speaker name.')
  if (!rules.checkKnownSpeakers) return names
  if (names.length > rules.knownSpeakersMax)
    throw invalidParameter('known_speaker_names[]', `At most ${KNOWN_SPEAKERS.max} known speakers.`)
  references.forEach((reference, i) => {
    const seconds = clipSeconds(reference)
    if (seconds === undefined)
      throw invalidParameter(
        `known_speaker_references[${i}]`,
        'A reference clip must be a data URL of audio (data:audio/...;base64,...).',
      )
    if (seconds < KNOWN_SPEAKERS.minSeconds || seconds > KNOWN_SPEAKERS.maxSeconds) {
      throw invalidParameter(
        `known_speaker_references[${i}]`,
        `A reference clip lasts ${KNOWN_SPEAKERS.minSeconds} to ${KNOWN_SPEAKERS.maxSeconds} seconds; this one ${seconds.toFixed(3)} s.`,
      )
    }
  })
  return names
}

function clipSeconds(dataUrl: string): number | undefined {
  const match = /^data:audio\/[\w.+-]+(?:;[\w=.-]+)*;base64,([A-Za-z0-9+/=\s]+)$/.exec(dataUrl)
  if (!match) return undefined
  const bytes = Buffer.from(match[1] as string, 'base64')
  const container = containerOf(bytes)
  return container === undefined ? undefined : durationOf(container, bytes)
}

/** Translation (§4.4): file, model, prompt; the formats of the base model; temperature as on transcription. */
export function parseTranslation(form: AudioForm, rules: AudioRules): { format: string } {
  const format = readFormat(form, FORMATS_BY_KIND.base, 'json', false)
  readTemperature(form, rules)
  return { format }
}

export function modelField(form: AudioForm, fallback: string | undefined): string {
  const model = form.fields.get('model')
  if (model !== undefined && model !== '') return model
  if (fallback !== undefined) return fallback
  throw new GatewayError(400, 'model is required: a transcription model id.', { param: 'model' })
}
