/**
 * Videos (Part 2 sections 2.1, 3, 4.1, 6.3, 7, 8): asynchronous jobs, created by JSON or multipart, that
 * move queued -> processing -> completed on the gateway's schedule (videos/store.ts), or are failed from
 * creation when they cannot start. A job is charged when it starts (seconds times the model's price per
 * second); a failed job costs nothing (section 3).
 *
 * Where the reference is silent, this gateway's choices (see also videos/request.ts and gateway/README.md):
 * - a prompt containing CANNOT_START_MARKER makes a job that cannot start: the documented, deterministic way
 *   to see a failed job;
 * - create and remix answer 200 with the job; the job has the fields of the widely used convention (object,
 *   model, progress, created_at, completed_at, seconds, size, prompt, remixed_from_video_id, error) besides
 *   the known ones of section 2.1;
 * - the list is newest first, with the envelope { object: list, data, first_id, last_id, has_more }; other
 *   query parameters are ignored;
 * - content before completion, or of a failed job, is a 400 with code video_not_ready (section 7: not shown);
 *   a completed job's content is a small real MP4 (videos/mp4.ts);
 * - remix needs a completed source; it keeps the source's model, seconds and size, and takes prompt and,
 *   optionally, safety_identifier (otherwise the source's);
 * - DELETE answers { id, object: video.deleted, deleted: true }; another account's job is a 404.
 */
import fastifyMultipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { chargeUsd } from '../account/billing.ts'
import { findModel } from '../models/catalogue.ts'
import { requireCaller, type RequestContext } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { requireTier, resolveModel } from '../models/access.ts'
import type { GatewayState } from '../state.ts'
import { createUuid7Generator } from '../uuid7.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { videosAnswerReshapes } from '../faults/videos.ts'
import { checkCreate, readCreateBody, type VideoSpec } from './request.ts'
import { makeMp4 } from './mp4.ts'
import { VideoStore, type VideoJob } from './store.ts'
import { videoVariations } from './variations.ts'
import { abandonBody } from '../abandon-body.ts'
import { isObject } from '../../common/json.ts'

/** A prompt holding this text makes a job that cannot start (failed at creation, not charged). */
export const CANNOT_START_MARKER = 'gc:cannot-start'

type Params = { Params: { video_id: string } }

export function registerVideoRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, videosAnswerReshapes(state.clock))
    registerRoutes(scope, state)
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState): void {
  const { faults, clock } = state
  const store = new VideoStore(clock, state.videoStepMs)
  // Fault video-request-id-own: ids of the gateway's own, unrelated to the call's svc-request-id.
  const ownIds = createUuid7Generator(clock)

  /** A completed job's file, as GET .../content serves it. */
  function fileOf(job: VideoJob): { bytes: Buffer; filename: string } {
    const [width, height] = job.size.split('x').map(Number) as [number, number]
    return { bytes: makeMp4({ width, height, seconds: Number(job.seconds) }), filename: `${job.id}.mp4` }
  }
  const vary = videoVariations(app, state, (accountId, id) => {
    const job = store.get(accountId, id)
    return job && store.status(job) === 'completed' ? fileOf(job) : undefined
  })

  function jobOf(request: FastifyRequest, id: string): VideoJob {
    const job = store.get(requireCaller(state.contexts.of(request)).account.id, id)
    if (job) return job
    if (faults.has('video-unknown-400')) throw invalidParameter('video_id', `Invalid video id '${id}'.`)
    if (faults.has('video-unknown-500') && !store.wasIssued(id))
      throw new GatewayError(500, `Lookup of video '${id}' failed.`)
    vary.checkIdForm(id)
    throw new GatewayError(404, `No such video: '${id}'.`, { param: 'video_id', code: 'video_not_found' })
  }

  function view(job: VideoJob) {
    const status = store.status(job)
    return {
      id: job.id,
      object: 'video',
      model: vary.shownModel(job.model),
      status: vary.shownStatus(status),
      progress: store.progress(job),
      created_at: Math.floor(job.createdMs / 1000),
      completed_at: status === 'completed' ? Math.floor(store.completedMs(job) / 1000) : null,
      seconds: job.seconds,
      size: job.size,
      prompt: job.prompt,
      remixed_from_video_id: job.remixedFrom,
      error: job.notStarted === null ? null : { code: 'video_not_started', message: job.notStarted },
      safety_identifier: job.safetyIdentifier,
      request_id: job.requestId,
    }
  }

  /** Creates the job of a create or remix call, charging it when it starts (section 3). */
  function start(
    request: FastifyRequest,
    _reply: FastifyReply,
    spec: Omit<VideoSpec, 'reference' | 'width' | 'height'>,
    remixedFrom: string | null,
  ): VideoJob {
    const context = state.contexts.of(request)
    const caller = requireCaller(context)
    const { account } = caller
    recordCall(context, spec.model, spec.safetyIdentifier)
    // The eight ids are catalogue models: their tier (section 1.5) and rate limits (section 8.3) apply.
    const model = findModel(spec.model)
    if (model !== undefined) {
      resolveModel(model.id, context, { modes: ['video_generation'], endpoint: 'video generations' })
      requireTier(model, caller, faults)
    }
    const notStarted = spec.prompt.includes(CANNOT_START_MARKER)
      ? 'The video could not be started; nothing was charged. Submit a new request.'
      : null
    const price = model?.pricing.output ?? findModel('vidA-2')?.pricing.output ?? 0
    const usd = Number(spec.seconds) * price
    const charged = notStarted === null ? !faults.has('video-free') : faults.has('video-failed-charged')
    if (charged) chargeUsd(account, usd)
    const job = store.create({
      accountId: account.id,
      model: spec.model,
      prompt: spec.prompt,
      seconds: spec.seconds,
      size: spec.size,
      safetyIdentifier: spec.safetyIdentifier,
      requestId: faults.has('video-request-id-own') ? ownIds() : request.id,
      notStarted,
      remixedFrom,
      chargedUsd: charged ? usd : 0,
    })
    if (faults.has('video-drop-on-disconnect')) {
      // A create whose caller hangs up right after sending is rolled back (after charging): section 4.1 says the
      // server starts at submission. A keep-alive client does not hang up this soon (undici closes an idle socket
      // after 4 s at the earliest), so only drops are caught; the 3.5 s leave room for a client on a busy machine,
      // whose hang-up can come seconds after its request.
      const socket = request.raw.socket
      const drop = (): void => void store.delete(account.id, job.id)
      if (socket.readableEnded || socket.destroyed) drop()
      else {
        socket.once('end', drop).once('close', drop)
        setTimeout(() => socket.off('end', drop).off('close', drop), 3_500).unref()
      }
    }
    return job
  }

  void app.register(async (scope) => {
    await scope.register(fastifyMultipart)

    scope.post('/v1/videos', async (request, reply) => {
      try {
        const raw = await readCreateBody(request)
        const spec = checkCreate({ ...raw, fields: vary.inboundModel(raw.fields) }, faults)
        return reply.code(vary.createdStatus).send(view(start(request, reply, spec, null)))
      } catch (error) {
        abandonBody(request, reply)
        throw error
      }
    })
  })

  // Fault video-list-open: the list is served to a caller without a valid key, as an empty list.
  const listOptions = faults.has('video-list-open') ? { config: { auth: 'optional' as const } } : {}
  app.get<{ Querystring: Record<string, unknown> }>('/v1/videos', listOptions, async (request) => {
    if (!state.contexts.of(request).caller)
      return { object: 'list', data: [], first_id: null, last_id: null, has_more: false }
    const { account } = requireCaller(state.contexts.of(request))
    const safetyIdentifier = queryString(request.query, 'safety_identifier')
    const requestId = queryString(request.query, 'request_id')
    const jobs = store.list(account.id, {
      ...(safetyIdentifier === undefined || faults.has('video-filter-safety-ignored') ? {} : { safetyIdentifier }),
      ...(requestId === undefined || faults.has('video-filter-request-id-ignored') ? {} : { requestId }),
    })
    return {
      object: 'list',
      data: jobs.map(view),
      first_id: jobs[0]?.id ?? null,
      last_id: jobs.at(-1)?.id ?? null,
      has_more: false,
    }
  })

  app.get<Params>('/v1/videos/:video_id', async (request) => {
    const job = jobOf(request, request.params.video_id)
    recordCall(state.contexts.of(request), job.model, null)
    return view(job)
  })

  app.delete<Params>('/v1/videos/:video_id', async (request) => {
    const job = jobOf(request, request.params.video_id)
    if (!faults.has('video-delete-noop')) store.delete(job.accountId, job.id)
    return { id: job.id, object: 'video.deleted', deleted: true }
  })

  app.post<Params>('/v1/videos/:video_id/remix', async (request, reply) => {
    if (faults.has('video-remix-404'))
      throw new GatewayError(404, `Unknown route: POST ${state.contexts.of(request).path}`, {
        code: 'unsupported_route',
      })
    return remix(request, reply, request.params.video_id)
  })

  // Fault video-edits-served: the edits route, "not available" (§4.1), makes a new job from video_id like a remix.
  if (faults.has('video-edits-served'))
    app.post('/v1/videos/edits', async (request, reply) => {
      const body = isObject(request.body) ? request.body : {}
      return remix(request, reply, typeof body.video_id === 'string' ? body.video_id : '')
    })

  async function remix(request: FastifyRequest, reply: FastifyReply, sourceId: string) {
    const source = jobOf(request, sourceId)
    const body = isObject(request.body) ? request.body : {}
    if (store.status(source) !== 'completed')
      throw invalidParameter(
        'video_id',
        `Only a completed video can be remixed; '${source.id}' is ${store.status(source)}.`,
      )
    // The create rules of section 4.1 apply to the new prompt and safety_identifier; model, seconds and size are the source's.
    const spec = checkCreate(
      { fields: { ...body, model: source.model, seconds: source.seconds, size: source.size }, reference: null },
      faults,
    )
    const job = start(
      request,
      reply,
      { ...spec, safetyIdentifier: spec.safetyIdentifier ?? source.safetyIdentifier },
      source.id,
    )
    return reply.code(vary.createdStatus).send(view(job))
  }

  app.get<Params>('/v1/videos/:video_id/content', async (request, reply) => {
    const job = jobOf(request, request.params.video_id)
    recordCall(state.contexts.of(request), job.model, null)
    const status = store.status(job)
    if (faults.has('video-content-missing') && status === 'completed')
      throw new GatewayError(404, `No content for video '${job.id}'.`, { code: 'not_found' })
    if (status !== 'completed' && !faults.has('video-content-early')) throw vary.notReady(job.id, status)
    const redirect = status === 'completed' ? vary.redirectFor(request, job.accountId, job.id) : undefined
    if (redirect !== undefined) return reply.redirect(redirect, 302)
    const { bytes, filename } = fileOf(job)
    // Through reply.send, so that the onSend hooks still set the shared headers.
    return reply
      .header('content-type', 'video/mp4')
      .header('content-disposition', `attachment; filename="${filename}"`)
      .send(bytes)
  })
}

/** What the call's transaction records (Part 1 section 2.2): the model and the caller's identifier. */
function recordCall(context: RequestContext, model: string, safetyIdentifier: string | null): void {
  context.model = model
  if (safetyIdentifier !== null) context.safetyIdentifier = safetyIdentifier
}

function queryString(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalidParameter(name, `${name} must be given once.`)
  return value
}
