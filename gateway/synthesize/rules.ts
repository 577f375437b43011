/** text:synthesize rules (Part 2 §4.9, §5.3, §7), read by routes.ts. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { SynthesizeFault } from './faults.ts'

export interface SynthesizeRules {
  /** x-native-api-key read as a key: not here, where keys are Bearer only (synthesize-native-key-accepted reads it). */
  readonly nativeKeyHeader: boolean
  /** Errors answer the native body { error: { code, message, status } } (synthesize-compatible-error-body). */
  readonly nativeErrorBody: boolean
  /** Only the two synthesis models; otherwise the model others are served by (synthesize-unknown-model-accepted). */
  readonly unknownModelAs: string | undefined
  /** Synthesis models refused all the same (synthesize-pro-model-refused: nv-tts-pro). */
  readonly refusedModels: readonly string[]
  /** input.text's ceiling in bytes; undefined: the field table's (synthesize-ceiling-900: 900). */
  readonly textCeilingBytes: number | undefined
  /** The status of text over the ceiling, 413 (synthesize-too-large-400: 400). */
  readonly tooLargeStatus: 400 | 413
  /** input.prompt is taken (synthesize-prompt-refused refuses it). */
  readonly prompt: boolean
  /** Listed encodings refused all the same (synthesize-ogg-opus-refused: OGG_OPUS). */
  readonly refusedEncodings: readonly string[]
  /** audioEncoding is one of the five (synthesize-unknown-encoding-accepted answers others as LINEAR16). */
  readonly checkEncoding: boolean
  /** Listed rates refused all the same (synthesize-48000-refused: 48000). */
  readonly refusedRates: readonly number[]
  /** sampleRateHertz is one the encoding takes (synthesize-any-rate-accepted takes any). */
  readonly checkSampleRate: boolean
}

export function synthesizeRules(faults: FaultSet): SynthesizeRules {
  const bent = bentBy<SynthesizeFault>(faults)
  return {
    nativeKeyHeader: bent('synthesize-native-key-accepted'),
    nativeErrorBody: !bent('synthesize-compatible-error-body'),
    unknownModelAs: bent('synthesize-unknown-model-accepted') ? 'nv-tts-flash' : undefined,
    refusedModels: bent('synthesize-pro-model-refused') ? ['nv-tts-pro'] : [],
    textCeilingBytes: bent('synthesize-ceiling-900') ? 900 : undefined,
    tooLargeStatus: bent('synthesize-too-large-400') ? 400 : 413,
    prompt: !bent('synthesize-prompt-refused'),
    refusedEncodings: bent('synthesize-ogg-opus-refused') ? ['OGG_OPUS'] : [],
    checkEncoding: !bent('synthesize-unknown-encoding-accepted'),
    refusedRates: bent('synthesize-48000-refused') ? [48_000] : [],
    checkSampleRate: !bent('synthesize-any-rate-accepted'),
  }
}
