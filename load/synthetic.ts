/**
 * Synthetic prompts for workload files: text of about N tokens, and token counts drawn from a distribution.
 *
 * A prompt of N tokens is N common English words: tokenizers never merge two words across the space between
 * them (harness/token-estimate.ts: each word is at least one token), and words this common are one token each in
 * the vocabularies in use, so N words is about N tokens.
 */
import { normal } from './engine/arrivals.ts'
import type { TokenSpread } from './workload.ts'

const WORDS = (
  'the of and to in is it that for was on are as with his they at be this from have or by one had not but what ' +
  'all were when we there can an your which their said if do will each about how up out them then she many some so ' +
  'these would other into has more her two like him see time could no make than first been its who now people my ' +
  'made over did down only way find use may water long little very after words called just where most know'
).split(' ')

/** A count from the spread: a normal draw, redrawn a few times when outside [min, max], then cut to it. */
export function sampleTokens(spread: TokenSpread, random: () => number): number {
  if (spread.stddev === 0) return Math.min(spread.max, Math.max(spread.min, Math.round(spread.mean)))
  let x = spread.mean
  for (let tries = 0; tries < 8; tries += 1) {
    x = spread.mean + spread.stddev * normal(random)
    if (x >= spread.min && x <= spread.max) break
  }
  return Math.min(spread.max, Math.max(spread.min, Math.round(x)))
}

/** `tokens` words of text, drawn with `random`. */
export function promptOf(tokens: number, random: () => number): string {
  const out: string[] = new Array<string>(tokens)
  for (let i = 0; i < tokens; i += 1) out[i] = WORDS[Math.floor(random() * WORDS.length)] as string
  return out.join(' ')
}
