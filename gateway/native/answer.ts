/**
 * Native generation answers (Part 2 section 2.5): one response object, or the chunks of a stream, each shaped
 * like it, only the last carrying finishReason (section 4.8). Text models answer through the shared simulated
 * generator; the newer speech models answer audio in inlineData: WAV by default (audio/wav), raw 16-bit PCM at
 * 24 kHz mono as audio/L16 when generationConfig.responseMimeType asks for it. A stream of speech carries raw PCM
 * pieces (audio/L16): WAV is the non-streaming default, and a WAV header cannot be split across chunks.
 *
 * Where the reference is silent: finishReason STOP or MAX_TOKENS and the safety categories are the provider's
 * own words; thoughtsTokenCount (hidden thinking) is reported beside the three counts of section 2.5 and
 * totalTokenCount includes it; an inline image counts 258 prompt tokens.
 */
import { randomBytes } from 'node:crypto'
import type { CatalogueModel } from '../models/catalogue.ts'
import { generate } from '../simulate/generate.ts'
import { countTokens } from '../simulate/tokenizer.ts'
import { pcm16le, speechSeconds, toneSamples, wav } from './audio.ts'
import { withUnknownSizes } from '../audio/wav.ts'
import { AUDIO_TOKENS_PER_SECOND, costUsd, isSpeechModel } from './models.ts'
import type { NativeRequest } from './request.ts'
import type { NativeRules } from './rules.ts'

export const PCM_RATE = 24_000
export const L16_MIME = `audio/L16;codec=pcm;rate=${PCM_RATE}`
const IMAGE_TOKENS = 258

export interface NativeAnswer {
  /** The non-streaming response of section 2.5. */
  response: Record<string, unknown>
  /** The same answer as stream chunks, the last with finishReason. */
  chunks: Record<string, unknown>[]
  usage: { prompt: number; candidates: number; thoughts: number; total: number }
  usd: number
}

const SAFETY_RATINGS = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
].map((category) => ({ category, probability: 'NEGLIGIBLE' }))

function promptTokens(request: NativeRequest): { total: number; details: Record<string, unknown>[] } {
  const text = countTokens(request.instructions ?? '') + countTokens(request.input)
  const images = request.inlineTypes.filter((t) => t.startsWith('image/')).length * IMAGE_TOKENS
  const details: Record<string, unknown>[] = [{ modality: 'TEXT', tokenCount: text }]
  if (images > 0) details.push({ modality: 'IMAGE', tokenCount: images })
  return { total: text + images, details }
}

interface Parts {
  /** Parts of each chunk, in order; joined they are the whole answer's parts. */
  pieces: Record<string, unknown>[][]
  whole: Record<string, unknown>[]
  candidates: number
  thoughts: number
  finish: string
  outputModality: string
}

/**
 * `thinkFirst` (variation native-thinking-first): thinking tokens a reasoning model spends out of maxOutputTokens
 * before any text, unless thinkingBudget 0 turned thinking off. A cap spent on thinking alone leaves a candidate
 * without parts, as the provider answers it.
 */
function textParts(model: CatalogueModel, request: NativeRequest, thinkFirst: number): Parts {
  const cap = request.maxOutputTokens
  const first = model.reasoning === true && request.thinking ? Math.min(thinkFirst, cap ?? thinkFirst) : 0
  const generation = generate({
    model: model.id,
    reasoning: model.reasoning === true && request.thinking,
    instructions: request.instructions,
    input: request.input,
    maxOutputTokens: cap === undefined ? undefined : cap - first,
    temperature: request.temperature,
  })
  const size = Math.max(1, Math.ceil(generation.pieces.length / 4))
  const groups: string[] = []
  for (let i = 0; i < generation.pieces.length; i += size) groups.push(generation.pieces.slice(i, i + size).join(''))
  const thoughtOnly = first > 0 && groups.length === 0
  if (groups.length === 0) groups.push('')
  return {
    pieces: thoughtOnly ? [[]] : groups.map((text) => [{ text }]),
    whole: thoughtOnly ? [] : [{ text: generation.text }],
    candidates: generation.outputTokens - generation.reasoningTokens,
    thoughts: generation.reasoningTokens + first,
    finish: generation.finish === 'length' || thoughtOnly ? 'MAX_TOKENS' : 'STOP',
    outputModality: 'TEXT',
  }
}

/** The default WAV answer, as a streaming encoder writes it under the variation streaming-wav. */
function speechWav(pcm: Buffer, streamingWav: boolean): Buffer {
  return streamingWav ? withUnknownSizes(wav(pcm, PCM_RATE)) : wav(pcm, PCM_RATE)
}

/** `streamingWav` (variation streaming-wav): the WAV's sizes written as unknown, as a streaming encoder writes them. */
function speechParts(request: NativeRequest, rules: NativeRules, streamingWav: boolean): Parts {
  const seconds = speechSeconds(request.input)
  const pcm = pcm16le(toneSamples(seconds, PCM_RATE))
  const wantsPcm = /^audio\/(l16|pcm)\b/i.test(request.responseMimeType ?? '') !== rules.speechPcmByDefault
  const whole = wantsPcm
    ? { mimeType: L16_MIME, data: pcm.toString('base64') }
    : { mimeType: 'audio/wav', data: speechWav(pcm, streamingWav).toString('base64') }
  // Stream pieces: whole samples (an even number of bytes) in three parts.
  const third = Math.ceil(pcm.length / 6) * 2
  const pieces = [0, 1, 2].map((k) => [
    { inlineData: { mimeType: L16_MIME, data: pcm.subarray(k * third, (k + 1) * third).toString('base64') } },
  ])
  return {
    pieces,
    whole: [{ inlineData: whole }],
    candidates: Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND),
    thoughts: 0,
    finish: 'STOP',
    outputModality: 'AUDIO',
  }
}

export function answerNative(
  model: CatalogueModel,
  request: NativeRequest,
  rules: NativeRules,
  choices: { streamingWav: boolean; thinkFirst: number } = { streamingWav: false, thinkFirst: 0 },
): NativeAnswer {
  const prompt = promptTokens(request)
  const parts = isSpeechModel(model)
    ? speechParts(request, rules, choices.streamingWav)
    : textParts(model, request, choices.thinkFirst)
  // The provider's own answer when nothing but thinking came: no parts, and no candidatesTokenCount.
  const content = parts.whole.length === 0 ? { role: 'model' } : { parts: parts.whole, role: 'model' }
  const candidatesCount = parts.whole.length === 0 ? {} : { candidatesTokenCount: parts.candidates }
  const total = prompt.total + parts.candidates + parts.thoughts
  const usageMetadata: Record<string, unknown> = {
    promptTokenCount: prompt.total,
    ...candidatesCount,
    totalTokenCount: total,
    promptTokensDetails: prompt.details,
    candidatesTokensDetails: [{ modality: parts.outputModality, tokenCount: parts.candidates }],
    ...(parts.thoughts > 0 ? { thoughtsTokenCount: parts.thoughts } : {}),
  }
  const head = { modelVersion: model.id, responseId: randomBytes(16).toString('base64url') }
  const response: Record<string, unknown> = {
    candidates: [
      {
        content,
        finishReason: parts.finish,
        index: 0,
        safetyRatings: SAFETY_RATINGS,
      },
    ],
    usageMetadata,
    ...head,
  }
  const chunks = parts.pieces.map((piece, i): Record<string, unknown> => {
    const last = i === parts.pieces.length - 1
    const share = last ? parts.candidates : Math.floor((parts.candidates * (i + 1)) / parts.pieces.length)
    return {
      candidates: [
        {
          content: piece.length === 0 ? { role: 'model' } : { parts: piece, role: 'model' },
          ...(last ? { finishReason: parts.finish } : {}),
          index: 0,
          ...(last ? { safetyRatings: SAFETY_RATINGS } : {}),
        },
      ],
      usageMetadata: {
        promptTokenCount: prompt.total,
        ...(piece.length === 0 ? {} : { candidatesTokenCount: share }),
        totalTokenCount: prompt.total + share + (last ? parts.thoughts : 0),
      },
      ...head,
    }
  })
  const usage = { prompt: prompt.total, candidates: parts.candidates, thoughts: parts.thoughts, total }
  return { response, chunks, usage, usd: costUsd(model, prompt.total, parts.candidates + parts.thoughts) }
}
