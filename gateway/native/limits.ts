/**
 * The limits of generateContent's body that its request schema states: read by the request reader (request.ts) and
 * by the rules (rules.ts), which bend some of them, so neither of those imports the other's module.
 */
import { limitOf, rangeOf, valuesOf } from '../../common/request-schemas.ts'

const GENERATE = 'POST /v1beta/models/{model}:generateContent'
export const ROLES = new Set(valuesOf(GENERATE, 'body', 'contents[].role'))
export const THINKING_LEVELS = new Set(valuesOf(GENERATE, 'body', 'generationConfig.thinkingConfig.thinkingLevel'))
/** Section 4.8: speechConfig takes at most 2 speakerVoiceConfigs, as the request schema states it. */
export const SPEAKERS_MAX = limitOf(
  GENERATE,
  'body',
  'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
  'maxItems',
)
/** Section 4.8: temperature 0.0 to 2.0, as the request schema states it. */
export const NATIVE_TEMPERATURE = rangeOf(GENERATE, 'body', 'generationConfig.temperature')
