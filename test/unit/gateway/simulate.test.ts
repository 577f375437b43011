/** The simulated models: deterministic at temperature 0, usage that adds up, the output budget (Part 1 §2.5, §4.5). */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { generate } from '../../../gateway/simulate/generate.ts'
import { countTokens, tokenPieces } from '../../../gateway/simulate/tokenizer.ts'

describe('tokenizer', () => {
  test('words, numbers and punctuation marks are tokens; pieces join back to the text', () => {
    expect(countTokens('Hello, world! 42 times.')).toBe(7)
    for (const text of ['Hello, world!', '  leading space', 'trailing  ', 'héllo ✓ ok', '', 'one']) {
      expect(tokenPieces(text).join('')).toBe(text)
    }
  })

  test('the count is the number of pieces, ASCII or not (the count reads ASCII without the expression)', () => {
    const texts = fc.oneof(fc.string({ unit: 'binary-ascii' }), fc.string({ unit: 'grapheme' }), fc.string())
    fc.assert(
      fc.property(texts, (text) => {
        expect(countTokens(text)).toBe(tokenPieces(text).filter((piece) => piece.trim() !== '').length)
      }),
      { numRuns: 500 },
    )
    expect(countTokens('a_b\tc\x00d\u00a0e')).toBe(5)
  })
})

describe('generate', () => {
  const base = { model: 'gw-chat', reasoning: false, input: 'What is a gateway?', temperature: 0 }

  test('the same request at temperature 0 gives the same text and usage', () => {
    expect(generate(base)).toEqual(generate(base))
    expect(generate(base).text).not.toEqual(generate({ ...base, input: 'Something else' }).text)
  })

  test('usage: input counts instructions and input; output counts the visible text', () => {
    const g = generate({ ...base, instructions: 'Be brief.' })
    expect(g.inputTokens).toBe(countTokens('Be brief.') + countTokens(base.input))
    expect(g.outputTokens).toBe(countTokens(g.text))
    expect(g.pieces.join('')).toBe(g.text)
    expect(g.finish).toBe('stop')
  })

  test('max_output_tokens cuts the text and says length', () => {
    const g = generate({ ...base, maxOutputTokens: 3 })
    expect(g.outputTokens).toBe(3)
    expect(g.finish).toBe('length')
  })

  test('reasoning tokens are inside output and come out of the same budget', () => {
    const full = generate({ ...base, reasoning: true })
    expect(full.reasoningTokens).toBeGreaterThan(0)
    expect(full.outputTokens).toBe(countTokens(full.text) + full.reasoningTokens)
    const starved = generate({ ...base, reasoning: true, maxOutputTokens: 5 })
    expect(starved).toMatchObject({ text: '', outputTokens: 5, reasoningTokens: 5, finish: 'length' })
  })
})
