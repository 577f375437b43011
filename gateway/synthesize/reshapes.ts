/** The synthesize faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { isObject } from '../../common/json.ts'
import { AUTOMATIC_RATE, pcm16le, speechSeconds, toneSamples, wav } from '../native/audio.ts'
import { type AnswerReshape, onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import type { SynthesizeFault } from './faults.ts'

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
 * The synthesis faults that only reshape an answer (../faults/answers.ts); the others bend what is accepted (../synthesize/
 * rules.ts). The audio reshapes come before the echoed rate is bent, since they read it.
 */
export const SYNTHESIZE_ANSWER_RESHAPES: AnswerReshapes<SynthesizeFault> = {
  'synthesize-mp3-as-wav': pcmWavFor('MP3', () => AUTOMATIC_RATE),
  'synthesize-mulaw-as-linear16': pcmWavFor('MULAW', (config) => Number(config.sampleRateHertz)),
  'synthesize-no-timepoints': onRoutes([SYNTHESIZE], ({ timepoints: _timepoints, ...answer }) => answer),
  'synthesize-echo-default-rate': onRoutes([SYNTHESIZE], (answer) =>
    isObject(answer.audioConfig)
      ? { ...answer, audioConfig: { ...answer.audioConfig, sampleRateHertz: AUTOMATIC_RATE } }
      : answer,
  ),
}
