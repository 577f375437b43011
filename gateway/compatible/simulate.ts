/**
 * Simulated outputs of the other compatible endpoints (Part 1 section 4.8: named, shapes not shown):
 * deterministic embedding vectors and a real, if tiny, PNG image.
 */
import { createHash } from 'node:crypto'

export const EMBEDDING_DIMENSIONS = 64 // small on purpose: the reference gives no size, and tests read every number

/** A unit vector derived from the model and the text: equal input, equal vector. */
export function embed(model: string, text: string, dimensions: number = EMBEDDING_DIMENSIONS): number[] {
  const values: number[] = []
  for (let block = 0; values.length < dimensions; block += 1) {
    const digest = createHash('sha256').update(`${model}\u0000${block}\u0000${text}`).digest()
    for (let i = 0; i + 2 <= digest.length && values.length < dimensions; i += 2)
      values.push(digest.readUInt16LE(i) / 32_768 - 1)
  }
  const norm = Math.hypot(...values) || 1
  return values.map((v) => Math.round((v / norm) * 1e6) / 1e6)
}

/** The vector as base64 of little-endian float32 values, the convention's `encoding_format: base64`. */
export function embeddingBase64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4)
  vector.forEach((value, i) => {
    bytes.writeFloatLE(value, i * 4)
  })
  return bytes.toString('base64')
}

/** A valid 1x1 PNG: enough for a client to decode, small enough for every test. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGOwqdgCAAJcAWlLf+oUAAAAAElFTkSuQmCC'
