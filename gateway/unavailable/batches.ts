/**
 * Batches as planned (Part 1 sections 2.8, 3, 4.9, 8.5), served only under a `planned-batch-*` fault. The
 * input file is not read: a batch stays `validating` until cancelled, which is one of the moves section 3 does
 * not describe; this gateway takes it to `cancelling`, and to `cancelled` at the next read, within the ten
 * minutes the reference allows.
 */
import { invalidParameter } from '../errors.ts'
import { listLimit, notFound, pageAfter, plannedId, readMetadata, requestBody, requiredString } from './planned.ts'
import { isObject } from '../../common/json.ts'
import type { UnavailableRules } from './rules.ts'

/** Section 4.9: the endpoints a batch may target (batches of videos are not available yet: Part 2 section 4.1). */
export const BATCH_ENDPOINTS = [
  '/v1/responses',
  '/v1/chat/completions',
  '/v1/embeddings',
  '/v1/completions',
  '/v1/moderations',
  '/v1/images/generations',
  '/v1/images/edits',
  '/v1/videos',
] as const

export const BATCH_LIST_LIMIT = { min: 1, max: 100, default: 20 } as const // sections 4.9 and 8.5
const WINDOW_SECONDS = 24 * 3600

interface Batch {
  id: string
  object: 'batch'
  endpoint: string
  errors: null
  input_file_id: string
  completion_window: string
  status: string
  output_file_id: string | null
  error_file_id: string | null
  created_at: number
  in_progress_at: number | null
  expires_at: number | null
  finalizing_at: number | null
  completed_at: number | null
  failed_at: number | null
  expired_at: number | null
  cancelling_at: number | null
  cancelled_at: number | null
  request_counts: { total: number; completed: number; failed: number }
  metadata: Record<string, string>
  output_expires_after?: { anchor: 'created_at'; seconds: number }
}

export class PlannedBatches {
  /** Per account, newest first. */
  readonly #byAccount = new Map<string, Batch[]>()

  private readonly rules: UnavailableRules
  private readonly nowSeconds: () => number

  constructor(rules: UnavailableRules, nowSeconds: () => number) {
    this.rules = rules
    this.nowSeconds = nowSeconds
  }

  create(accountId: string, raw: unknown): Batch {
    const body = requestBody(raw)
    const { rules } = this
    const inputFileId = requiredString(body, 'input_file_id')
    const endpoint = requiredString(body, 'endpoint')
    if (rules.refuseVideoBatches && endpoint === '/v1/videos')
      throw invalidParameter('endpoint', 'Batches of videos are not available until support is confirmed.')
    if (rules.checkBatchEndpoint && !(BATCH_ENDPOINTS as readonly string[]).includes(endpoint)) {
      throw invalidParameter('endpoint', `endpoint must be one of ${BATCH_ENDPOINTS.join(', ')}.`)
    }
    const window = requiredString(body, 'completion_window')
    const windowOk = rules.anyBatchWindow ? /^\d+h$/.test(window) : window === '24h'
    if (!windowOk)
      throw invalidParameter('completion_window', 'completion_window must be 24h, the only window offered.')
    const metadata = readMetadata(body.metadata, { checkPairs: rules.checkBatchMetadataPairs })
    const expiresAfter = readExpiresAfter(body.output_expires_after)
    const now = this.nowSeconds()
    const batch: Batch = {
      id: plannedId('batch_'),
      object: 'batch',
      endpoint,
      errors: null,
      input_file_id: inputFileId,
      completion_window: window,
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      created_at: now,
      in_progress_at: null,
      expires_at: now + WINDOW_SECONDS,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
      metadata,
      ...(expiresAfter ? { output_expires_after: expiresAfter } : {}),
    }
    this.#list(accountId).unshift(batch)
    return batch
  }

  list(accountId: string, query: Record<string, unknown>) {
    const limit = listLimit(query.limit, BATCH_LIST_LIMIT, this.rules.checkBatchListLimit)
    return pageAfter(
      this.#list(accountId).map((batch) => this.#settle(batch)),
      query.after,
      limit,
    )
  }

  get(accountId: string, id: string): Batch {
    return this.#settle(this.#find(accountId, id))
  }

  cancel(accountId: string, id: string): Batch {
    const batch = this.#settle(this.#find(accountId, id))
    if (batch.status !== 'validating' && batch.status !== 'in_progress') {
      throw invalidParameter('batch_id', `A batch that is ${batch.status} cannot be cancelled.`)
    }
    batch.status = 'cancelling'
    batch.cancelling_at = this.nowSeconds()
    return { ...batch }
  }

  #settle(batch: Batch): Batch {
    if (batch.status === 'cancelling' && batch.cancelling_at !== null) {
      batch.status = 'cancelled'
      batch.cancelled_at = this.nowSeconds()
    }
    return batch
  }

  #find(accountId: string, id: string): Batch {
    const batch = this.#list(accountId).find((b) => b.id === id)
    if (!batch) throw notFound('batch', id)
    return batch
  }

  #list(accountId: string): Batch[] {
    let list = this.#byAccount.get(accountId)
    if (!list) {
      list = []
      this.#byAccount.set(accountId, list)
    }
    return list
  }
}

function readExpiresAfter(value: unknown): { anchor: 'created_at'; seconds: number } | undefined {
  if (value === undefined || value === null) return undefined
  if (
    !isObject(value) ||
    value.anchor !== 'created_at' ||
    !Number.isInteger(value.seconds) ||
    (value.seconds as number) < 1
  ) {
    throw invalidParameter(
      'output_expires_after',
      'output_expires_after must be { anchor: "created_at", seconds: <positive integer> }.',
    )
  }
  return { anchor: 'created_at', seconds: value.seconds as number }
}
