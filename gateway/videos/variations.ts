/**
 * The choices of the videos endpoints that the reference leaves open, made as real providers make them when their
 * variation is on (../variations.ts). They live here, in one place, so that the routes read as the reference says.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { GatewayError, invalidParameter } from '../errors.ts'
import type { GatewayState } from '../state.ts'
import { REAL_NAMES } from '../variations.ts'
import type { VideoStatus } from './store.ts'
import { VIDEO_MODELS } from './request.ts'

/** Where the redirect variation serves a completed job's file, without a key (a signed storage URL). */
const STORAGE_PREFIX = '/storage/videos/'

/**
 * Under video-eventual, how late a new job shows in the list and a deleted one goes: well within the settle bound the
 * suite allows the embedded gateway (harness/setup/config.ts), and longer than a suite's read right after the call.
 */
const EVENTUAL_MS = 750

/** The path, after /v1/videos/{id}, where video-content-redirect-own serves the file for the caller's key. */
export const OWN_DOWNLOAD = '/download'

/** The form of the ids this gateway issues (store.ts). */
const ISSUED_ID = /^video_[0-9a-f]{24}$/

export interface VideoVariations {
  /** The body's model as the routes know it (the reference's name), refusing a neutral name under real names. */
  inboundModel(fields: Record<string, unknown>): Record<string, unknown>
  /** A model as the answers show it. */
  shownModel(model: string): string
  /** A status as the answers show it. */
  shownStatus(status: VideoStatus): string
  /** The status of an answered create or remix. */
  createdStatus: 200 | 201 | 202
  /** How long after its create a job shows in the list, and after its DELETE a job goes: 0 at once. */
  settleMs: number
  /** The status of an answered DELETE. */
  deletedStatus: 200 | 202
  /** Throws the answer for an id this gateway could not have issued, where that differs from a missing one. */
  checkIdForm(id: string): void
  /** The error for content asked for before completion (§7: not shown). */
  notReady(id: string, status: string): GatewayError
  /** A plain-text message answered with 202 for content asked for while the job runs, or undefined for notReady. */
  stillRunning(id: string, status: string): string | undefined
  /** Whether the service serves a completed job's file on a path of its own, for its key (video-content-redirect-own). */
  ownDownload: boolean
  /** Where a completed job's file is downloaded by redirect, or undefined to serve it in the answer itself. */
  redirectFor(request: FastifyRequest, accountId: string, id: string): Promise<string | undefined>
}

type Tokens = Map<string, { accountId: string; id: string }>

/**
 * A storage host of its own: another port, so another origin, that serves a file to whoever holds its URL (the token
 * is the signature) and answers none of the service's headers. Listens at the first redirect, on the address the
 * gateway listens on; resolves to its port.
 */
function storageHost(
  app: FastifyInstance,
  tokens: Tokens,
  serveFile: (accountId: string, id: string) => { bytes: Buffer; filename: string } | undefined,
): () => Promise<number> {
  const server = createServer((request, response) => {
    const token = (request.url ?? '').startsWith(STORAGE_PREFIX) ? (request.url ?? '').slice(STORAGE_PREFIX.length) : ''
    const held = tokens.get(token)
    const file = held && serveFile(held.accountId, held.id)
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found')
      return
    }
    response
      .writeHead(200, {
        'content-type': 'video/mp4',
        'content-disposition': `attachment; filename="${file.filename}"`,
        'content-length': String(file.bytes.length),
      })
      .end(file.bytes)
  })
  let listening: Promise<number> | undefined
  app.addHook('onClose', async () => {
    if (listening === undefined) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return () => {
    listening ??= new Promise((resolve, reject) => {
      const main = app.server.address()
      const host = typeof main === 'object' && main !== null ? main.address : '127.0.0.1'
      server.once('error', reject)
      server.listen(0, host, () => resolve((server.address() as AddressInfo).port))
    })
    return listening
  }
}

export function videoVariations(
  app: FastifyInstance,
  state: GatewayState,
  serveFile: (accountId: string, id: string) => { bytes: Buffer; filename: string } | undefined,
): VideoVariations {
  const on = (name: Parameters<typeof state.variations.has>[0]): boolean => state.variations.has(name)
  const toMaker = new Map(VIDEO_MODELS.flatMap((m) => (REAL_NAMES[m] ? [[m, REAL_NAMES[m] as string] as const] : [])))
  const toReference = new Map([...toMaker].map(([ref, maker]) => [maker, ref]))
  const realNames = on('real-names') && toMaker.size > 0

  const tokens = new Map<string, { accountId: string; id: string }>()
  const storage = on('video-content-redirect') ? storageHost(app, tokens, serveFile) : undefined

  return {
    inboundModel(fields) {
      const model = fields.model
      if (!realNames || typeof model !== 'string') return fields
      const reference = toReference.get(model)
      if (reference !== undefined) return { ...fields, model: reference }
      if (toMaker.has(model))
        throw invalidParameter('model', `model must be one of ${[...toReference.keys()].join(', ')}; got '${model}'.`)
      return fields
    },
    shownModel: (model) => (realNames ? (toMaker.get(model) ?? model) : model),
    shownStatus: (status) => (status === 'processing' && on('video-in-progress') ? 'in_progress' : status),
    createdStatus: on('video-create-202') ? 202 : on('video-create-201') ? 201 : 200,
    settleMs: on('video-eventual') ? EVENTUAL_MS : 0,
    deletedStatus: on('video-eventual') ? 202 : 200,
    checkIdForm(id) {
      if (on('video-id-checked') && !ISSUED_ID.test(id)) throw invalidParameter('video_id', `Invalid video id '${id}'.`)
    },
    notReady(id, status) {
      const message = `Video '${id}' is ${status}; its content can be downloaded once it is completed.`
      return on('video-content-not-ready-404')
        ? new GatewayError(404, message, { param: 'video_id', code: 'video_not_ready' })
        : new GatewayError(400, message, { param: 'video_id', code: 'video_not_ready' })
    },
    stillRunning: (id, status) =>
      on('video-content-pending-text') && status !== 'failed'
        ? `Video ${id} is still processing. Try again in a few seconds.`
        : undefined,
    ownDownload: on('video-content-redirect-own'),
    async redirectFor(request, accountId, id) {
      if (storage === undefined)
        return on('video-content-redirect-own') ? `/v1/videos/${encodeURIComponent(id)}${OWN_DOWNLOAD}` : undefined
      const token = randomBytes(18).toString('hex')
      tokens.set(token, { accountId, id })
      const hostname = new URL(`http://${request.headers.host ?? '127.0.0.1'}`).hostname
      return `http://${hostname}:${await storage()}${STORAGE_PREFIX}${token}`
    },
  }
}
