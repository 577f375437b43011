/**
 * The choices real providers make where §4.2 and §4.3 leave them open (gateway/variations.ts), read once for the
 * audio routes: lenient fields (lenient-audio-fields), WAV sizes as a streaming encoder writes them
 * (streaming-wav), the upload limit in binary megabytes (audio-upload-mib), diarized speakers numbered
 * (diarize-integer-speakers), an enum parser that answers an unknown value with the default (lenient-enums),
 * voices per model (speech-voices-per-model), a file in no audio format refused as an unsupported media type
 * (audio-file-415), and values past their range refused with 422 (range-refusals-422).
 */
import { GatewayError, invalidParameter, unprocessable } from '../errors.ts'
import { SPEECH_MODELS } from './models.ts'
import type { VariationName } from '../variations.ts'
import { ALL_FORMATS, SPEECH_FORMATS, SPEED, TEMPERATURE } from './limits.ts'
import type { AudioFile } from './transcription.ts'
import { AUDIO_UPLOAD_MAX_BYTES, AUDIO_UPLOAD_MAX_MIB, type AudioForm } from './upload.ts'

export interface AudioChoices {
  readonly lenient: boolean
  readonly streamingWav: boolean
  readonly uploadMax: number
  readonly integerSpeakers: boolean
  /** A transcription stream as newline-delimited JSON, not server-sent events (transcript-stream-ndjson). */
  readonly ndjsonTranscripts: boolean
  /** A speech body as this gateway reads it for model `id`. */
  speech(id: string, body: Record<string, unknown>): Record<string, unknown>
  /** A transcription form as this gateway reads it. */
  form(form: AudioForm): void
  /** The file `read` gives, with the status this gateway refuses a non-audio file with. */
  file(read: () => AudioFile): AudioFile
}

/** Variation range-refusals-422: speed and input length past §4.2's range refused with 422. */
function refuseSpeechRange(id: string, body: Record<string, unknown>): void {
  const { speed, input } = body
  if (typeof speed === 'number' && (speed < SPEED.min || speed > SPEED.max))
    throw unprocessable('speed', `speed must be from ${SPEED.min} to ${SPEED.max}.`)
  const max = SPEECH_MODELS[id]?.maxInputChars
  if (typeof input === 'string' && max !== undefined && [...input].length > max)
    throw unprocessable('input', `input takes at most ${max} characters.`)
}

export function audioChoices(variations: ReadonlySet<VariationName>): AudioChoices {
  const lenientEnums = variations.has('lenient-enums')
  const refusals422 = variations.has('range-refusals-422')
  return {
    lenient: variations.has('lenient-audio-fields'),
    streamingWav: variations.has('streaming-wav'),
    uploadMax: variations.has('audio-upload-mib') ? AUDIO_UPLOAD_MAX_MIB : AUDIO_UPLOAD_MAX_BYTES,
    integerSpeakers: variations.has('diarize-integer-speakers'),
    ndjsonTranscripts: variations.has('transcript-stream-ndjson'),
    speech(id, body) {
      if (refusals422) refuseSpeechRange(id, body)
      if (variations.has('speech-voices-per-model') && typeof body.voice === 'string') {
        const older = id === 'tts-1' || id === 'tts-1-hd'
        const refused = older ? ['ballad', 'verse', 'marin', 'cedar'] : id === 'gw-speech-1' ? ['fable', 'onyx'] : []
        if (refused.includes(body.voice)) throw invalidParameter('voice', `${id} does not offer voice '${body.voice}'.`)
      }
      if (!lenientEnums) return body
      const out = { ...body }
      if (
        typeof out.response_format === 'string' &&
        !(SPEECH_FORMATS as readonly string[]).includes(out.response_format)
      )
        delete out.response_format
      if (out.stream_format !== undefined && out.stream_format !== 'audio' && out.stream_format !== 'sse')
        delete out.stream_format
      return out
    },
    form(form) {
      const temperature = Number(form.fields.get('temperature') ?? TEMPERATURE.min)
      if (refusals422 && (temperature < TEMPERATURE.min || temperature > TEMPERATURE.max))
        throw unprocessable('temperature', `temperature must be from ${TEMPERATURE.min} to ${TEMPERATURE.max}.`)
      const format = form.fields.get('response_format')
      if (lenientEnums && format !== undefined && !ALL_FORMATS.includes(format)) form.fields.delete('response_format')
    },
    file(read) {
      try {
        return read()
      } catch (error) {
        const unsupported = error instanceof GatewayError && error.message.startsWith('Unsupported file')
        if (variations.has('audio-file-415') && unsupported)
          throw new GatewayError(415, error.message, { param: 'file' })
        throw error
      }
    },
  }
}
