/**
 * Deterministic simulated models. The same model, instructions and input at temperature 0 always give the same
 * text; above 0 a random salt varies it. Reasoning models spend hidden reasoning tokens first, out of the same
 * budget as visible output (Part 1 §2.5, §4.5 rules 7): when max_output_tokens runs out the generation is
 * incomplete, possibly with no visible text at all.
 */
import { createHash, randomBytes } from 'node:crypto'
import { countTokens, tokenPieces } from './tokenizer.ts'

export interface GenerationRequest {
  model: string
  reasoning: boolean
  instructions?: string | undefined
  /** The conversation flattened to text, oldest first (prior chain context included). */
  input: string
  maxOutputTokens?: number | undefined
  temperature?: number | undefined
}

export interface Generation {
  text: string
  /** The visible text as token pieces, for streaming deltas; joined they give `text`. */
  pieces: string[]
  inputTokens: number
  /** Visible plus reasoning tokens: reasoning is inside output, and broken out separately (§2.5). */
  outputTokens: number
  reasoningTokens: number
  /** `length` when max_output_tokens ran out before the text was complete. */
  finish: 'stop' | 'length'
}

const WORDS = [
  'the',
  'gateway',
  'answers',
  'with',
  'a',
  'simulated',
  'reply',
  'that',
  'is',
  'stable',
  'for',
  'equal',
  'input',
  'and',
  'counts',
  'every',
  'token',
  'it',
  'sends',
  'back',
  'to',
  'you',
]

/** A small deterministic pseudo-random generator (mulberry32), seeded from a hash. */
function prng(seed: Buffer): () => number {
  let state = seed.readUInt32LE(0)
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

function fullText(random: () => number, input: string): string {
  const echo = input.split(/\s+/).filter(Boolean).slice(0, 6).join(' ')
  const sentences: string[] = [echo ? `You said: ${echo}.` : 'Hello.']
  const count = 2 + Math.floor(random() * 3)
  for (let s = 0; s < count; s += 1) {
    const length = 5 + Math.floor(random() * 8)
    const words = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)] as string)
    const sentence = words.join(' ')
    sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`)
  }
  return sentences.join(' ')
}

export function generate(request: GenerationRequest): Generation {
  const salt = (request.temperature ?? 1) > 0 ? randomBytes(8).toString('hex') : ''
  const seed = createHash('sha256')
    .update(`${request.model}\u0000${request.instructions ?? ''}\u0000${request.input}\u0000${salt}`)
    .digest()
  const random = prng(seed)
  const inputTokens = countTokens(request.instructions ?? '') + countTokens(request.input)
  const reasoningWanted = request.reasoning ? 16 + Math.floor(random() * 48) : 0
  const budget = request.maxOutputTokens ?? Number.POSITIVE_INFINITY
  const reasoningTokens = Math.min(reasoningWanted, budget)
  const text = fullText(random, request.input)
  const allPieces = tokenPieces(text)
  const visibleBudget = Math.max(0, budget - reasoningTokens)
  const pieces = allPieces.length <= visibleBudget ? allPieces : allPieces.slice(0, visibleBudget)
  const visible = pieces.join('')
  const visibleTokens = countTokens(visible)
  return {
    text: visible,
    pieces,
    inputTokens,
    outputTokens: visibleTokens + reasoningTokens,
    reasoningTokens,
    finish: pieces.length < allPieces.length || reasoningTokens < reasoningWanted ? 'length' : 'stop',
  }
}
