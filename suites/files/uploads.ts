/**
 * Uploading files for the files suites (Part 1 §4.4), and cleaning up after them: every file a run creates has
 * the run id in its name (`gc-<runId>-...`) and is deleted in afterAll, whether or not its test passed. Bodies are
 * streamed multipart (harness/worker/multipart.ts), so an upload of any size costs no memory.
 */
import { expectRefused, expectStatus } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { KeyUse } from '../../harness/exchange.ts'
import { mapLimit } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { multipartBody, type MultipartBody, type PartContent } from '../../harness/worker/multipart.ts'
import { runFileName } from '../../harness/worker/run-tag.ts'
import { perFile, runConfig } from '../../harness/worker/suite.ts'
import { valuesOf } from '../../common/request-schemas.ts'

/** The purposes SUITED has a file for; the ones uploaded are those the request schema lists (section 4.4). */
export type Purpose = 'assistants' | 'batch' | 'fine-tune' | 'vision' | 'user_data' | 'evals' | 'others'
/** Section 4.4, in the order the reference lists them, read from the request schema. */
export const PURPOSES: readonly Purpose[] = valuesOf<Purpose>('POST /v1/files', 'body', 'purpose')

/** A 1x1 PNG: the smallest real image, for the vision purpose. */
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)

/** Content that suits each purpose (§4.4 purpose rules): JSONL where JSONL is the rule, an image for vision. */
const SUITED: Readonly<Record<Purpose, { ext: string; contentType: string; content: PartContent }>> = {
  assistants: { ext: 'txt', contentType: 'text/plain', content: 'Notes for a hosted retrieval surface.\n' },
  batch: {
    ext: 'jsonl',
    contentType: 'application/jsonl',
    content: `${JSON.stringify({ custom_id: 'gc-1', method: 'POST', url: '/v1/responses', body: { model: 'gc-model', input: 'Hello' } })}\n`,
  },
  'fine-tune': {
    ext: 'jsonl',
    contentType: 'application/jsonl',
    content: `${JSON.stringify({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ],
    })}\n`,
  },
  vision: { ext: 'png', contentType: 'image/png', content: PNG_1X1 },
  user_data: { ext: 'txt', contentType: 'text/plain', content: { size: 1500 } },
  evals: {
    ext: 'jsonl',
    contentType: 'application/jsonl',
    content: `${JSON.stringify({ item: { input: 'What is 2+2?', expected: '4' } })}\n`,
  },
  others: { ext: 'bin', contentType: 'application/octet-stream', content: { size: 2048, pattern: '\u0000\u0001gc' } },
}

export interface UploadSpec {
  /** Part of the filename after `gc-<runId>-`. */
  label: string
  /** The purpose field; undefined sends none. */
  purpose?: string
  /** expires_after; a member left out is not sent. */
  expiresAfter?: { anchor?: string; seconds?: string }
  /**
   * How a form carries the object (§4.4 does not show it): the fields expires_after[anchor] and
   * expires_after[seconds] (default), or one field expires_after holding JSON text.
   */
  expiryForm?: ExpiryForm
  /** The file part; null sends none. Default: content that suits the purpose. */
  file?: { ext: string; contentType: string; content: PartContent } | null
  /** The key; null sends none. */
  key?: KeyUse
  timeoutMs?: number
  /** Retry a 429 with backoff (default true); the tier limit checks turn it off to see every refusal. */
  retry429?: boolean
}

export type ExpiryForm = 'fields' | 'json'

/** expires_after as one JSON text: seconds as a JSON number where it reads as one, so that 86400.5 stays a fraction. */
function expiryJson(policy: { anchor?: string; seconds?: string }): string {
  const seconds =
    policy.seconds !== undefined && Number.isFinite(Number(policy.seconds)) ? Number(policy.seconds) : policy.seconds
  return JSON.stringify({
    ...(policy.anchor === undefined ? {} : { anchor: policy.anchor }),
    ...(seconds === undefined ? {} : { seconds }),
  })
}

export interface Upload {
  ex: Exchange
  body: MultipartBody
  filename: string
  purpose: string | undefined
  /** Our clock when the request was sent, in milliseconds. */
  sentAt: number
  /** The id the target gave, when it answered with a file object. */
  id: string | undefined
}

/** Ids of files this test file created and has not deleted yet, with the key that owns each. */
const created = perFile(() => new Map<string, KeySlot>())

function fileName(label: string, ext: string): string {
  return runFileName(runConfig().runId, label, ext)
}

export async function upload(api: TargetClient, spec: UploadSpec): Promise<Upload> {
  const suited =
    spec.purpose !== undefined && (PURPOSES as readonly string[]).includes(spec.purpose)
      ? SUITED[spec.purpose as Purpose]
      : SUITED.user_data
  const file = spec.file === undefined ? suited : spec.file
  const filename = fileName(spec.label, file?.ext ?? 'none')
  const fields: Array<[string, string]> = []
  if (spec.purpose !== undefined) fields.push(['purpose', spec.purpose])
  if (spec.expiresAfter !== undefined && spec.expiryForm === 'json') {
    fields.push(['expires_after', expiryJson(spec.expiresAfter)])
  } else {
    if (spec.expiresAfter?.anchor !== undefined) fields.push(['expires_after[anchor]', spec.expiresAfter.anchor])
    if (spec.expiresAfter?.seconds !== undefined) fields.push(['expires_after[seconds]', spec.expiresAfter.seconds])
  }
  const body = multipartBody(
    fields,
    file === null ? undefined : { filename, contentType: file.contentType, content: file.content },
  )
  const sentAt = Date.now()
  const ex = await api.request({
    method: 'POST',
    path: '/v1/files',
    headers: body.headers,
    body: body.chunks,
    bodyNote: body.note,
    ...(spec.key === undefined ? {} : { key: spec.key }),
    ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
    ...(spec.retry429 === undefined ? {} : { retry429: spec.retry429 }),
  })
  const answer = ex.json
  const id =
    ex.status >= 200 && ex.status < 300 && isObject(answer) && typeof answer.id === 'string' ? answer.id : undefined
  // A file stored although no key, or an unknown one, was sent is the main account's where a fault served it so.
  if (id !== undefined)
    created().set(id, spec.key === undefined || spec.key === null || spec.key === 'invalid' ? 'main' : spec.key)
  return { ex, body, filename, purpose: spec.purpose, sentAt, id }
}

/**
 * Deletes a file this run created, with the key that owns it (`owner` for one the run found stored although its
 * upload was not answered with a file); it is no longer tracked once the target answered 2xx or 404 (already gone).
 */
export async function deleteFile(api: TargetClient, id: string, owner?: KeySlot): Promise<Exchange> {
  const ex = await api.request({
    method: 'DELETE',
    path: `/v1/files/${encodeURIComponent(id)}`,
    key: created().get(id) ?? owner ?? 'main',
  })
  if ((ex.status >= 200 && ex.status < 300) || ex.status === 404) created().delete(id)
  return ex
}

/**
 * For uploads a test expects refused: a target that stored the file anyway has it deleted at once, so that the
 * stray file cannot disturb another test's lists, and then the status is judged.
 */
export async function expectUploadStatus(
  api: TargetClient,
  up: Upload,
  statuses: number | readonly number[],
  why: string,
): Promise<void> {
  if (up.id !== undefined) await deleteFile(api, up.id).catch(() => undefined)
  expectStatus(up.ex, statuses, why)
}

/** For uploads a SHOULD expects refused (any 4xx other than 429, `expectRefused`): a stored file is deleted at once. */
export async function expectUploadRefusal(api: TargetClient, up: Upload, why: string): Promise<void> {
  if (up.id !== undefined) await deleteFile(api, up.id).catch(() => undefined)
  expectRefused(up.ex, `the upload of ${up.filename}: ${why}`)
}

const CLEANUP_DEFAULTS = {
  concurrency: 8, // deletes in flight: the tiers bursts leave thousands of files, 300 ms each on a distant target
  budgetMs: 300_000, // then the rest is left for `npm run conformance -- sweep` (every name carries the run id)
}

/**
 * afterAll: deletes every file still recorded as created, ignoring what the target answers, a few at a time and
 * for at most CLEANUP_DEFAULTS.budgetMs, so that a slow target's cleanup ends before its hook's time does.
 */
export async function deleteCreated(api: TargetClient): Promise<void> {
  const deadline = Date.now() + CLEANUP_DEFAULTS.budgetMs
  await mapLimit([...created().keys()], CLEANUP_DEFAULTS.concurrency, async (id) => {
    if (Date.now() > deadline) return
    try {
      await deleteFile(api, id)
    } catch {
      // Cleanup must not turn a finished run into a harness error; a leftover file names its run.
    }
  })
}
