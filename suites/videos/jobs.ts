/**
 * Creating, reading and cleaning up video jobs (Part 2 sections 2.1, 3, 4.1) for the videos suite.
 *
 * Every job a test creates is tagged with a safety_identifier that starts with the run's id, and recorded
 * (its id, or its tag when no answer came back), so that afterAll deletes everything the file created,
 * including what a failing test left behind. Every create first reserves its estimated cost with spend():
 * seconds times the model's price per second from the target's catalogue, rounded up to the cent.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { expectKeyAccepted, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/keys.ts'
import { mapLimit, memo, randomSuffix } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { multipartBody, type FilePart } from '../../harness/worker/multipart.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { runTag } from '../../harness/worker/run-tag.ts'
import { perFile, runConfig, spend, SUITE_DEFAULTS } from '../../harness/worker/suite.ts'
import limits from '../../schemas/limits/video-limits.json' with { type: 'json' }
import { CREDIT_SETTLE } from '../shared/credit.ts'
import { namedModel } from '../shared/named-models.ts'
import { videoContainer } from './mp4-check.ts'
import { howToNameId, isNamed, targetName } from '../shared/names.ts'

export const VIDEO = limits
/** The eight models by the reference's names; the target's names come from GATEWAY_NAMES (videoModel). */
export const VIDEO_MODELS = Object.keys(limits.models)
export type VideoModelName = keyof typeof limits.models
export const STATUSES: readonly string[] = limits.statuses
export const TERMINAL: readonly string[] = ['completed', 'failed']

/**
 * A create "returns the job" (§4.1) without a stated status, and Part 1 §7 gives "2xx success": 200, 201 for a
 * created resource and 202 for an asynchronous job are all the job returned.
 */
export function isAccepted(status: number): boolean {
  return status >= 200 && status < 300
}

/** What a check expects of a create or remix, in its words. */
export const ACCEPTED_WORDS = 'a 2xx that returns the job'

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

/**
 * What this file created, for afterAll: job ids, the tags of creates that may have left a job unseen, and the calls
 * still in flight (a test that ends early, say on a budget skip, leaves them running: afterAll waits for them).
 */
const created = perFile(() => ({
  ids: new Map<string, KeySlot>(),
  tags: new Map<string, KeySlot>(),
  inFlight: new Set<Promise<unknown>>(),
}))

/** Holds a create or remix in flight until it has answered, so that cleanup finds what it made. */
function held<T>(call: Promise<T>): Promise<T> {
  const inFlight = created().inFlight
  inFlight.add(call)
  const done = (): void => void inFlight.delete(call)
  call.then(done, done)
  return call
}

/**
 * A safety_identifier unique to this run and call: the run id first, so a run's jobs are recognisable, then a
 * random part, then the label for people reading a list. At most 64 characters, so that no reading of the
 * 256-character limit (and no other endpoint's 64, Part 1 §8.5) can refuse it.
 */
export function tag(label: string): string {
  return runTag(runConfig().runId, `${randomSuffix()}-${label}`)
}

interface Catalogue {
  /** Every model id the target lists. */
  ids: ReadonlySet<string>
  /** US dollars per second of video, by id (Part 1 §2.3 pricing.output), where positive. */
  prices: ReadonlyMap<string, number>
}

/** The target's model list, read once per file. */
function catalogueOf(api: TargetClient): () => Promise<Catalogue> {
  return memo(async () => {
    const ex = await api.get('/v1/models')
    const data = isObject(ex.json) && Array.isArray(ex.json.data) ? ex.json.data : []
    const ids = new Set<string>()
    const prices = new Map<string, number>()
    for (const item of data) {
      if (!isObject(item) || typeof item.id !== 'string') continue
      ids.add(item.id)
      const output = isObject(item.pricing) ? item.pricing.output : undefined
      if (typeof output === 'number' && Number.isFinite(output) && output > 0) prices.set(item.id, output)
    }
    return { ids, prices }
  })
}

const catalogueCache = new WeakMap<TargetClient, () => Promise<Catalogue>>()

function catalogue(api: TargetClient): Promise<Catalogue> {
  let read = catalogueCache.get(api)
  if (read === undefined) {
    read = catalogueOf(api)
    catalogueCache.set(api, read)
  }
  return read()
}

const routeProbes = new WeakMap<TargetClient, () => Promise<{ list: Exchange; create: Exchange | undefined }>>()

/**
 * Skips the running test when both GET and POST /v1/videos answer 404 to the main key: the target does not serve the
 * video routes, one cause that P2-2.1-video-list reports (a missing model name is not the fix). A target lacking only
 * the list still has its creates judged. The create probe has an empty body: no model, so no job and no charge.
 */
export async function requireVideoRoutes(api: TargetClient): Promise<void> {
  let probe = routeProbes.get(api)
  if (probe === undefined) {
    probe = memo(async () => {
      const list = await api.get('/v1/videos')
      return { list, create: list.status === 404 ? await api.post('/v1/videos', {}) : undefined }
    })
    routeProbes.set(api, probe)
  }
  const { create } = await probe()
  precondition(
    create?.status !== 404,
    'P2-2.1-video-list',
    'GET and POST /v1/videos answered 404: the target does not serve the video routes of §4.1',
  )
}

/**
 * The target's name for a video model of the reference, or undefined when the user named none for it (GATEWAY_NAMES)
 * and the target does not list it: the reference writes the makers' names with a neutral word, so an absent name
 * says nothing about the target.
 */
export async function presentVideoModel(api: TargetClient, reference: string): Promise<string | undefined> {
  await requireVideoRoutes(api)
  const name = targetName(reference)
  if (isNamed(reference) || (await catalogue(api)).ids.has(name)) return name
  return undefined
}

/** As presentVideoModel, skipping the test when the model is absent, naming the variable that would make it run. */
export async function videoModel(api: TargetClient, reference: string): Promise<string> {
  const name = await presentVideoModel(api, reference)
  if (name === undefined) skipTest(`the target lists no video model ${reference}: ${howToNameId(reference)}`)
  return name
}

/** The estimated cost of a job in US dollars, rounded up to the cent. */
export async function estimateUsd(api: TargetClient, model: string, seconds: unknown): Promise<number> {
  const perSecond = (await catalogue(api)).prices.get(model) ?? COST_DEFAULTS.fallbackUsdPerSecond
  // A refused or odd seconds value still reserves the longest listed duration: the target may accept it.
  const n = typeof seconds === 'string' && /^\d{1,3}$/.test(seconds) ? Math.max(Number(seconds), 1) : 12
  return Math.ceil(n * perSecond * 100) / 100
}

/**
 * The model of a create that names none of its own: the video model GATEWAY_MODELS names, else the target's name
 * for vidA-2, the reference's first (a skip naming GATEWAY_NAMES where the target has none).
 */
export async function defaultVideoModel(api: TargetClient): Promise<string> {
  return namedModel('video') ?? (await videoModel(api, 'vidA-2'))
}

/** As defaultVideoModel, but undefined instead of a skip where the target has none. */
export async function someVideoModel(api: TargetClient): Promise<string | undefined> {
  return namedModel('video') ?? (await presentVideoModel(api, 'vidA-2'))
}

/** Before a create: its tag, in case no answer comes back and the job is found only by it. */
export function trackTag(sid: string | null, key: KeySlot): void {
  if (sid !== null) created().tags.set(sid, key)
}

/** A job some other call made (a route that should not have made one): deleted with the file's others. */
export function trackJob(id: string, key: KeySlot = 'main'): void {
  created().ids.set(id, key)
}

/** After: the job's id; the tag stays only when the answer left it unknown whether a job exists. */
function settle(ex: Exchange, id: string | undefined, sid: string | null, key: KeySlot): void {
  if (id !== undefined) created().ids.set(id, key)
  if (sid !== null && (id !== undefined || !isAccepted(ex.status))) created().tags.delete(sid)
}

/** POST /v1/videos, as JSON or (with a reference image) multipart, after reserving its cost. */
export function createVideo(api: TargetClient, options: CreateOptions): Promise<Created> {
  return held(create(api, options))
}

async function create(api: TargetClient, options: CreateOptions): Promise<Created> {
  await requireVideoRoutes(api)
  const model = options.model ?? (await defaultVideoModel(api))
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
  const id = isAccepted(ex.status) && typeof job?.id === 'string' ? job.id : undefined
  settle(ex, id, safetyIdentifier, key)
  return { ex, job, id, safetyIdentifier, model }
}

/**
 * Creates whose answers only set up what a test judges, at most `limit` at once. Once one of them throws (a budget
 * skip, say) no more start, and those in flight are awaited before it is rethrown: no create outlives its test.
 */
export async function createAll<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  let first: { error: unknown } | undefined
  const results = await mapLimit(items, limit, async (item) => {
    if (first !== undefined) return undefined
    try {
      return await fn(item)
    } catch (error) {
      first ??= { error }
      return undefined
    }
  })
  if (first !== undefined) throw first.error
  return results as R[]
}

/**
 * A create that only sets up what the test judges: another answer than a job skips the test, naming the failed
 * create (the create rules judge it where they run).
 */
export async function acceptedVideo(
  api: TargetClient,
  options: CreateOptions,
): Promise<Created & { id: string; job: Record<string, unknown> }> {
  const made = await createVideo(api, options)
  expectCreated(made, `a valid create (${options.label}) returns the job`)
  return made as Created & { id: string; job: Record<string, unknown> }
}

/** For a create that only sets up what a test judges: anything but a 2xx with a job skips the test, naming it. */
export function expectCreated(
  made: Created,
  what: string,
): asserts made is Created & {
  id: string
  job: Record<string, unknown>
} {
  const { excerpt, status } = made.ex
  expectKeyAccepted(made.ex)
  if (!isAccepted(status))
    skipTest(`set-up failed: ${what}: ${excerpt.method} ${excerpt.path} answered ${status}, not a 2xx`)
  precondition(
    made.id !== undefined && made.job !== undefined,
    'P2-2.1-video-job',
    `the create answered no job id: ${made.ex.text.slice(0, 200)}`,
  )
}

/**
 * POST /v1/videos/{id}/remix with a body of prompt alone (§4.1: "body carries prompt; other fields are not shown"),
 * after reserving its cost (the source's seconds). Without a tag of its own, the new job is cleaned up by its id.
 */
export function remixVideo(
  api: TargetClient,
  source: Created,
  prompt: string,
  key: KeySlot = 'main',
): Promise<Created> {
  return held(remix(api, source, prompt, key))
}

async function remix(api: TargetClient, source: Created, prompt: string, key: KeySlot): Promise<Created> {
  const seconds = source.job?.seconds ?? limits.defaultSeconds
  spend(await estimateUsd(api, source.model, seconds), `${String(seconds)} s ${source.model} remix`)
  const ex = await api.post(`/v1/videos/${encodeURIComponent(source.id as string)}/remix`, { prompt }, { key })
  const job = isObject(ex.json) ? ex.json : undefined
  const id = isAccepted(ex.status) && typeof job?.id === 'string' ? job.id : undefined
  settle(ex, id, null, key)
  const sid = typeof job?.safety_identifier === 'string' ? job.safety_identifier : null
  return { ex, job, id, safetyIdentifier: sid, model: source.model }
}

export function videoPath(id: string, suffix = ''): string {
  return `/v1/videos/${encodeURIComponent(id)}${suffix}`
}

const CONTENT_DEFAULTS = {
  accept: { accept: '*/*' }, // the file's type is not shown: accept whatever it is
  maxRedirects: 3, // a download by redirect takes one hop; more is a loop
}

export interface Download {
  /** The answer of GET .../content itself. */
  first: Exchange
  /** The answer that ends it: the first, or the last of the redirects followed. */
  final: Exchange
  redirects: number
}

/**
 * GET /v1/videos/{id}/content, following a redirect to where the file is (a download of §4.1: "content URLs are not
 * durable storage"). A redirect to another origin (a storage host) is followed without the key, which never leaves
 * the service; one to the service's own origin keeps it.
 */
export async function downloadContent(api: TargetClient, id: string, key: KeySlot = 'main'): Promise<Download> {
  const first = await api.get(videoPath(id, '/content'), { key, headers: CONTENT_DEFAULTS.accept })
  let final = first
  let redirects = 0
  const service = new URL(runConfig().baseUrl).origin
  let from = new URL(videoPath(id, '/content'), runConfig().baseUrl)
  while (final.status >= 300 && final.status < 400 && redirects < CONTENT_DEFAULTS.maxRedirects) {
    const location = final.header('location')
    if (location === undefined) break
    const to = new URL(location, from)
    final = await api.request({
      method: 'GET',
      path: to.toString(),
      key: to.origin === service ? key : null,
      headers: CONTENT_DEFAULTS.accept,
    })
    redirects += 1
    from = to
  }
  return { first, final, redirects }
}

/** Media types of a message rather than a file: text ("still processing") and JSON (an error, a job). */
const MESSAGE_TYPE = /^\s*(text\/|application\/([\w.-]+\+)?json\b)/i

/**
 * Whether an answer hands over a file: a 2xx whose bytes are a recognisable video container, or whose content-type
 * says it is neither text nor JSON. A plain-text or JSON message, however it is labelled, is no file.
 */
export function servesBytes(ex: Exchange): boolean {
  if (ex.status < 200 || ex.status >= 300 || ex.bytes.length === 0 || ex.json !== undefined) return false
  if (videoContainer(ex.bytes) !== undefined) return true
  const type = ex.header('content-type')
  return type !== undefined && !MESSAGE_TYPE.test(type)
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
  await requireVideoRoutes(api)
  const ex = await api.get('/v1/videos', { query, key })
  expectKeyAccepted(ex)
  precondition(isAccepted(ex.status), 'P2-2.1-video-list', `${ex.excerpt.path} answered ${ex.status}, not a 2xx`)
  precondition(
    schemas().validate('videos/list.json', ex.json).ok,
    'P2-2.1-video-list',
    `${ex.excerpt.path} did not answer an object with a data array`,
  )
  return { ex, items: (ex.json as { data: unknown[] }).data.filter(isObject) }
}

const SETTLE_POLL = {
  firstDelayMs: 100, // the first wait before a list is read again; each wait doubles
  maxDelayMs: 2_000,
}

/**
 * How long a call's effect may take to show in a later read (a created job in the list, a deleted one gone): §4.1
 * says what the routes do, not how soon another call sees it. The run's settle bound, GATEWAY_SETTLE_MS.
 */
export function settleMs(): number {
  return CREDIT_SETTLE.timeoutMs
}

/**
 * The timeout of a test that waits up to `waits` times for the settle bound: a test's usual time for its calls
 * (SUITE_DEFAULTS, as check() gives) plus the waits, so that a long settle bound ends in a verdict, not a timeout.
 */
export function settlingTimeout(waits = 1): { timeout: number } {
  const calls = Math.max(SUITE_DEFAULTS.testTimeoutMs, SUITE_DEFAULTS.callsPerTimeout * runConfig().timeoutMs)
  return { timeout: waits * settleMs() + calls }
}

/**
 * Calls `read` until `done` holds of its answer or the settle bound passes, waiting longer each time; returns the last
 * answer, whether it held, and how long that took.
 */
export async function readUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
): Promise<{ value: T; settled: boolean; waitedMs: number }> {
  const started = Date.now()
  for (let delay = SETTLE_POLL.firstDelayMs; ; delay = Math.min(delay * 2, SETTLE_POLL.maxDelayMs)) {
    const value = await read()
    const waitedMs = Date.now() - started
    if (done(value)) return { value, settled: true, waitedMs }
    if (waitedMs + delay > settleMs()) return { value, settled: false, waitedMs }
    await sleep(delay)
  }
}

/** The list read until `done` holds of its jobs, within the settle bound (readUntil). */
export async function listUntil(
  api: TargetClient,
  query: Record<string, string>,
  done: (items: Array<Record<string, unknown>>) => boolean,
  key: KeySlot = 'main',
): Promise<VideoList & { settled: boolean; waitedMs: number }> {
  const { value, settled, waitedMs } = await readUntil(
    () => listVideos(api, query, key),
    (list) => done(list.items),
  )
  return { ...value, settled, waitedMs }
}

/** Deletes every job this file created or may have created (afterAll). Best effort: cleanup never fails a test. */
export async function deleteCreated(api: TargetClient): Promise<void> {
  await Promise.allSettled([...created().inFlight])
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
