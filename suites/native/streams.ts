/**
 * Reading streamGenerateContent (Part 2 §4.8): "streamed in chunks", framing not stated. Server-sent events
 * (one JSON chunk per data event; named events of other types are ignored, §9.2 of Part 1) and a JSON array of
 * chunks are both accepted; a single JSON object counts as a stream of one chunk. Which framing the target used
 * is recorded.
 */
import { fail } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { eventJson } from '../../harness/worker/sse.ts'

interface Chunks {
  framing: 'sse' | 'json-array' | 'json-object'
  chunks: unknown[]
}

export function chunksOf(ex: Exchange, asked: string): Chunks {
  if (ex.stream !== undefined) {
    const chunks: unknown[] = []
    for (const event of ex.stream.events) {
      if (event.event !== undefined && event.event !== 'message') continue
      if (event.data.trim() === '[DONE]') continue
      const parsed = eventJson(event)
      if (!parsed.ok)
        fail('every data event of the stream to be a JSON chunk', `event ${event.index}: ${parsed.error}`, ex)
      chunks.push(parsed.value)
    }
    observe('native stream framing', `${asked}: server-sent events, ${chunks.length} chunks`)
    return { framing: 'sse', chunks }
  }
  const body = ex.json
  if (Array.isArray(body)) {
    observe('native stream framing', `${asked}: a JSON array of ${body.length} chunks`)
    return { framing: 'json-array', chunks: body }
  }
  if (isObject(body)) {
    observe('native stream framing', `${asked}: a single JSON object`)
    return { framing: 'json-object', chunks: [body] }
  }
  return fail(
    'chunks as server-sent events or a JSON array',
    ex.jsonError ? `neither (${ex.header('content-type') ?? 'no content-type'}; ${ex.jsonError})` : 'neither',
    ex,
  )
}

/** finishReason of a chunk's first candidate, or undefined. */
export function finishOf(chunk: unknown): unknown {
  const candidate = isObject(chunk) && Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined
  return isObject(candidate) ? candidate.finishReason : undefined
}
