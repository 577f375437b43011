/**
 * The reference gateway's tokenizer: a word, a number or one punctuation mark is one token. Real models count
 * differently; what matters to the reference (Part 1 §2.5, §4.6) is that counting is deterministic, that usage
 * adds up, and that a client's local lower-bound estimate can be reconciled with it. Documented in gateway/README.md.
 */

const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu

/** The tokens of a text, each with the whitespace that follows it, so that joining them gives the text back. */
export function tokenPieces(text: string): string[] {
  const pieces: string[] = []
  const leading = /^\s*/.exec(text)?.[0] ?? ''
  let last = leading.length
  const matches = [...text.matchAll(TOKEN)]
  matches.forEach((match, i) => {
    const end = i + 1 < matches.length ? (matches[i + 1]?.index as number) : text.length
    pieces.push(text.slice(i === 0 ? 0 : (match.index as number), end))
    last = end
  })
  if (pieces.length === 0 && text !== '') return [text]
  if (last < text.length) pieces.push(text.slice(last))
  return pieces
}

export function countTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0
}
