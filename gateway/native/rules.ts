/** Native interface rules (Part 2 §4.8, §5.1, §5.2), read by request.ts, answer.ts and routes.ts. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { NativeFault } from './faults.ts'
import { NATIVE_TEMPERATURE, SPEAKERS_MAX } from './limits.ts'

export interface NativeRules {
  /** Every call needs a valid key (native-missing-key-allowed serves the main account). */
  readonly keyRequired: boolean
  /** A key is taken as Authorization: Bearer (native-bearer-refused refuses it). */
  readonly bearerKey: boolean
  /** A key is taken in x-native-api-key (native-key-header-refused does not read it). */
  readonly nativeKeyHeader: boolean

  /** contents is required (native-contents-optional answers a body without it). */
  readonly contentsRequired: boolean
  /** A content's role is required (native-role-optional takes an item without it). */
  readonly contentRoleRequired: boolean
  /** A content's role is user or model (native-any-role-accepted takes any other). */
  readonly checkContentRole: boolean
  /** A part's inline_data, the spelling §4.8 gives, is read (native-inline-data-refused refuses it). */
  readonly inlineDataSpelling: boolean
  /** system_instruction is taken (native-system-instruction-refused refuses it). */
  readonly systemInstruction: boolean
  /** temperature past the range is refused (native-temperature-unchecked takes any number). */
  readonly checkTemperature: boolean
  /** The highest temperature taken, 2.0 (native-temperature-2-refused: 1.99). */
  readonly temperatureMax: number
  /** maxOutputTokens is a positive integer (native-max-output-tokens-lenient rounds any value down). */
  readonly checkMaxOutputTokens: boolean
  /** The smallest maxOutputTokens taken, 1 (native-max-output-tokens-min-16: 16, a minimum the words do not give). */
  readonly minOutputTokens: number
  /** stopSequences is taken (native-stop-sequences-refused refuses it). */
  readonly stopSequences: boolean
  /** thinkingLevel and thinkingBudget are checked (native-thinking-config-unchecked takes any). */
  readonly checkThinkingConfig: boolean
  /** Listed thinking levels refused all the same (native-thinking-medium-refused: medium). */
  readonly refusedThinkingLevels: readonly string[]
  /** The most speakerVoiceConfigs (native-three-speakers-accepted: no limit; native-two-speakers-refused: 1). */
  readonly maxSpeakers: number

  /** Speech models refuse thinkingConfig (native-speech-thinking-accepted takes it). */
  readonly speechRefusesThinking: boolean
  /** Speech models take text only (native-speech-image-accepted takes image and audio parts). */
  readonly speechTextOnly: boolean
  /** speechMetadata is taken (native-speech-metadata-refused refuses it). */
  readonly speechMetadata: boolean
  /** speechMetadata.speaker names a speaker of speakerVoiceConfigs (native-speaker-mismatch-accepted takes any). */
  readonly checkSpeakerMatch: boolean
  /** Speech answers WAV unless raw PCM is asked (native-speech-default-pcm swaps the two). */
  readonly speechPcmByDefault: boolean
}

export function nativeRules(faults: FaultSet): NativeRules {
  const bent = bentBy<NativeFault>(faults)
  return {
    keyRequired: !bent('native-missing-key-allowed'),
    bearerKey: !bent('native-bearer-refused'),
    nativeKeyHeader: !bent('native-key-header-refused'),

    contentsRequired: !bent('native-contents-optional'),
    contentRoleRequired: !bent('native-role-optional'),
    checkContentRole: !bent('native-any-role-accepted'),
    inlineDataSpelling: !bent('native-inline-data-refused'),
    systemInstruction: !bent('native-system-instruction-refused'),
    checkTemperature: !bent('native-temperature-unchecked'),
    temperatureMax: NATIVE_TEMPERATURE.max - (bent('native-temperature-2-refused') ? 0.01 : 0),
    checkMaxOutputTokens: !bent('native-max-output-tokens-lenient'),
    minOutputTokens: bent('native-max-output-tokens-min-16') ? 16 : 1,
    stopSequences: !bent('native-stop-sequences-refused'),
    checkThinkingConfig: !bent('native-thinking-config-unchecked'),
    refusedThinkingLevels: bent('native-thinking-medium-refused') ? ['medium'] : [],
    maxSpeakers: bent('native-three-speakers-accepted')
      ? Number.POSITIVE_INFINITY
      : bent('native-two-speakers-refused')
        ? SPEAKERS_MAX - 1
        : SPEAKERS_MAX,

    speechRefusesThinking: !bent('native-speech-thinking-accepted'),
    speechTextOnly: !bent('native-speech-image-accepted'),
    speechMetadata: !bent('native-speech-metadata-refused'),
    checkSpeakerMatch: !bent('native-speaker-mismatch-accepted'),
    speechPcmByDefault: bent('native-speech-default-pcm'),
  }
}
