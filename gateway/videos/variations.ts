/**
 * The choices of the videos endpoints that the reference leaves open, made as real providers make them when their
 * variation is on (../variations.ts). They live here, in one place, so that the routes read as the reference says.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { GatewayError, invalidParameter } from '../errors.ts'
import type { GatewayState } from '../state.ts'
import { REAL_NAMES } from '../variations.ts'
import type { VideoStatus } from './store.ts'
import { VIDEO_MODELS } from './request.ts'

/** Where the redirect variation serves a completed job's file, without a key (a signed storage URL). */
const STORAGE_PREFIX = '/storage/videos/'

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
  createdStatus: 200 | 201
  /** Throws the answer for an id this gateway could not have issued, where that differs from a missing one. */
  checkIdForm(id: string): void
  /** The error for content asked for before completion (§7: not shown). */
  notReady(id: string, status: string): GatewayError
  /** Where a completed job's file is downloaded by redirect, or undefined to serve it in the answer itself. */
  redirectFor(request: FastifyRequest, accountId: string, id: string): string | undefined
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
  if (on('video-content-redirect')) {
    // Storage answers whoever holds the URL: the token is the signature.
    app.get<{ Params: { token: string } }>(
      `${STORAGE_PREFIX}:token`,
      { config: { auth: 'none' } },
      async (request, reply) => {
        const held = tokens.get(request.params.token)
        const file = held && serveFile(held.accountId, held.id)
        if (!file) return reply.code(404).type('text/plain').send('Not found')
        return reply
          .header('content-type', 'video/mp4')
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .send(file.bytes)
      },
    )
  }

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
    createdStatus: on('video-create-201') ? 201 : 200,
    checkIdForm(id) {
      if (on('video-id-checked') && !ISSUED_ID.test(id)) throw invalidParameter('video_id', `Invalid video id '${id}'.`)
    },
    notReady(id, status) {
      const message = `Video '${id}' is ${status}; its content can be downloaded once it is completed.`
      return on('video-content-not-ready-404')
        ? new GatewayError(404, message, { param: 'video_id', code: 'video_not_ready' })
        : new GatewayError(400, message, { param: 'video_id', code: 'video_not_ready' })
    },
    redirectFor(request, accountId, id) {
      if (!on('video-content-redirect')) return undefined
      const token = randomBytes(18).toString('hex')
      tokens.set(token, { accountId, id })
      return `${request.protocol}://${request.headers.host ?? '127.0.0.1'}${STORAGE_PREFIX}${token}`
    },
  }
}
