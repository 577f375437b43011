/** Faults of the native interface (Part 2 §2.5, §4.8, §5.1, §5.2). See ../faults.ts for what a fault is. */
import { isObject } from '../../common/json.ts'
import { L16_MIME, PCM_RATE } from '../native/answer.ts'
import { wav } from '../native/audio.ts'
import { type AnswerReshape, onRoutes, type AnswerReshapes } from './answers.ts'
import type { FaultDefinition } from './definition.ts'
import { eachEvent, type EventReshapes, type JsonEvent } from './events.ts'

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
    description: 'contents items with a role other than user or model are accepted (an item without role is not).',
  },
  {
    name: 'native-role-optional',
    breaks: ['P2-4.8-contents-role'],
    description: 'A contents item without role is accepted (as a user turn).',
  },
  {
    name: 'native-contents-optional',
    breaks: ['P2-4.8-contents-required'],
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
    description: 'A non-integer generationConfig.maxOutputTokens is accepted (rounded down).',
  },
  {
    name: 'native-thinking-config-unchecked',
    breaks: ['P2-4.8-thinking-config-refused'],
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

const GENERATE = 'POST /v1beta/models/:target'

/** A reshape of the bytes of each inline audio part of mime type `mimeType` in generateContent's answer. */
function onInlineAudio(mimeType: string, bend: (bytes: Buffer) => Buffer): AnswerReshape {
  const bendPart = (part: unknown): unknown => {
    if (!isObject(part) || !isObject(part.inlineData)) return part
    const { data } = part.inlineData
    if (part.inlineData.mimeType !== mimeType || typeof data !== 'string') return part
    return { ...part, inlineData: { ...part.inlineData, data: bend(Buffer.from(data, 'base64')).toString('base64') } }
  }
  return onRoutes([GENERATE], (answer) => {
    if (!Array.isArray(answer.candidates)) return answer
    const candidates = answer.candidates.map((candidate: unknown) => {
      if (!isObject(candidate) || !isObject(candidate.content) || !Array.isArray(candidate.content.parts))
        return candidate
      return { ...candidate, content: { ...candidate.content, parts: candidate.content.parts.map(bendPart) } }
    })
    return { ...answer, candidates }
  })
}

/**
 * The native faults that only reshape an answer (./answers.ts). A stream never passes through here: the faults of
 * its chunks are NATIVE_STREAM_RESHAPES.
 */
export const NATIVE_ANSWER_RESHAPES: AnswerReshapes = {
  // generateContent's answer; countTokens has no usageMetadata to lose.
  'native-response-no-usage': onRoutes([GENERATE], ({ usageMetadata: _usage, ...answer }) => answer),
  // The RIFF size of a speech WAV counted over the whole file.
  'native-speech-wav-riff-size': onInlineAudio('audio/wav', (file) => {
    const out = Buffer.from(file)
    out.writeUInt32LE(out.length, 4)
    return out
  }),
  // Raw PCM asked for, a WAV file (header and all) sent under the same label.
  'native-l16-wav-bytes': onInlineAudio(L16_MIME, (pcm) => wav(pcm, PCM_RATE)),
}

/** A chunk with its one candidate bent. */
function withCandidate(
  event: JsonEvent,
  bend: (candidate: Record<string, unknown>) => Record<string, unknown>,
): JsonEvent {
  const candidates = event.data.candidates
  if (!Array.isArray(candidates) || !isObject(candidates[0])) return event
  return { ...event, data: { ...event.data, candidates: [bend(candidates[0])] } }
}

/**
 * The native faults that only bend the chunks of streamGenerateContent (./events.ts), in either framing: server-sent
 * events or the JSON array.
 */
export const NATIVE_STREAM_RESHAPES: EventReshapes = {
  'native-stream-chunk-no-role': eachEvent((event) =>
    withCandidate(event, (candidate) => {
      if (!isObject(candidate.content)) return candidate
      const { role: _role, ...content } = candidate.content
      return { ...candidate, content }
    }),
  ),
  'native-stream-no-final-finish': eachEvent((event, index, events) =>
    index === events.length - 1 ? withCandidate(event, ({ finishReason: _finish, ...candidate }) => candidate) : event,
  ),
  // The last chunk's finishReason on every chunk, in its place after content.
  'native-stream-finish-every-chunk': (events) => {
    const last = events.at(-1)
    const candidates = last !== undefined && isObject(last.data) ? last.data.candidates : undefined
    const finish = Array.isArray(candidates) && isObject(candidates[0]) ? candidates[0].finishReason : undefined
    return eachEvent((event) =>
      withCandidate(event, ({ content, finishReason: _own, ...rest }) => ({ content, finishReason: finish, ...rest })),
    )(events)
  },
}
