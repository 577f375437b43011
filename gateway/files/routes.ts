/**
 * The files endpoints (Part 1 sections 2.4, 4.4, 8.4): upload, list, retrieve, delete, and the download
 * of a file's bytes. Each operation also counts against the per-minute file limits of its tier
 * (uploads, downloads, deletes), besides the account request limit every /v1 call counts against.
 *
 * Where the reference is silent:
 * - an upload answers 200 with the file object; DELETE answers { id, object: "file", deleted: true };
 * - GET /v1/files/{file_id}/content returns the stored bytes with the type the upload declared: §8.4
 *   limits downloads per minute but no route is shown, and this is the widely used one;
 * - status and status_details are null, as "observed" in section 2.4;
 * - the list is ordered by created_at, ties in upload order; an `after` that names no file of the
 *   list (deleted, expired, another account's) is a 400, since no position can be found for it;
 * - a purpose filter naming no known purpose lists nothing rather than failing.
 */
import fastifyMultipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createReadStream } from 'node:fs'
import type { Account } from '../account/accounts.ts'
import { requireCaller } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import type { StoredFile } from './store.ts'
import { receiveUpload, storageFull, storageQuota } from './upload.ts'
import { checkIssued } from './choices.ts'
import { integerParam, singleParam, type RawQuery } from '../query-params.ts'
import type { GatewayState } from '../state.ts'
import { abandonBody } from '../abandon-body.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { FILES_ANSWER_RESHAPES } from './reshapes.ts'
import { retryAfterSeconds } from '../hooks/rate-limit.ts'
import { filesRules, type FileOperation, type FilesRules } from './rules.ts'

export function registerFileRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, FILES_ANSWER_RESHAPES)
    registerRoutes(scope, state)
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState): void {
  const { files, clock } = state
  const rules = filesRules(state.faults)
  app.addHook('onClose', async () => files.close())

  function callerAccount(request: FastifyRequest): Account {
    const { account } = requireCaller(state.contexts.of(request))
    void files.sweep()
    return account
  }

  /** Ids of every file this gateway made: an id it never issued may be refused as invalid (choices.ts). */
  const issued = new Set<string>()

  function fileOf(account: Account, id: string): StoredFile {
    const file = files.get(account.id, id)
    if (file) return file
    if (rules.unknownIdInvalid) throw invalidParameter('file_id', `Invalid file id '${id}'.`)
    if (rules.neverIssuedIdFails && !issued.has(id)) throw new GatewayError(500, 'The file store failed.')
    checkIssued(state.variations, issued.has(id), id)
    throw new GatewayError(404, `No such file: '${id}'.`, { param: 'file_id', code: 'file_not_found' })
  }

  // Multipart parsing only inside this scope: other routes keep refusing multipart bodies.
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart, { throwFileSizeLimit: true })

    scope.post('/v1/files', async (request, reply) => {
      try {
        const account = callerAccount(request)
        countOperation(state, rules, account, 'uploads', reply)
        const quota = storageQuota(files, account, state.variations)
        if (rules.checkStorageQuota && files.usedBytes(account.id) >= quota) throw storageFull(quota)
        const file = await receiveUpload(request, files, account, rules, clock, state.variations, state.faults)
        files.commit(file)
        issued.add(file.id)
        return fileView(file)
      } catch (error) {
        abandonBody(request, reply)
        throw error
      }
    })

    scope.get<{ Querystring: RawQuery }>('/v1/files', async (request) => {
      const account = callerAccount(request)
      return listFiles(files.list(account.id), request.query, rules)
    })

    scope.get<{ Params: { file_id: string } }>('/v1/files/:file_id', async (request) => {
      return fileView(fileOf(callerAccount(request), request.params.file_id))
    })

    scope.delete<{ Params: { file_id: string } }>('/v1/files/:file_id', async (request, reply) => {
      const account = callerAccount(request)
      countOperation(state, rules, account, 'deletes', reply)
      const file = fileOf(account, request.params.file_id)
      if (rules.deleteRemoves) await files.remove(account.id, file.id)
      return { id: file.id, object: 'file', deleted: true }
    })

    scope.get<{ Params: { file_id: string } }>('/v1/files/:file_id/content', async (request, reply) => {
      const account = callerAccount(request)
      countOperation(state, rules, account, 'downloads', reply)
      const file = fileOf(account, request.params.file_id)
      // Through reply.send, so that the onSend hooks still set the shared headers.
      return reply
        .header('content-type', file.contentType)
        .header('content-length', String(file.bytes))
        .send(createReadStream(file.path))
    })
  })
}

/**
 * Section 8.4: a call over its tier's per-minute file limit is a 429 with Retry-After (section 7). The operation's
 * own bucket is the most specific one of the call, so the request-bucket headers report it (as model calls report
 * the model's): a client pacing its uploads reads the uploads window.
 */
function countOperation(
  state: GatewayState,
  rules: FilesRules,
  account: Account,
  operation: FileOperation,
  reply: FastifyReply,
): void {
  const column = rules.perMinuteColumn[operation]
  if (column === null) return
  const limit = state.files.limits(account.tier)[column]
  const reading = state.limiter.take(`file-${operation}:${account.id}`, limit, 1)
  const context = state.contexts.of(reply.request)
  if (context.limits) context.limits = { ...context.limits, requests: reading }
  if (reading.admitted) return
  const retryAfter = retryAfterSeconds(reading, state.clock.now())
  reply.header('retry-after', String(retryAfter))
  throw new GatewayError(
    429,
    `File ${operation} are limited to ${limit} per minute at tier ${account.tier}; retry after ${retryAfter} s.`,
  )
}

/** The wire shape of section 2.4. */
function fileView(file: StoredFile) {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: file.createdAt,
    expires_at: file.expiresAt,
    filename: file.filename,
    purpose: file.purpose,
    status: null,
    status_details: null,
  }
}

/** GET /v1/files: purpose filter, order by created_at, `after` cursor and limit (section 4.4). */
function listFiles(all: StoredFile[], query: RawQuery, rules: FilesRules) {
  // Section 4.4: limit is 1 to 10000 and defaults to 10000.
  const limit = integerParam(query, 'limit', rules.listLimit, rules.clampListLimit) ?? rules.listLimitDefault
  // asc or desc, as the validator judged; a fault that lifts that reads any other as desc.
  const order = singleParam(query, 'order') ?? 'desc'
  const purpose = singleParam(query, 'purpose')
  const after = singleParam(query, 'after')
  let items = rules.honourListPurpose && purpose !== undefined ? all.filter((file) => file.purpose === purpose) : all
  if (rules.honourListOrder && order !== 'asc') items = [...items].reverse()
  let start = 0
  if (rules.honourListAfter && after !== undefined) {
    const index = items.findIndex((file) => file.id === after)
    if (index < 0) throw invalidParameter('after', `after '${after}' names no file of this list.`)
    start = index + rules.filesSkippedAtCursor
  }
  const page = items.slice(start, rules.honourListLimit ? start + limit : undefined)
  return {
    object: 'list',
    data: page.map(fileView),
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
    has_more: start + page.length < items.length,
  }
}
