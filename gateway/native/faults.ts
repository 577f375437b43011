/** Faults of the native interface (Part 2 §2.5, §4.8, §5.1, §5.2). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const NATIVE_FAULTS = [
  {
    name: 'native-response-no-usage',
    breaks: ['P2-2.5-native-response'],
    description: 'The non-streaming generateContent answer has no usageMetadata.',
  },
  {
    name: 'native-stream-chunk-no-role',
    breaks: ['P2-4.8-stream-chunks'],
    description: 'streamGenerateContent chunks carry content without role.',
  },
  {
    name: 'native-stream-no-final-finish',
    breaks: ['P2-4.8-stream-last-finish'],
    description: 'The last chunk of streamGenerateContent carries no finishReason.',
  },
  {
    name: 'native-stream-finish-every-chunk',
    breaks: ['P2-4.8-stream-finish-only-last'],
    description: 'Every chunk of streamGenerateContent carries finishReason, not only the last.',
  },
  {
    name: 'native-any-role-accepted',
    breaks: ['P2-4.8-contents-role-refused'],
    relaxes: ['P2-4.8-contents-role-refused'],
    description: 'contents items with a role other than user or model are accepted (an item without role is not).',
  },
  {
    name: 'native-role-optional',
    breaks: ['P2-4.8-contents-role'],
    relaxes: ['P2-4.8-contents-role'],
    description: 'A contents item without role is accepted (as a user turn).',
  },
  {
    name: 'native-contents-optional',
    breaks: ['P2-4.8-contents-required'],
    relaxes: ['P2-4.8-contents-required'],
    description: 'A body without contents is answered 200.',
  },
  {
    name: 'native-system-instruction-refused',
    breaks: ['P2-4.8-system-instruction'],
    description: 'A body with system_instruction is refused with 400.',
  },
  {
    name: 'native-temperature-unchecked',
    breaks: ['P2-4.8-temperature-refused'],
    relaxes: ['P2-4.8-temperature-refused'],
    description: 'generationConfig.temperature outside 0.0..2.0 is accepted.',
  },
  {
    name: 'native-temperature-2-refused',
    breaks: ['P2-4.8-temperature-range'],
    description: 'generationConfig.temperature 2.0, the top of the range, is refused (at most 1.99).',
  },
  {
    name: 'native-max-output-tokens-min-16',
    breaks: ['P2-4.8-max-output-tokens'],
    description:
      'generationConfig.maxOutputTokens below 16 is refused with 400, a minimum the reference does not give.',
  },
  {
    name: 'native-max-output-tokens-lenient',
    breaks: ['P2-4.8-max-output-tokens-refused'],
    relaxes: ['P2-4.8-max-output-tokens-refused'],
    description: 'A non-integer generationConfig.maxOutputTokens is accepted (rounded down).',
  },
  {
    name: 'native-thinking-config-unchecked',
    breaks: ['P2-4.8-thinking-config-refused'],
    relaxes: ['P2-4.8-thinking-config-refused'],
    description: 'thinkingLevel other than low, medium or high and a non-integer thinkingBudget are accepted.',
  },
  {
    name: 'native-three-speakers-accepted',
    breaks: ['P2-4.8-speakers-refused'],
    description: 'speakerVoiceConfigs with three speakers is accepted.',
  },
  {
    name: 'native-two-speakers-refused',
    breaks: ['P2-4.8-speakers-at-most-2', 'P2-4.8-speech-speaker-match'],
    description: 'speakerVoiceConfigs with two speakers, the most allowed, is refused (at most one).',
  },
  {
    name: 'native-speech-default-pcm',
    breaks: ['P2-4.8-speech-wav-default'],
    description: 'A newer speech model answers raw PCM (audio/L16) by default instead of WAV.',
  },
  {
    name: 'native-speech-wav-riff-size',
    breaks: ['P2-4.8-speech-wav-lengths'],
    description: 'The RIFF size of a native speech WAV counts the whole file instead of the file less 8 bytes.',
  },
  {
    name: 'native-l16-wav-bytes',
    breaks: ['P2-4.8-speech-pcm-l16'],
    description: 'Asked for audio/L16, a newer speech model labels a WAV file (RIFF header) audio/L16.',
  },
  {
    name: 'native-speaker-mismatch-accepted',
    breaks: ['P2-4.8-speech-speaker-mismatch-refused'],
    description: 'speechMetadata.speaker naming no speaker of speakerVoiceConfigs is accepted.',
  },
  {
    name: 'native-speech-metadata-refused',
    breaks: ['P2-4.8-speech-speaker-match'],
    description:
      'A text part with speechMetadata is refused with 400, even when its speaker matches speakerVoiceConfigs.',
  },
  {
    name: 'native-stop-sequences-refused',
    breaks: ['P2-4.8-generation-options'],
    description: 'generationConfig.stopSequences is refused with 400.',
  },
  {
    name: 'native-thinking-medium-refused',
    breaks: ['P2-4.8-thinking-config'],
    description: 'thinkingLevel medium is refused with 400 by every native model.',
  },
  {
    name: 'native-speech-thinking-accepted',
    breaks: ['P2-4.8-speech-no-thinking-tools'],
    description: 'A newer speech model accepts thinkingConfig.',
  },
  {
    name: 'native-speech-image-accepted',
    breaks: ['P2-4.8-speech-text-only-input'],
    description: 'A newer speech model accepts inline_data image and audio parts.',
  },
  {
    name: 'native-bearer-refused',
    breaks: ['P2-5.1-native-bearer'],
    description: '/v1beta refuses Authorization: Bearer with 401 (x-native-api-key still works).',
  },
  {
    name: 'native-key-header-refused',
    breaks: ['P2-5.2-native-key-header'],
    description: '/v1beta does not read x-native-api-key (a call with only it is 401).',
  },
  {
    name: 'native-missing-key-allowed',
    breaks: ['P2-5.1-native-key-required'],
    description: '/v1beta serves calls without a valid key as the main (tier-2) account.',
  },
  {
    name: 'native-inline-data-refused',
    breaks: ['P2-4.8-inline-image'],
    description: 'A part with inline_data (the spelling §4.8 gives) is refused with 400; only inlineData is read.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the native faults: what its rules and reshapes are typed by. */
export type NativeFault = (typeof NATIVE_FAULTS)[number]['name']
