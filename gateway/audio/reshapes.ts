/** The audio faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { mp3File } from './containers.ts'
import { SPEECH_AUDIO, type SpeechRequest, speechSamples } from './speech.ts'
import { wavFile } from './wav.ts'
import { type AnswerReshapes, onRoutes } from '../faults/answers.ts'
import { eachEvent, isType, type EventReshapes } from '../faults/events.ts'
import type { FaultSet } from '../faults/definition.ts'
import type { AudioFault } from './faults.ts'

/** The audio faults that only reshape a JSON transcription (../faults/answers.ts). */
export const AUDIO_ANSWER_RESHAPES: AnswerReshapes<AudioFault> = {
  'audio-json-transcript-key': onRoutes(
    ['POST /v1/audio/transcriptions', 'POST /v1/audio/translations'],
    ({ text, ...answer }) => (text === undefined ? answer : { transcript: text, ...answer }),
  ),
}

/**
 * The audio faults that only bend a transcription stream's events (../faults/events.ts); the others act in the routes.
 */
export const AUDIO_STREAM_RESHAPES: EventReshapes<AudioFault> = {
  'transcript-done-no-usage': eachEvent((event) => {
    if (!isType(event, 'transcript.text.done')) return event
    const { usage: _usage, ...data } = event.data
    return { ...event, data }
  }),
  'transcript-usage-as-string': eachEvent((event) =>
    isType(event, 'transcript.text.done')
      ? { ...event, data: { ...event.data, usage: JSON.stringify(event.data.usage) } }
      : event,
  ),
  'diarized-stream-no-segments': eachEvent((event) => (isType(event, 'transcript.text.segment') ? null : event)),
}

/** Bends the bytes of a speech answer, made correctly for `request`, lasting `seconds`. */
export type SpeechReshape = (bytes: Buffer, request: SpeechRequest, seconds: number) => Buffer

/**
 * The audio faults that only bend the bytes of a speech answer. Speech is no JSON answer (../faults/answers.ts), so the
 * route applies these to the audio it made, before it sends or streams it.
 */
export const SPEECH_RESHAPES: Partial<Record<AudioFault, SpeechReshape>> = {
  'speech-flac-as-wav': (bytes, request, seconds) =>
    request.format === 'flac' ? wavFile(SPEECH_AUDIO, speechSamples(request, seconds)) : bytes,
  'speech-opus-as-mp3': (bytes, request, seconds) => (request.format === 'opus' ? mp3File(seconds) : bytes),
  'speech-wav-riff-size': (bytes, request) => {
    if (request.format !== 'wav') return bytes
    const out = Buffer.from(bytes)
    out.writeUInt32LE(out.length, 4)
    return out
  },
}

/** The speech reshapes whose fault is on, as one; the bytes themselves when none is. */
export function reshapeSpeech(faults: FaultSet): SpeechReshape {
  const active = Object.entries(SPEECH_RESHAPES).flatMap(([name, reshape]) =>
    reshape !== undefined && faults.has(name) ? [reshape] : [],
  )
  return (bytes, request, seconds) => active.reduce((out, reshape) => reshape(out, request, seconds), bytes)
}
