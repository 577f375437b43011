/** The local input-token estimate (Part 1 §4.6): lower bound from words, headroom for structure, a byte ceiling. */
import { describe, expect, test } from 'vitest'
import { ESTIMATE_HEADROOM as H, estimateInputTokens, wordChunks } from '../../../harness/token-estimate.ts'

describe('estimateInputTokens', () => {
  test('a string input: words for the lower bound, one message and the frame for headroom', () => {
    const e = estimateInputTokens({ model: 'm', input: 'Hello there, general Kenobi!' })
    expect(e.lowerBound).toBe(4)
    expect(e.headroom).toBe(H.frame + H.perMessage)
    expect(e.estimate).toBe(4 + e.headroom)
    expect(e.ceiling).toBe(Buffer.byteLength('Hello there, general Kenobi!') + e.headroom)
  })

  test('instructions, message items, tool traffic, images and files all count', () => {
    const e = estimateInputTokens({
      instructions: 'Be brief.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look at this' },
            { type: 'input_image', image_url: 'https://x/y.png' },
            { type: 'input_file', file_id: 'file-1' },
          ],
        },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{"a": 1}' },
        { type: 'function_call_output', call_id: 'c', output: 'done now' },
      ],
    })
    expect(e.parts).toMatchObject({ words: 2 + 3 + 2 + 2, messages: 4, images: 1, files: 1 })
    expect(e.headroom).toBe(H.frame + 4 * H.perMessage + H.perImage + H.perFile)
  })

  test('tools and schemas are reserved at one token per byte of their JSON', () => {
    const tool = { type: 'function', name: 'f', parameters: { type: 'object' } }
    const schema = { type: 'object', properties: { a: { type: 'string' } } }
    const e = estimateInputTokens({
      input: 'hi',
      tools: [tool],
      text: { format: { type: 'json_schema', name: 's', schema } },
    })
    expect(e.headroom).toBe(
      H.frame + H.perMessage + H.perTool + JSON.stringify(tool).length + JSON.stringify(schema).length,
    )
  })

  test('word chunks are whitespace-separated runs; multi-byte text raises the ceiling, not the bound', () => {
    expect(wordChunks('  a  b\tc\n')).toBe(3)
    const e = estimateInputTokens({ input: 'héllo ✓' })
    expect(e.lowerBound).toBe(2)
    expect(e.ceiling - e.headroom).toBe(Buffer.byteLength('héllo ✓'))
  })
})
