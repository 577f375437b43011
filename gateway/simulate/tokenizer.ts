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

/** The ASCII characters by class, so that most texts are counted without a regular expression: the gateway counts
 * every input and answer, some of them hundreds of thousands of characters. */
const WORD = 1
const SPACE = 2
const ASCII = Uint8Array.from({ length: 128 }, (_, code) => {
  const char = String.fromCharCode(code)
  return /[A-Za-z0-9_]/.test(char) ? WORD : /\s/.test(char) ? SPACE : 0
})

export function countTokens(text: string): number {
  let count = 0
  let inWord = false
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i)
    if (code >= 128) return text.match(TOKEN)?.length ?? 0
    const kind = ASCII[code]
    if (kind !== WORD && kind !== SPACE) count += 1
    else if (kind === WORD && !inWord) count += 1
    inWord = kind === WORD
  }
  return count
}
