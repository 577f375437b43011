/**
 * Creating, reading and cleaning up video jobs (Part 2 sections 2.1, 3, 4.1) for the videos suite.
 *
 * Every job a test creates is tagged with a safety_identifier that starts with the run's id, and recorded
 * (its id, or its tag when no answer came back), so that afterAll deletes everything the file created,
 * including what a failing test left behind. Every create first reserves its estimated cost with spend():
 * seconds times the model's price per second from the target's catalogue, rounded up to the cent.
 */
import { expectStatus, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/config.ts'
import { memo, randomSuffix } from '../../harness/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/http-client.ts'
import { multipartBody, type FilePart } from '../../harness/multipart.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { runTag } from '../../harness/run-tag.ts'
import { perFile, runConfig, spend } from '../../harness/suite.ts'
import limits from '../../schemas/limits/video-limits.json' with { type: 'json' }
import { namedModel } from '../shared/named-models.ts'

export const VIDEO = limits
export const VIDEO_MODELS = Object.keys(limits.models)
export const STATUSES: readonly string[] = limits.statuses
export const TERMINAL: readonly string[] = ['completed', 'failed']

/** A create "returns the job" (§4.1) without a stated status: 200, or 201 for a created resource. */
export const ACCEPTED: readonly number[] = [200, 201]

const COST_DEFAULTS = {
  /**
   * US dollars per second of video when the target's catalogue gives no positive price for a model: above the
   * widely used video models' list prices, so that a budget is never under-reserved.
   */
  fallbackUsdPerSecond: 0.5,
}

/**
 * The reference gateway's documented trigger for a job that cannot start (gateway/README.md, Videos). Another
 * target may start such a job; tests that need a failed job then skip, saying so.
 */
export const CANNOT_START_MARKER = 'gc:cannot-start'

export interface CreateOptions {
  /** Short words for the tag and the spend note, e.g. "seconds-12". */
  label: string
  model?: string
  /** Any other body fields, sent as they are (seconds must be a string to be valid). */
  fields?: Record<string, unknown>
  /** Sends the body as multipart/form-data with this image as input_reference. */
  reference?: FilePart
  /** The safety_identifier; default a fresh tag of the run. null sends none. */
  safetyIdentifier?: string | null
  key?: KeySlot
}

export interface Created {
  ex: Exchange
  /** The answer as an object, when it is one. */
  job: Record<string, unknown> | undefined
  id: string | undefined
  safetyIdentifier: string | null
  model: string
}

/** What this file created, for afterAll: job ids, and the tags of creates that may have left a job unseen. */
const created = perFile(() => ({ ids: new Map<string, KeySlot>(), tags: new Map<string, KeySlot>() }))

/**
 * A safety_identifier unique to this run and call: the run id first, so a run's jobs are recognisable, then a
 * random part, then the label for people reading a list. At most 64 characters, so that no reading of the
 * 256-character limit (and no other endpoint's 64, Part 1 §8.5) can refuse it.
 */
export function tag(label: string): string {
  return runTag(runConfig().runId, `${randomSuffix()}-${label}`)
}

/** Prices per second from the target's model list (Part 1 §2.3 pricing.output), read once per file. */
function pricesOf(api: TargetClient): () => Promise<Map<string, number>> {
  return memo(async () => {
    const ex = await api.get('/v1/models')
    const data = isObject(ex.json) && Array.isArray(ex.json.data) ? ex.json.data : []
    const prices = new Map<string, number>()
    for (const item of data) {
      if (!isObject(item) || typeof item.id !== 'string' || !isObject(item.pricing)) continue
      const output = item.pricing.output
      if (typeof output === 'number' && Number.isFinite(output) && output > 0) prices.set(item.id, output)
    }
    return prices
  })
}

const priceCache = new WeakMap<TargetClient, () => Promise<Map<string, number>>>()

/** The estimated cost of a job in US dollars, rounded up to the cent. */
export async function estimateUsd(api: TargetClient, model: string, seconds: unknown): Promise<number> {
  let prices = priceCache.get(api)
  if (prices === undefined) {
    prices = pricesOf(api)
    priceCache.set(api, prices)
  }
  const perSecond = (await prices()).get(model) ?? COST_DEFAULTS.fallbackUsdPerSecond
  // A refused or odd seconds value still reserves the longest listed duration: the target may accept it.
  const n = typeof seconds === 'string' && /^\d{1,3}$/.test(seconds) ? Math.max(Number(seconds), 1) : 12
  return Math.ceil(n * perSecond * 100) / 100
}

/** The model of a create that names none of its own: the video model GATEWAY_MODELS names, else vidA-2, the reference's first. */
export function defaultVideoModel(): string {
  return namedModel('video') ?? 'vidA-2'
}

/** Before a create: its tag, in case no answer comes back and the job is found only by it. */
export function trackTag(sid: string | null, key: KeySlot): void {
  if (sid !== null) created().tags.set(sid, key)
}

/** After: the job's id; the tag stays only when the answer left it unknown whether a job exists. */
function settle(ex: Exchange, id: string | undefined, sid: string | null, key: KeySlot): void {
  if (id !== undefined) created().ids.set(id, key)
  if (sid !== null && (id !== undefined || !ACCEPTED.includes(ex.status))) created().tags.delete(sid)
}

/** POST /v1/videos, as JSON or (with a reference image) multipart, after reserving its cost. */
export async function createVideo(api: TargetClient, options: CreateOptions): Promise<Created> {
  const model = options.model ?? defaultVideoModel()
  const key = options.key ?? 'main'
  const safetyIdentifier = options.safetyIdentifier === undefined ? tag(options.label) : options.safetyIdentifier
  const fields: Record<string, unknown> = {
    model,
    prompt: `gateway-conformance ${options.label}: a paper boat drifting on a calm lake`,
    ...options.fields,
  }
  if (safetyIdentifier !== null) fields.safety_identifier = safetyIdentifier
  for (const [name, value] of Object.entries(fields)) if (value === undefined) delete fields[name]
  spend(
    await estimateUsd(api, String(fields.model), fields.seconds ?? limits.defaultSeconds),
    `${String(fields.seconds ?? limits.defaultSeconds)} s ${String(fields.model)} video (${options.label})`,
  )
  trackTag(safetyIdentifier, key)
  let ex: Exchange
  if (options.reference === undefined) {
    ex = await api.post('/v1/videos', fields, { key })
  } else {
    const body = multipartBody(
      Object.entries(fields).map(([name, value]) => [name, String(value)] as const),
      { name: 'input_reference', ...options.reference },
    )
    ex = await api.request({
      method: 'POST',
      path: '/v1/videos',
      key,
      headers: body.headers,
      body: body.chunks,
      bodyNote: body.note,
    })
  }
  const job = isObject(ex.json) ? ex.json : undefined
  const id = ACCEPTED.includes(ex.status) && typeof job?.id === 'string' ? job.id : undefined
  settle(ex, id, safetyIdentifier, key)
  return { ex, job, id, safetyIdentifier, model }
}

/** A create that must be accepted, answering a job with an id; otherwise the test is skipped or fails. */
export async function acceptedVideo(
  api: TargetClient,
  options: CreateOptions,
): Promise<Created & { id: string; job: Record<string, unknown> }> {
  const made = await createVideo(api, options)
  expectStatus(made.ex, ACCEPTED, 'a valid create returns the job')
  precondition(
    made.id !== undefined && made.job !== undefined,
    'P2-2.1-video-job',
    `the create answered no job id: ${made.ex.text.slice(0, 200)}`,
  )
  return made as Created & { id: string; job: Record<string, unknown> }
}

/** POST /v1/videos/{id}/remix, after reserving its cost (the source's seconds). */
export async function remixVideo(
  api: TargetClient,
  source: Created,
  prompt: string,
  key: KeySlot = 'main',
): Promise<Created> {
  const sid = tag('remix')
  const seconds = source.job?.seconds ?? limits.defaultSeconds
  spend(await estimateUsd(api, source.model, seconds), `${String(seconds)} s ${source.model} remix`)
  trackTag(sid, key)
  const ex = await api.post(
    `/v1/videos/${encodeURIComponent(source.id as string)}/remix`,
    { prompt, safety_identifier: sid },
    { key },
  )
  const job = isObject(ex.json) ? ex.json : undefined
  const id = ACCEPTED.includes(ex.status) && typeof job?.id === 'string' ? job.id : undefined
  settle(ex, id, sid, key)
  return { ex, job, id, safetyIdentifier: sid, model: source.model }
}

export function videoPath(id: string, suffix = ''): string {
  return `/v1/videos/${encodeURIComponent(id)}${suffix}`
}

export interface VideoList {
  ex: Exchange
  items: Array<Record<string, unknown>>
}

/** GET /v1/videos with filters; skipped (needs P2-2.1-video-list) when the answer is not an object with data. */
export async function listVideos(
  api: TargetClient,
  query: Record<string, string> = {},
  key: KeySlot = 'main',
): Promise<VideoList> {
  const ex = await api.get('/v1/videos', { query, key })
  expectStatus(ex, 200)
  precondition(
    schemas().validate('videos/list.json', ex.json).ok,
    'P2-2.1-video-list',
    `${ex.record.path} did not answer an object with a data array`,
  )
  return { ex, items: (ex.json as { data: unknown[] }).data.filter(isObject) }
}

/** Deletes every job this file created or may have created (afterAll). Best effort: cleanup never fails a test. */
export async function deleteCreated(api: TargetClient): Promise<void> {
  const targets = new Map(created().ids)
  for (const [sid, key] of created().tags) {
    try {
      const list = await api.get('/v1/videos', { query: { safety_identifier: sid }, key })
      const data = isObject(list.json) && Array.isArray(list.json.data) ? list.json.data : []
      for (const item of data)
        if (isObject(item) && item.safety_identifier === sid && typeof item.id === 'string') targets.set(item.id, key)
    } catch {
      // an unreachable target: nothing more to do here
    }
  }
  for (const [id, key] of targets) {
    try {
      await api.request({ method: 'DELETE', path: videoPath(id), key })
    } catch {
      // already gone or unreachable
    }
  }
  created().ids.clear()
  created().tags.clear()
}
