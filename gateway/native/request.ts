/**
 * The body of generateContent and streamGenerateContent (Part 2 section 4.8), checked and flattened for the
 * simulated models. Explicit rules of the reference are enforced with 400 (section 7 of Part 1: invalid
 * request); where the reference is silent the check follows the provider's own schema loosely (unknown
 * fields and part kinds are accepted, topP 0..1, topK and maxOutputTokens positive integers).
 *
 * Both spellings of the provider's schema are read (system_instruction / systemInstruction, inline_data /
 * inlineData, mime_type / mimeType), as its own API does.
 */
import { invalidParameter } from '../errors.ts'
import { isObject } from '../../common/json.ts'
import type { NativeRules } from './rules.ts'
import { NATIVE_TEMPERATURE, ROLES, SPEAKERS_MAX, THINKING_LEVELS } from './limits.ts'

export interface NativeRequest {
  /** The text of every content, oldest first. */
  input: string
  instructions: string | undefined
  maxOutputTokens: number | undefined
  temperature: number | undefined
  /** Thinking is on unless thinkingBudget is 0 (section 4.8: 0 disables). */
  thinking: boolean
  thinkingConfigSent: boolean
  toolsSent: boolean
  /** mime types of inline_data parts, in order. */
  inlineTypes: string[]
  /** Speaker names of speakerVoiceConfigs, when a multi-speaker config was sent. */
  speakers: string[] | undefined
  /** speechMetadata.speaker of the text parts. */
  speakersInText: string[]
  /** generationConfig.responseMimeType: how a caller asks for raw PCM (audio/L16) instead of WAV. */
  responseMimeType: string | undefined
}

function pick(object: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (object[name] !== undefined) return object[name]
  return undefined
}

function partsOf(value: unknown, where: string): Record<string, unknown>[] {
  if (!Array.isArray(value) || value.length === 0)
    throw invalidParameter(`${where}.parts`, `${where}.parts must be a non-empty array of parts.`)
  return value.map((part, i) => {
    if (!isObject(part)) throw invalidParameter(`${where}.parts[${i}]`, `${where}.parts[${i}] must be an object.`)
    return part
  })
}

function inlineType(part: Record<string, unknown>, where: string, rules: NativeRules): string | undefined {
  if (!rules.inlineDataSpelling && part.inline_data !== undefined) {
    throw invalidParameter(`${where}.inline_data`, `${where}.inline_data is not supported.`)
  }
  const inline = pick(part, 'inline_data', 'inlineData')
  if (inline === undefined) return undefined
  const mime = isObject(inline) ? pick(inline, 'mime_type', 'mimeType') : undefined
  const data = isObject(inline) ? inline.data : undefined
  if (typeof mime !== 'string' || typeof data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
    throw invalidParameter(`${where}.inline_data`, `${where}.inline_data needs mime_type and Base64 data.`)
  }
  return mime
}

function parseContents(body: Record<string, unknown>, rules: NativeRules, out: NativeRequest): void {
  const contents = body.contents
  if (!Array.isArray(contents) || contents.length === 0) {
    if (!rules.contentsRequired && contents === undefined) return
    throw invalidParameter('contents', 'contents is required: a non-empty array of {parts, role}.')
  }
  const texts: string[] = []
  contents.forEach((content, i) => {
    const where = `contents[${i}]`
    if (!isObject(content)) throw invalidParameter(where, `${where} must be an object {parts, role}.`)
    const missing = content.role === undefined
    if (missing ? rules.contentRoleRequired : !ROLES.has(String(content.role)) && rules.checkContentRole) {
      throw invalidParameter(
        `${where}.role`,
        `${where}.role is required and must be user or model; system text goes in system_instruction.`,
      )
    }
    partsOf(content.parts, where).forEach((part, j) => {
      const mime = inlineType(part, `${where}.parts[${j}]`, rules)
      if (mime !== undefined) out.inlineTypes.push(mime)
      if (typeof part.text === 'string') texts.push(part.text)
      const meta = part.speechMetadata
      if (isObject(meta) && typeof meta.speaker === 'string') out.speakersInText.push(meta.speaker)
    })
  })
  out.input = texts.join('\n')
}

function parseSystem(body: Record<string, unknown>, rules: NativeRules): string | undefined {
  const system = pick(body, 'system_instruction', 'systemInstruction')
  if (system === undefined) return undefined
  if (!rules.systemInstruction) throw invalidParameter('system_instruction', 'system_instruction is not supported.')
  if (!isObject(system)) throw invalidParameter('system_instruction', 'system_instruction must be an object {parts}.')
  return partsOf(system.parts, 'system_instruction')
    .flatMap((p) => (typeof p.text === 'string' ? [p.text] : []))
    .join('\n')
}

function integerAtLeast(value: unknown, min: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min
}

function parseThinking(config: Record<string, unknown>, rules: NativeRules, out: NativeRequest): void {
  const thinking = config.thinkingConfig
  if (thinking === undefined) return
  out.thinkingConfigSent = true
  if (!isObject(thinking))
    throw invalidParameter('generationConfig.thinkingConfig', 'thinkingConfig must be an object.')
  const unchecked = !rules.checkThinkingConfig
  const level = thinking.thinkingLevel
  if (typeof level === 'string' && rules.refusedThinkingLevels.includes(level))
    throw invalidParameter('generationConfig.thinkingConfig.thinkingLevel', `thinkingLevel ${level} is not supported.`)
  if (thinking.thinkingLevel !== undefined && !THINKING_LEVELS.has(String(thinking.thinkingLevel)) && !unchecked) {
    throw invalidParameter(
      'generationConfig.thinkingConfig.thinkingLevel',
      'thinkingLevel must be low, medium or high.',
    )
  }
  const budget = thinking.thinkingBudget
  // -1 asks the provider to choose (its own schema); the reference names integers and 0.
  if (budget !== undefined && !integerAtLeast(budget, -1) && !unchecked) {
    throw invalidParameter(
      'generationConfig.thinkingConfig.thinkingBudget',
      'thinkingBudget must be an integer number of tokens (0 disables thinking).',
    )
  }
  if (budget === 0) out.thinking = false
}

function parseSpeech(config: Record<string, unknown>, rules: NativeRules, out: NativeRequest): void {
  const speech = config.speechConfig
  if (speech === undefined) return
  if (!isObject(speech)) throw invalidParameter('generationConfig.speechConfig', 'speechConfig must be an object.')
  const multi = speech.multiSpeakerVoiceConfig
  if (multi === undefined) return
  const configs = isObject(multi) ? multi.speakerVoiceConfigs : undefined
  if (!Array.isArray(configs) || configs.length === 0) {
    throw invalidParameter(
      'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
      'speakerVoiceConfigs must be a non-empty array.',
    )
  }
  if (configs.length > rules.maxSpeakers) {
    throw invalidParameter(
      'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
      `speakerVoiceConfigs takes at most ${SPEAKERS_MAX} speakers.`,
    )
  }
  out.speakers = configs.map((c, i) => {
    if (!isObject(c) || typeof c.speaker !== 'string')
      throw invalidParameter(`speakerVoiceConfigs[${i}].speaker`, 'each speakerVoiceConfig needs a speaker name.')
    return c.speaker
  })
}

function parseGenerationConfig(body: Record<string, unknown>, rules: NativeRules, out: NativeRequest): void {
  const config = pick(body, 'generationConfig', 'generation_config')
  if (config === undefined) return
  if (!isObject(config)) throw invalidParameter('generationConfig', 'generationConfig must be an object.')
  const max = config.maxOutputTokens
  if (max !== undefined) {
    if (!integerAtLeast(max, 1) && rules.checkMaxOutputTokens)
      throw invalidParameter('generationConfig.maxOutputTokens', 'maxOutputTokens must be a positive integer.')
    if (integerAtLeast(max, 1) && (max as number) < rules.minOutputTokens)
      throw invalidParameter(
        'generationConfig.maxOutputTokens',
        `maxOutputTokens must be at least ${rules.minOutputTokens}.`,
      )
    out.maxOutputTokens = Math.max(1, Math.floor(Number(max)) || 1)
  }
  const temperature = config.temperature
  if (temperature !== undefined) {
    const inRange =
      typeof temperature === 'number' && temperature >= NATIVE_TEMPERATURE.min && temperature <= rules.temperatureMax
    if (!inRange && (rules.checkTemperature || typeof temperature !== 'number')) {
      throw invalidParameter(
        'generationConfig.temperature',
        `temperature must be a number from ${NATIVE_TEMPERATURE.min.toFixed(1)} to ${NATIVE_TEMPERATURE.max.toFixed(1)}.`,
      )
    }
    out.temperature = temperature as number
  }
  if (config.topP !== undefined && !(typeof config.topP === 'number' && config.topP >= 0 && config.topP <= 1)) {
    throw invalidParameter('generationConfig.topP', 'topP must be a number from 0 to 1.')
  }
  if (config.stopSequences !== undefined && !rules.stopSequences)
    throw invalidParameter('generationConfig.stopSequences', 'stopSequences is not supported.')
  if (config.topK !== undefined && !integerAtLeast(config.topK, 1))
    throw invalidParameter('generationConfig.topK', 'topK must be a positive integer.')
  if (
    config.stopSequences !== undefined &&
    !(Array.isArray(config.stopSequences) && config.stopSequences.every((s) => typeof s === 'string'))
  ) {
    throw invalidParameter('generationConfig.stopSequences', 'stopSequences must be an array of strings.')
  }
  if (typeof config.responseMimeType === 'string') out.responseMimeType = config.responseMimeType
  parseThinking(config, rules, out)
  parseSpeech(config, rules, out)
}

export function parseNativeRequest(raw: unknown, rules: NativeRules): NativeRequest {
  if (!isObject(raw)) throw invalidParameter('contents', 'The request body must be a JSON object.')
  const out: NativeRequest = {
    input: '',
    instructions: undefined,
    maxOutputTokens: undefined,
    temperature: undefined,
    thinking: true,
    thinkingConfigSent: false,
    toolsSent: Array.isArray(raw.tools) ? raw.tools.length > 0 : raw.tools !== undefined,
    inlineTypes: [],
    speakers: undefined,
    speakersInText: [],
    responseMimeType: undefined,
  }
  parseContents(raw, rules, out)
  out.instructions = parseSystem(raw, rules)
  parseGenerationConfig(raw, rules, out)
  if (raw.safetySettings !== undefined && !Array.isArray(raw.safetySettings))
    throw invalidParameter('safetySettings', 'safetySettings must be an array.')
  if (raw.tools !== undefined && !Array.isArray(raw.tools)) throw invalidParameter('tools', 'tools must be an array.')
  return out
}

/**
 * The newer speech models (section 4.8): text in, audio out. No thinkingConfig, no tools, no image or audio
 * input, and every speechMetadata.speaker names one of speakerVoiceConfigs.
 */
export function checkSpeechRequest(request: NativeRequest, rules: NativeRules, lenient = false): void {
  // lenient (variation lenient-audio-fields): what §4.8 tells callers not to send is accepted and ignored.
  if (request.thinkingConfigSent && rules.speechRefusesThinking && !lenient) {
    throw invalidParameter('generationConfig.thinkingConfig', 'Speech models do not take thinkingConfig.')
  }
  if (request.toolsSent && !lenient) throw invalidParameter('tools', 'Speech models do not take tools.')
  if (request.inlineTypes.length > 0 && rules.speechTextOnly && !lenient) {
    throw invalidParameter('contents', 'Speech models take text only: no image or audio input.')
  }
  if (request.speakersInText.length > 0 && !rules.speechMetadata)
    throw invalidParameter('contents', 'speechMetadata is not supported.')
  const unknown = request.speakersInText.filter((s) => !(request.speakers ?? []).includes(s))
  if (unknown.length > 0 && rules.checkSpeakerMatch && !lenient) {
    throw invalidParameter(
      'contents',
      `speechMetadata.speaker ${unknown.map((s) => `"${s}"`).join(', ')} matches no speaker of speakerVoiceConfigs.`,
    )
  }
  if (request.input.trim() === '') throw invalidParameter('contents', 'Speech models need text to read.')
}
