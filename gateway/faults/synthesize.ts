/** Faults of native speech synthesis (Part 2 §2.6, §4.9, §5.3, §7). See ../faults.ts for what a fault is. */
import { isObject } from '../../common/json.ts'
import { AUTOMATIC_RATE, pcm16le, speechSeconds, toneSamples, wav } from '../native/audio.ts'
import { type AnswerReshape, onRoutes, type AnswerReshapes } from './answers.ts'
import type { FaultDefinition } from './definition.ts'

export const SYNTHESIZE_FAULTS = [
  {
    name: 'synthesize-no-timepoints',
    breaks: ['P2-2.6-synthesis-response'],
    description: 'The text:synthesize answer has no timepoints array.',
  },
  {
    name: 'synthesize-echo-default-rate',
    breaks: ['P2-2.6-audio-config-echo'],
    description: 'audioConfig.sampleRateHertz in the answer is always 24000, whatever rate was asked.',
  },
  {
    name: 'synthesize-mp3-as-wav',
    breaks: ['P2-2.6-audio-content'],
    description: 'Asked for MP3, text:synthesize answers WAV bytes (still echoing MP3).',
  },
  {
    name: 'synthesize-mulaw-as-linear16',
    breaks: ['P2-2.6-audio-container'],
    description: 'Asked for MULAW, text:synthesize answers a 16-bit PCM WAV (format 1) while echoing MULAW.',
  },
  {
    name: 'synthesize-language-optional',
    breaks: ['P2-4.9-required-fields'],
    description: 'A body without voice.languageCode is answered 200.',
  },
  {
    name: 'synthesize-unknown-encoding-accepted',
    breaks: ['P2-4.9-encodings-refused'],
    description: 'An audioEncoding outside the five is accepted and answered as LINEAR16.',
  },
  {
    name: 'synthesize-ogg-opus-refused',
    breaks: ['P2-4.9-encodings'],
    description: 'audioEncoding OGG_OPUS, one of the five, is refused with 400.',
  },
  {
    name: 'synthesize-any-rate-accepted',
    breaks: ['P2-4.9-sample-rates-refused'],
    description: 'Any positive sampleRateHertz is accepted for LINEAR16, MULAW and ALAW.',
  },
  {
    name: 'synthesize-prompt-refused',
    breaks: ['P2-4.9-optional-fields'],
    description: 'input.prompt, an optional field of §4.9, is refused with 400.',
  },
  {
    name: 'synthesize-48000-refused',
    breaks: ['P2-4.9-sample-rates'],
    description: 'LINEAR16 at 48000 Hz, a listed rate, is refused with 400.',
  },
  {
    name: 'synthesize-unknown-model-accepted',
    breaks: ['P2-4.9-models-refused'],
    description: 'A voice.model_name other than the two synthesis models is served by the flash model.',
  },
  {
    name: 'synthesize-pro-model-refused',
    breaks: ['P2-4.9-models'],
    description: 'The pro synthesis model, one of the two of §4.9, is refused with 400 as unknown.',
  },
  {
    name: 'synthesize-native-key-accepted',
    breaks: ['P2-5.3-bearer-only'],
    description: 'text:synthesize accepts the key in x-native-api-key.',
  },
  {
    name: 'synthesize-compatible-error-body',
    breaks: ['P2-7-synthesis-error-body'],
    description: 'text:synthesize errors answer the compatible body { error: { message, type, param, code } }.',
  },
  {
    name: 'synthesize-too-large-400',
    breaks: ['P2-7-synthesis-413'],
    description: 'Text over the ceiling is refused with 400 instead of 413.',
  },
  {
    name: 'synthesize-ceiling-900',
    breaks: ['P2-4.9-text-ceiling'],
    description: 'input.text over 900 bytes is refused with 413 (the ceiling of the sample error text).',
  },
] as const satisfies readonly FaultDefinition[]

const SYNTHESIZE = 'POST /v1/text:synthesize'

/** The text a synthesis answered, read back from its request. */
function spokenText(body: unknown): string {
  const input = isObject(body) && isObject(body.input) ? body.input : {}
  return typeof input.text === 'string' ? input.text : ''
}

/** A reshape of the audio answered for `encoding`: 16-bit PCM in a WAV file at `rate`, whatever was asked. */
function pcmWavFor(encoding: string, rateOf: (audioConfig: Record<string, unknown>) => number): AnswerReshape {
  return onRoutes([SYNTHESIZE], (answer, request) => {
    const config = isObject(answer.audioConfig) ? answer.audioConfig : {}
    if (config.audioEncoding !== encoding) return answer
    const rate = rateOf(config)
    const seconds = speechSeconds(spokenText(request.body))
    return { ...answer, audioContent: wav(pcm16le(toneSamples(seconds, rate)), rate).toString('base64') }
  })
}

/**
 * The synthesis faults that only reshape an answer (./answers.ts); the others bend what is accepted (../synthesize/
 * rules.ts). The audio reshapes come before the echoed rate is bent, since they read it.
 */
export const SYNTHESIZE_ANSWER_RESHAPES: AnswerReshapes = {
  'synthesize-mp3-as-wav': pcmWavFor('MP3', () => AUTOMATIC_RATE),
  'synthesize-mulaw-as-linear16': pcmWavFor('MULAW', (config) => Number(config.sampleRateHertz)),
  'synthesize-no-timepoints': onRoutes([SYNTHESIZE], ({ timepoints: _timepoints, ...answer }) => answer),
  'synthesize-echo-default-rate': onRoutes([SYNTHESIZE], (answer) =>
    isObject(answer.audioConfig)
      ? { ...answer, audioConfig: { ...answer.audioConfig, sampleRateHertz: AUTOMATIC_RATE } }
      : answer,
  ),
}
