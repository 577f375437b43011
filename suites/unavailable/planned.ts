/**
 * What the suites of the announced but unavailable surfaces share (Part 1 §1.6, §4.6, §4.9). The reference says
 * these surfaces are not available, so a target that answers them with an error is conformant: the shape and
 * rule checks run only where a surface answers 2xx ("offered"), and otherwise end as skipped with the reason
 * "capability absent", after recording what the target answered. Nothing here is billed on a target that does not
 * offer the surfaces; on one that does, the suite creates as little as it can and cancels or deletes it.
 */
import { precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { multipartBody } from '../../harness/worker/multipart.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { runFileName } from '../../harness/worker/run-tag.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { runConfig } from '../../harness/worker/suite.ts'

/** A file id that no target holds: used where uploading a real one could start billable work. */
export const PLACEHOLDER_FILE = 'file-gc-placeholder'

export function isOffered(ex: Exchange): boolean {
  return ex.status >= 200 && ex.status < 300
}

/** How a target answered, for observations and skip reasons: the status and the error code where there is one. */
export function answerOf(ex: Exchange): string {
  const body = ex.json
  const error = isObject(body) ? body.error : undefined
  const code = isObject(error) ? (error.code ?? error.type) : typeof error === 'string' ? error : undefined
  return `${ex.status}${code === undefined || code === null ? '' : ` (${String(code)})`}${ex.jsonError === undefined ? '' : ', not JSON'}`
}

/** Skips the running test unless the probe shows the surface is offered; records what the target answered. */
export function requireOffered(probe: Exchange, surface: string): void {
  const call = `${probe.excerpt.method} ${probe.excerpt.path.split('?')[0]}`
  if (isOffered(probe)) {
    observe('planned surface offered', `${surface}: ${call} answered ${probe.status}`)
    return
  }
  observe('planned surface not offered', `${surface}: ${call} answered ${answerOf(probe)}`)
  skipTest(`capability absent: the target answers ${call} with ${answerOf(probe)}, not the planned surface`)
}

/** The body of a 2xx answer of an offered surface as an object; a non-JSON 2xx is P1-1.6-unavailable-route's. */
export function bodyOf(ex: Exchange): Record<string, unknown> {
  precondition(
    ex.jsonError === undefined && isObject(ex.json),
    'P1-1.6-unavailable-route',
    `${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status} without a JSON object`,
  )
  return ex.json as Record<string, unknown>
}

/** Items of a list answer: the planned shapes say only "list of ...", so a bare array and { data } both count. */
export function listItems(ex: Exchange): unknown[] {
  const body = ex.json
  if (Array.isArray(body)) return body
  if (isObject(body) && Array.isArray(body.data)) return body.data
  return []
}

export function validates(ref: string, value: unknown): boolean {
  return schemas().validate(ref, value).ok
}

/** A one-row JSONL batch input (§4.9: custom_id, one endpoint, one model), uploaded with purpose batch. */
export async function uploadBatchInput(
  api: TargetClient,
  request: { url: string; body: Record<string, unknown> },
): Promise<{ id: string; uploaded: boolean }> {
  const row = { custom_id: 'gc-row-1', method: 'POST', ...request }
  const body = multipartBody([['purpose', 'batch']], {
    filename: runFileName(runConfig().runId, 'batch-input', 'jsonl'),
    contentType: 'application/jsonl',
    content: `${JSON.stringify(row)}\n`,
  })
  const ex = await api.request({
    method: 'POST',
    path: '/v1/files',
    headers: body.headers,
    body: body.chunks,
    bodyNote: body.note,
  })
  const id = isObject(ex.json) && typeof ex.json.id === 'string' ? ex.json.id : undefined
  if (isOffered(ex) && id !== undefined) return { id, uploaded: true }
  observe(
    'batch input file',
    `POST /v1/files answered ${answerOf(ex)}: batches are tried with the placeholder ${PLACEHOLDER_FILE}`,
  )
  return { id: PLACEHOLDER_FILE, uploaded: false }
}

/** Best-effort clean-up of something an offered surface created; the answer is not judged. */
export async function cleanUp(api: TargetClient, method: 'POST' | 'DELETE', path: string): Promise<void> {
  try {
    await api.request({ method, path, ...(method === 'POST' ? { json: {} } : {}) })
  } catch {
    // a target that fails here is judged elsewhere, if at all
  }
}

export function longText(length: number): string {
  return 'g'.repeat(length)
}

export function metadataOf(pairs: number, keyChars = 8, valueChars = 8): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: pairs }, (_, i) => [
      `${String(i).padStart(2, '0')}${'k'.repeat(Math.max(0, keyChars - 2))}`,
      'v'.repeat(valueChars),
    ]),
  )
}
