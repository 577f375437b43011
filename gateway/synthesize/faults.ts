/** Faults of native speech synthesis (Part 2 §2.6, §4.9, §5.3, §7). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

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
    relaxes: ['P2-4.9-required-fields'],
    description: 'A body without voice.languageCode is answered 200.',
  },
  {
    name: 'synthesize-unknown-encoding-accepted',
    breaks: ['P2-4.9-encodings-refused'],
    relaxes: ['P2-4.9-encodings-refused'],
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
    relaxes: ['P2-4.9-sample-rates-refused'],
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

/** The names of the synthesize faults: what its rules and reshapes are typed by. */
export type SynthesizeFault = (typeof SYNTHESIZE_FAULTS)[number]['name']
