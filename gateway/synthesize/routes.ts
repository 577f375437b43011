/**
 * Native speech synthesis (Part 2 sections 2.6, 4.9, 5.3, 7): POST /v1/text:synthesize with Bearer only (the
 * route does not declare nativeKeyHeader, so x-native-api-key is no key here), for <tts_flash_model> and
 * <tts_pro_model> (nv-tts-flash, nv-tts-pro). Errors answer { error: { code, message, status } }.
 *
 * Where the reference is loose or silent:
 * - input.text and input.prompt: "about 4000 bytes" each; the gateway enforces 4000 UTF-8 bytes with 413 (text
 *   too large). Section 7's sample error cites 900 bytes; the 4000 of the field table is the rule stated twice.
 * - LINEAR16 answers a WAV file (RIFF header, 16-bit mono at the asked rate, default 24000), as the
 *   provider does; MULAW and ALAW answer WAV too (format 7 and 6, 8-bit, 8000 Hz); MP3 answers MPEG-2 Layer III
 *   frames at 24 kHz; OGG_OPUS an Ogg Opus stream. audioConfig echoes the encoding and the rate of the audio
 *   (24000 for MP3 and OGG_OPUS, whose rate is automatic).
 * - timepoints is an empty array: no time pointing was asked (the request field for it is not shown).
 * - languageCode is checked for a BCP-47 shape only.
 */
import type { FastifyInstance } from 'fastify'
import { chargeUsd } from '../account/billing.ts'
import { type CatalogueModel, findModel } from '../models/catalogue.ts'
import { requireCaller } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { requireTier } from '../models/access.ts'
import { AUTOMATIC_RATE, g711, mp3, oggOpus, pcm16le, speechSeconds, toneSamples, wav } from '../native/audio.ts'
import { nativeErrorDialect } from '../native/errors.ts'
import { AUDIO_TOKENS_PER_SECOND, costUsd, SYNTHESIZE_MODELS } from '../native/models.ts'
import { countTokens } from '../simulate/tokenizer.ts'
import type { GatewayState } from '../state.ts'
import { isObject } from '../../common/json.ts'
import { valuesOf, valuesWhen } from '../../common/request-schemas.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { SYNTHESIZE_ANSWER_RESHAPES } from './reshapes.ts'
import { REAL_NAMES } from '../variations.ts'
import { type SynthesizeRules, synthesizeRules } from './rules.ts'

export const SYNTHESIZE_LIMITS = {
  textBytes: 4000, // input.text, "about 4000 bytes" (section 4.9)
  promptBytes: 4000, // input.prompt, the same
}

const SYNTHESIZE = 'POST /v1/text:synthesize'
/** Section 4.9: the encodings, as the request schema lists them. */
export const ENCODINGS: readonly string[] = valuesOf(SYNTHESIZE, 'body', 'audioConfig.audioEncoding')
type Encoding = string
/** Section 4.9: the rates each encoding takes, as the schema's branch for it lists them; undefined: automatic. */
export const RATES: Readonly<Record<Encoding, readonly number[] | undefined>> = Object.fromEntries(
  ENCODINGS.map((encoding) => [
    encoding,
    valuesWhen<number>(SYNTHESIZE, 'body', 'audioConfig.sampleRateHertz', { audioEncoding: encoding }),
  ]),
)
const BCP47 = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/

export function registerSynthesizeRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, SYNTHESIZE_ANSWER_RESHAPES)
    registerRoutes(scope, state)
  })
}

/** The rules and the choices real providers make where §2.6, §4.9 and §7 leave them open (gateway/variations.ts). */
interface Synthesis {
  rules: SynthesizeRules
  ceiling: number
  rawAudio: boolean
  anyRate: boolean
  lenientEnums: boolean
  /** Variation real-names: the two models also answer under their makers' names. */
  aliases: ReadonlyMap<string, string>
}

function readSynthesis(state: GatewayState): Synthesis {
  const { variations } = state
  const rules = synthesizeRules(state.faults)
  const fieldCeiling = variations.has('synthesis-ceiling-5000') ? 5000 : SYNTHESIZE_LIMITS.textBytes
  return {
    rules,
    ceiling: rules.textCeilingBytes ?? fieldCeiling,
    rawAudio: variations.has('raw-synthesis-audio'),
    anyRate: variations.has('synthesis-any-rate'),
    lenientEnums: variations.has('lenient-enums'),
    aliases: new Map(
      variations.has('real-names')
        ? [
            [REAL_NAMES['<tts_flash_model>'] ?? '', 'nv-tts-flash'],
            [REAL_NAMES['<tts_pro_model>'] ?? '', 'nv-tts-pro'],
          ]
        : [],
    ),
  }
}

function registerRoutes(app: FastifyInstance, state: GatewayState): void {
  const synthesis = readSynthesis(state)
  const { rules } = synthesis
  app.post(
    '/v1/text:synthesize',
    {
      config: { nativeKeyHeader: rules.nativeKeyHeader },
      ...(rules.nativeErrorBody ? { preSerialization: nativeErrorDialect } : {}),
    },
    async (request) => {
      const context = state.contexts.of(request)
      const caller = requireCaller(context)
      const body = isObject(request.body) ? request.body : {}
      const input = isObject(body.input) ? body.input : {}
      const voice = isObject(body.voice) ? body.voice : {}
      const audioConfig = isObject(body.audioConfig) ? body.audioConfig : {}

      const modelName = voice.model_name
      if (typeof modelName !== 'string' || modelName === '')
        throw invalidParameter('voice.model_name', 'voice.model_name is required.')
      context.model = modelName
      const model = readModel(modelName, synthesis)
      requireTier(model, caller)
      context.admitModel?.(model)
      const { text, prompt } = readInput(input, synthesis)
      readLanguage(voice)
      checkSpeakers(voice)
      const encoding = readEncoding(audioConfig, synthesis)
      const rate = sampleRate(encoding, audioConfig.sampleRateHertz as number | undefined, synthesis)

      const seconds = speechSeconds(text)
      const audio = encode(encoding, rate, seconds, synthesis.rawAudio)
      const inputTokens = countTokens(text) + countTokens(prompt ?? '')
      const outputTokens = Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND)
      context.tokens = {
        total: inputTokens + outputTokens,
        prompt: inputTokens,
        completion: outputTokens,
        reasoning: 0,
        cached: 0,
      }
      chargeUsd(caller.account, costUsd(model, inputTokens, outputTokens))
      return {
        audioContent: audio.toString('base64'),
        timepoints: [],
        audioConfig: { audioEncoding: encoding, sampleRateHertz: rate },
      }
    },
  )
}

/** voice.model_name: one of the two synthesis models (or an alias a variation gives them). */
function readModel(modelName: string, synthesis: Synthesis): CatalogueModel {
  const known = SYNTHESIZE_MODELS.has(modelName)
    ? modelName
    : synthesis.aliases.has(modelName)
      ? synthesis.aliases.get(modelName)
      : synthesis.rules.unknownModelAs
  const refused = known !== undefined && synthesis.rules.refusedModels.includes(known)
  const model = known === undefined || refused ? undefined : findModel(known)
  if (!model)
    throw invalidParameter(
      'voice.model_name',
      `voice.model_name must be one of ${[...SYNTHESIZE_MODELS].join(', ')}; newer speech models are not sent here.`,
    )
  return model
}

/** input.text (required) and input.prompt (optional), each within its ceiling in UTF-8 bytes. */
function readInput(input: Record<string, unknown>, synthesis: Synthesis): { text: string; prompt: string | undefined } {
  const { rules, ceiling } = synthesis
  const tooLarge = (field: string, bytes: number, limit: number): GatewayError =>
    new GatewayError(rules.tooLargeStatus, `${field} is ${bytes} bytes; the limit is ${limit} bytes.`, {
      param: field,
    })
  const text = input.text
  if (typeof text !== 'string' || text === '') throw invalidParameter('input.text', 'input.text is required.')
  const textBytes = Buffer.byteLength(text, 'utf8')
  if (textBytes > ceiling) throw tooLarge('input.text', textBytes, ceiling)
  // A string where given: the request schema's type (request-validation.ts).
  const prompt = input.prompt as string | undefined
  if (prompt !== undefined && !rules.prompt) throw invalidParameter('input.prompt', 'input.prompt is not supported.')
  const promptBytes = Buffer.byteLength(prompt ?? '', 'utf8')
  if (promptBytes > SYNTHESIZE_LIMITS.promptBytes)
    throw tooLarge('input.prompt', promptBytes, SYNTHESIZE_LIMITS.promptBytes)
  return { text, prompt }
}

/** A string the schema has judged; absent only where a fault lifts the requirement. */
function readLanguage(voice: Record<string, unknown>): void {
  const language = voice.languageCode as string | undefined
  if (language === undefined || BCP47.test(language)) return
  throw invalidParameter('voice.languageCode', 'voice.languageCode must be a BCP-47 language tag such as en-US.')
}

function readEncoding(audioConfig: Record<string, unknown>, synthesis: Synthesis): Encoding {
  const { rules } = synthesis
  // Variation lenient-enums: the enum read without regard to case, as some JSON enum parsers do.
  const asked =
    synthesis.lenientEnums && typeof audioConfig.audioEncoding === 'string'
      ? audioConfig.audioEncoding.toUpperCase()
      : audioConfig.audioEncoding
  if (typeof asked === 'string' && rules.refusedEncodings.includes(asked))
    throw invalidParameter('audioConfig.audioEncoding', `audioConfig.audioEncoding ${asked} is not supported.`)
  const unknownAccepted = !rules.checkEncoding && typeof asked === 'string' && asked !== ''
  if (!ENCODINGS.includes(asked as Encoding) && !unknownAccepted) {
    throw invalidParameter(
      'audioConfig.audioEncoding',
      `audioConfig.audioEncoding is required: one of ${ENCODINGS.join(', ')}.`,
    )
  }
  return ENCODINGS.includes(asked as Encoding) ? (asked as Encoding) : 'LINEAR16'
}

/** `asked`: an integer where given, the request schema's type (request-validation.ts). */
function sampleRate(encoding: Encoding, asked: number | undefined, synthesis: Synthesis): number {
  const allowed = RATES[encoding]
  if (asked === undefined) return allowed?.includes(AUTOMATIC_RATE) ? AUTOMATIC_RATE : (allowed?.[0] ?? AUTOMATIC_RATE)
  // The schema leaves a rate of 0 or less open but for the encodings that list theirs.
  if (asked <= 0)
    throw invalidParameter('audioConfig.sampleRateHertz', 'audioConfig.sampleRateHertz must be a positive integer.')
  if (allowed === undefined) return AUTOMATIC_RATE
  if (synthesis.rules.refusedRates.includes(asked))
    throw invalidParameter('audioConfig.sampleRateHertz', `${encoding} does not take ${asked} Hz.`)
  if (!allowed.includes(asked)) {
    // Variation synthesis-any-rate: the backend resamples to whatever rate is asked.
    if (!synthesis.rules.checkSampleRate || synthesis.anyRate) return asked
    throw invalidParameter('audioConfig.sampleRateHertz', `${encoding} takes sampleRateHertz ${allowed.join(', ')}.`)
  }
  return asked
}

/** `rawAudio` (variation raw-synthesis-audio): LINEAR16, MULAW and ALAW as bare samples, without a WAV header. */
function encode(encoding: Encoding, rate: number, seconds: number, rawAudio: boolean): Buffer {
  if (encoding === 'MP3') return mp3(seconds)
  if (encoding === 'OGG_OPUS') return oggOpus(seconds)
  const samples = toneSamples(seconds, rate)
  if (encoding === 'MULAW') return rawAudio ? g711(samples, 'mulaw') : wav(g711(samples, 'mulaw'), rate, 7)
  if (encoding === 'ALAW') return rawAudio ? g711(samples, 'alaw') : wav(g711(samples, 'alaw'), rate, 6)
  return rawAudio ? pcm16le(samples) : wav(pcm16le(samples), rate)
}

function checkSpeakers(voice: Record<string, unknown>): void {
  const multi = voice.multiSpeakerVoiceConfig
  if (multi === undefined) return
  const configs = isObject(multi) ? multi.speakerVoiceConfigs : undefined
  const valid =
    Array.isArray(configs) &&
    configs.length > 0 &&
    configs.every((c) => isObject(c) && typeof c.speakerAlias === 'string' && typeof c.speakerId === 'string')
  if (!valid)
    throw invalidParameter(
      'voice.multiSpeakerVoiceConfig.speakerVoiceConfigs',
      'speakerVoiceConfigs must be a non-empty array of {speakerAlias, speakerId}.',
    )
}
