/** The native faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { isObject } from '../../common/json.ts'
import { L16_MIME, PCM_RATE } from './answer.ts'
import { wav } from './audio.ts'
import { type AnswerReshape, onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import { eachEvent, type EventReshapes, type JsonEvent } from '../faults/events.ts'
import type { NativeFault } from './faults.ts'

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
 * The native faults that only reshape an answer (../faults/answers.ts). A stream never passes through here: the faults of
 * its chunks are NATIVE_STREAM_RESHAPES.
 */
export const NATIVE_ANSWER_RESHAPES: AnswerReshapes<NativeFault> = {
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
 * The native faults that only bend the chunks of streamGenerateContent (../faults/events.ts), in either framing: server-sent
 * events or the JSON array.
 */
export const NATIVE_STREAM_RESHAPES: EventReshapes<NativeFault> = {
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
