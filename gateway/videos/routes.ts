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
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
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
import { videosAnswerReshapes } from './reshapes.ts'
import { checkCreate, readCreateBody, type VideoSpec } from './request.ts'
import { makeMp4 } from './mp4.ts'
import { VideoStore, type VideoJob } from './store.ts'
import { videoRules, type VideoRules } from './rules.ts'
import { OWN_DOWNLOAD, videoVariations, type VideoVariations } from './variations.ts'
import { abandonBody } from '../abandon-body.ts'
import { checkForm } from '../request-validation.ts'
import { isObject } from '../../common/json.ts'

/** A prompt holding this text makes a job that cannot start (failed at creation, not charged). */
export const CANNOT_START_MARKER = 'gc:cannot-start'

type Params = { Params: { video_id: string } }
/** The list's filters: strings by its request schema, which refuses one given twice. */
type ListQuery = { Querystring: { safety_identifier?: string; request_id?: string } }

export function registerVideoRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, videosAnswerReshapes(state.clock))
    registerRoutes(scope, state, videoRules(state.faults))
  })
}

/** What every videos route shares: the rules, the job store, the variations and the jobs' life. */
interface Videos {
  readonly state: GatewayState
  readonly rules: VideoRules
  readonly store: VideoStore
  readonly vary: VideoVariations
  /** The caller's job with this id, or the error for an id that names none. */
  jobOf(request: FastifyRequest, id: string): VideoJob
  /** A job as the answers show it. */
  view(job: VideoJob): Record<string, unknown>
  /** A completed job's file, as GET .../content serves it. */
  fileOf(job: VideoJob): { bytes: Buffer; filename: string }
  /** Creates the job of a create or remix call, charging it when it starts (section 3). */
  start(
    request: FastifyRequest,
    spec: Omit<VideoSpec, 'reference' | 'width' | 'height'>,
    remixedFrom: string | null,
  ): VideoJob
}

function registerRoutes(app: FastifyInstance, state: GatewayState, rules: VideoRules): void {
  if (!rules.servesRoutes) return
  const store = new VideoStore(state.clock, state.videoStepMs)
  const fileOf = (job: VideoJob): { bytes: Buffer; filename: string } => {
    const [width, height] = job.size.split('x').map(Number) as [number, number]
    return { bytes: makeMp4({ width, height, seconds: Number(job.seconds) }), filename: `${job.id}.mp4` }
  }
  const vary = videoVariations(app, state, (accountId, id) => {
    const job = store.get(accountId, id)
    return job && store.status(job) === 'completed' ? fileOf(job) : undefined
  })
  const videos: Videos = {
    state,
    rules,
    store,
    vary,
    fileOf,
    jobOf: (request, id) => jobOf(videos, request, id),
    view: (job) => view(videos, job),
    start: jobStarter(state, rules, store, rules.keepOnDisconnect ? undefined : requestsPerConnection(app)),
  }
  registerCreate(app, videos)
  registerList(app, videos)
  registerJob(app, videos)
  registerRemix(app, videos)
}

function jobOf({ state, rules, store, vary }: Videos, request: FastifyRequest, id: string): VideoJob {
  const job = store.get(requireCaller(state.contexts.of(request)).account.id, id)
  if (job) return job
  if (rules.missingVideoStatus === 400) throw invalidParameter('video_id', `Invalid video id '${id}'.`)
  if (rules.neverIssuedVideoStatus === 500 && !store.wasIssued(id))
    throw new GatewayError(500, `Lookup of video '${id}' failed.`)
  vary.checkIdForm(id)
  throw new GatewayError(404, `No such video: '${id}'.`, { param: 'video_id', code: 'video_not_found' })
}

function view({ store, vary }: Videos, job: VideoJob) {
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

function jobStarter(
  state: GatewayState,
  rules: VideoRules,
  store: VideoStore,
  requests: WeakMap<Socket, number> | undefined,
): Videos['start'] {
  // Ids of the gateway's own, unrelated to the call's svc-request-id, where the rule for request_id is bent.
  const ownIds = createUuid7Generator(state.clock)
  return (request, spec, remixedFrom) => {
    const context = state.contexts.of(request)
    const caller = requireCaller(context)
    const { account } = caller
    recordCall(context, spec.model, spec.safetyIdentifier)
    // The eight ids are catalogue models: their tier (section 1.5) and rate limits (section 8.3) apply.
    const model = findModel(spec.model)
    if (model !== undefined) {
      resolveModel(model.id, context, { modes: ['video_generation'], endpoint: 'video generations' })
      requireTier(model, caller, state.tiers)
    }
    const notStarted = spec.prompt.includes(CANNOT_START_MARKER)
      ? 'The video could not be started; nothing was charged. Submit a new request.'
      : null
    const price = model?.pricing.output ?? findModel('vidA-2')?.pricing.output ?? 0
    const usd = Number(spec.seconds) * price
    const charged = notStarted === null ? rules.chargeStarted : rules.chargeNotStarted
    if (charged) chargeUsd(account, usd)
    const job = store.create({
      accountId: account.id,
      model: spec.model,
      prompt: spec.prompt,
      seconds: spec.seconds,
      size: spec.size,
      safetyIdentifier: spec.safetyIdentifier,
      requestId: rules.requestIdOfCall ? request.id : ownIds(),
      notStarted,
      remixedFrom,
      chargedUsd: charged ? usd : 0,
    })
    if (requests !== undefined) dropOnDisconnect(request, requests, () => void store.delete(account.id, job.id))
    return job
  }
}

/** How many requests each connection has carried: a client that sends another on it did not hang up. */
function requestsPerConnection(app: FastifyInstance): WeakMap<Socket, number> {
  const requests = new WeakMap<Socket, number>()
  app.server.on('request', (request: IncomingMessage) =>
    requests.set(request.socket, (requests.get(request.socket) ?? 0) + 1),
  )
  return requests
}

/**
 * Rolls a create back (after charging) when its caller hangs up soon after sending, where section 4.1 says the
 * server starts at submission: when its connection ends within 30 s and carried no request after it. A keep-alive
 * client sends its next call on the connection or keeps it idle until near the Keep-Alive timeout the gateway
 * announces (Fastify's 72 s), so only hang-ups are caught, even one the gateway reads seconds late on a busy machine.
 */
function dropOnDisconnect(request: FastifyRequest, requests: WeakMap<Socket, number>, drop: () => void): void {
  const socket = request.raw.socket
  if (socket.readableEnded || socket.destroyed) {
    drop()
    return
  }
  const carried = requests.get(socket)
  const ended = () => {
    if (requests.get(socket) === carried) drop()
  }
  socket.once('end', ended).once('close', ended)
  setTimeout(() => socket.off('end', ended).off('close', ended), 30_000).unref()
}

function registerCreate(app: FastifyInstance, videos: Videos): void {
  const { rules, vary } = videos
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart)

    scope.post('/v1/videos', async (request, reply) => {
      try {
        const raw = await readCreateBody(request)
        if (request.isMultipart())
          checkForm(videos.state, 'POST /v1/videos', {
            ...raw.fields,
            ...(raw.reference ? { input_reference: raw.reference.filename } : {}),
          })
        const spec = checkCreate({ ...raw, fields: vary.inboundModel(raw.fields) }, rules)
        return reply.code(vary.createdStatus).send(videos.view(videos.start(request, spec, null)))
      } catch (error) {
        abandonBody(request, reply)
        throw error
      }
    })
  })
}

function registerList(app: FastifyInstance, videos: Videos): void {
  const { state, rules, store, vary } = videos
  // Without the key rule the list is served to a caller without a valid key, as an empty list.
  const listOptions = rules.listNeedsKey ? {} : { config: { auth: 'optional' as const } }
  app.get<ListQuery>('/v1/videos', listOptions, async (request) => {
    if (!state.contexts.of(request).caller)
      return { object: 'list', data: [], first_id: null, last_id: null, has_more: false }
    const { account } = requireCaller(state.contexts.of(request))
    const { safety_identifier: safetyIdentifier, request_id: requestId } = request.query
    const shownFrom = state.clock.now() - vary.settleMs
    const jobs = store
      .list(account.id, {
        ...(safetyIdentifier === undefined || !rules.filterBySafetyIdentifier ? {} : { safetyIdentifier }),
        ...(requestId === undefined || !rules.filterByRequestId ? {} : { requestId }),
      })
      .filter((job) => job.createdMs <= shownFrom)
    return {
      object: 'list',
      data: jobs.map(videos.view),
      first_id: jobs[0]?.id ?? null,
      last_id: jobs.at(-1)?.id ?? null,
      has_more: false,
    }
  })
}

/** Retrieve, delete and content of one job. */
function registerJob(app: FastifyInstance, videos: Videos): void {
  const { state, rules, store, vary } = videos
  // Without the key rule a job is retrieved by a caller without a valid key, whoever's it is.
  const retrieveOptions = rules.retrieveNeedsKey ? {} : { config: { auth: 'optional' as const } }
  app.get<Params>('/v1/videos/:video_id', retrieveOptions, async (request) => {
    if (!state.contexts.of(request).caller) {
      const unkeyed = store.anyones(request.params.video_id)
      if (unkeyed === undefined) throw new GatewayError(401, 'Missing or invalid API key.', { code: 'invalid_api_key' })
      return videos.view(unkeyed)
    }
    const job = videos.jobOf(request, request.params.video_id)
    recordCall(state.contexts.of(request), job.model, null)
    return videos.view(job)
  })

  app.delete<Params>('/v1/videos/:video_id', async (request, reply) => {
    const job = videos.jobOf(request, request.params.video_id)
    const remove = (): void => void (rules.deleteRemoves && store.delete(job.accountId, job.id))
    if (vary.settleMs === 0) remove()
    else setTimeout(remove, vary.settleMs).unref()
    return reply.code(vary.deletedStatus).send({ id: job.id, object: 'video.deleted', deleted: true })
  })

  app.get<Params>('/v1/videos/:video_id/content', async (request, reply) => {
    const job = videos.jobOf(request, request.params.video_id)
    recordCall(state.contexts.of(request), job.model, null)
    const status = store.status(job)
    if (!rules.servesContent && status === 'completed')
      throw new GatewayError(404, `No content for video '${job.id}'.`, { code: 'not_found' })
    if (status !== 'completed' && rules.contentCompletedOnly) {
      const running = vary.stillRunning(job.id, status)
      if (running !== undefined) return reply.code(202).type('text/plain; charset=utf-8').send(running)
      throw vary.notReady(job.id, status)
    }
    const redirect = status === 'completed' ? await vary.redirectFor(request, job.accountId, job.id) : undefined
    if (redirect !== undefined) return reply.redirect(redirect, 302)
    return sendFile(reply, videos.fileOf(job))
  })

  // Where a redirect leads on the service's own origin: the same file, for the same key.
  if (vary.ownDownload)
    app.get<Params>(`/v1/videos/:video_id${OWN_DOWNLOAD}`, async (request, reply) => {
      const job = videos.jobOf(request, request.params.video_id)
      const status = store.status(job)
      if (status !== 'completed') throw vary.notReady(job.id, status)
      return sendFile(reply, videos.fileOf(job))
    })
}

/** A file in the answer itself, through reply.send, so that the onSend hooks still set the shared headers. */
function sendFile(reply: FastifyReply, { bytes, filename }: { bytes: Buffer; filename: string }) {
  return reply
    .header('content-type', 'video/mp4')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(bytes)
}

/** Remix, and the edits route where a fault serves it ("not available", section 4.1) like a remix. */
function registerRemix(app: FastifyInstance, videos: Videos): void {
  const { state, rules } = videos
  app.post<Params>('/v1/videos/:video_id/remix', async (request, reply) => {
    if (!rules.offersRemix)
      throw new GatewayError(404, `Unknown route: POST ${state.contexts.of(request).path}`, {
        code: 'unsupported_route',
      })
    return remix(videos, request, reply, request.params.video_id)
  })

  if (rules.offersEdits)
    app.post('/v1/videos/edits', async (request, reply) => {
      const body = isObject(request.body) ? request.body : {}
      return remix(videos, request, reply, typeof body.video_id === 'string' ? body.video_id : '')
    })
}

async function remix(videos: Videos, request: FastifyRequest, reply: FastifyReply, sourceId: string) {
  const { rules, store, vary } = videos
  const source = videos.jobOf(request, sourceId)
  const body = isObject(request.body) ? request.body : {}
  if (store.status(source) !== 'completed')
    throw invalidParameter(
      'video_id',
      `Only a completed video can be remixed; '${source.id}' is ${store.status(source)}.`,
    )
  // The create rules of section 4.1 apply to the new prompt and safety_identifier; model, seconds and size are the source's.
  const spec = checkCreate(
    { fields: { ...body, model: source.model, seconds: source.seconds, size: source.size }, reference: null },
    rules,
  )
  const job = videos.start(
    request,
    { ...spec, safetyIdentifier: spec.safetyIdentifier ?? source.safetyIdentifier },
    source.id,
  )
  return reply.code(vary.createdStatus).send(videos.view(job))
}

/** What the call's transaction records (Part 1 section 2.2): the model and the caller's identifier. */
function recordCall(context: RequestContext, model: string, safetyIdentifier: string | null): void {
  context.model = model
  if (safetyIdentifier !== null) context.safetyIdentifier = safetyIdentifier
}
