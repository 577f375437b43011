/**
 * The other compatible endpoints (Part 1 §4.8): named by the reference, with no shapes shown. Each entry gives a
 * minimal request of the widely used convention (the messages endpoint follows the other widely used one), which
 * the suite uses only to reach the rules the reference does state; what comes back is recorded, not judged.
 */
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'

export interface Endpoint {
  path: string
  /** The model mode a request to it names (§2.3). */
  mode: string
  /** A minimal valid request for a model of that mode. */
  body: (model: string) => Record<string, unknown>
  /** The same request without the field the convention requires, and that field's name. */
  missing: { field: string; body: (model: string) => Record<string, unknown> }
  /** False for image edits: a valid request needs a stored image, which this suite does not upload. */
  servedCheck: boolean
}

export const ENDPOINTS: readonly Endpoint[] = [
  {
    path: '/v1/images/generations',
    mode: 'image_generation',
    servedCheck: true,
    body: (model) => ({ model, prompt: 'A small red square on a white background.', n: 1 }),
    missing: { field: 'prompt', body: (model) => ({ model, n: 1 }) },
  },
  {
    path: '/v1/images/edits',
    mode: 'image_generation',
    servedCheck: false,
    // §4.4: the image-edit endpoint references stored files by file_id; this one does not exist.
    body: (model) => ({ model, prompt: 'Make the square blue.', image: 'file-gc-placeholder' }),
    missing: { field: 'prompt', body: (model) => ({ model, image: 'file-gc-placeholder' }) },
  },
  {
    path: '/v1/embeddings',
    mode: 'embedding',
    servedCheck: true,
    body: (model) => ({ model, input: 'gateway conformance' }),
    missing: { field: 'model', body: () => ({ input: 'gateway conformance' }) },
  },
  {
    path: '/v1/completions',
    mode: 'completion',
    servedCheck: true,
    body: (model) => ({ model, prompt: 'Say hello.', max_tokens: 8 }),
    missing: { field: 'model', body: () => ({ prompt: 'Say hello.', max_tokens: 8 }) },
  },
  {
    path: '/v1/messages',
    mode: 'chat',
    servedCheck: true,
    body: (model) => ({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Say hello.' }] }),
    missing: { field: 'model', body: () => ({ max_tokens: 16, messages: [{ role: 'user', content: 'Say hello.' }] }) },
  },
]

/** A short account of a JSON body for observations: its top-level fields, and an error's type and code. */
export function describeBody(ex: Exchange): string {
  const body = ex.json
  if (ex.jsonError !== undefined) return `status ${ex.status}, not JSON (${ex.text.slice(0, 60)})`
  if (!isObject(body)) return `status ${ex.status}, JSON ${Array.isArray(body) ? 'array' : typeof body}`
  const error = body.error
  const errorPart = isObject(error)
    ? `; error { ${Object.keys(error).join(', ')} } type ${String(error.type)}, code ${String(error.code)}`
    : typeof error === 'string'
      ? `; error "${error}"`
      : ''
  return `status ${ex.status}, fields ${Object.keys(body).join(', ')}${errorPart}`
}
