/**
 * One video job through its life (Part 2 §2.1, §3, §4.1, §6.3): the job object and its request_id, retrieve,
 * the status values, polling with backoff until it ends, content withheld before completion and downloaded after
 * (directly or by redirect), terminal statuses that stay, remix, delete, and the answers for a deleted job and for
 * ids never issued. A second job, made with the reference gateway's cannot-start trigger, shows a failed job where
 * the target produces one; no client can make a job fail to start, so what needs one is otherwise not observed.
 */
import { afterAll, describe } from 'vitest'
import {
  expectKeyAccepted,
  expectSchema,
  expectSuccess,
  expectThat,
  notObserved,
  precondition,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, target, runConfig, spend } from '../../harness/worker/suite.ts'
import {
  ACCEPTED_WORDS,
  CANNOT_START_MARKER,
  createVideo,
  deleteCreated,
  type Download,
  downloadContent,
  expectCreated,
  isAccepted,
  listUntil,
  listVideos,
  estimateUsd,
  readUntil,
  remixVideo,
  requireVideoRoutes,
  servesBytes,
  settleMs,
  settlingTimeout,
  trackJob,
  type Created,
  VIDEO,
  videoPath,
} from './jobs.ts'
import { targetName } from '../shared/names.ts'
import { checkMp4, describeBoxes, mp4Presentation, videoContainer } from './mp4-check.ts'
import {
  isKnownStatus,
  laterStatuses,
  POLL_DEFAULTS,
  POLLING_TEST_TIMEOUT_MS,
  pollUntilTerminal,
  statusOf,
  type Poll,
} from './poll.ts'

const api = target()
afterAll(() => deleteCreated(api))

interface Lifecycle {
  made: Created
  /** GET .../content right after the create (with any redirect followed), and the retrieve right after that. */
  early: Download | undefined
  afterEarly: Exchange | undefined
}

interface Polled {
  poll: Poll | undefined
  /** Retrievals after the poll ended. */
  later: Array<{ ex: Exchange; status: unknown }>
  /** GET .../content once the job completed, with any redirect followed. */
  content: Download | undefined
}

/** The main job: created, and its content asked for at once, before it can have completed. */
const lifecycle = memo(async (): Promise<Lifecycle> => {
  const made = await createVideo(api, { label: 'lifecycle' })
  if (made.id === undefined) return { made, early: undefined, afterEarly: undefined }
  const early = await downloadContent(api, made.id)
  const afterEarly = await api.get(videoPath(made.id))
  return { made, early, afterEarly }
})

/** The main job polled to its end (minutes on a real target: only tests with the polling timeout await this). */
const polled = memo(async (): Promise<Polled> => {
  const { made } = await lifecycle()
  if (made.id === undefined) return { poll: undefined, later: [], content: undefined }
  const poll = await pollUntilTerminal(api, made.id)
  const later = poll.terminal === undefined ? [] : await laterStatuses(api, made.id)
  const content = poll.terminal === 'completed' ? await downloadContent(api, made.id) : undefined
  return { poll, later, content }
})

/** A job that cannot start, where the target makes one (the reference gateway does, on its documented trigger). */
const failedJob = memo(async () => {
  const made = await createVideo(api, {
    label: 'cannot-start',
    fields: { prompt: `gateway-conformance ${CANNOT_START_MARKER}: a job that cannot start` },
  })
  const status = made.job?.status
  if (made.id === undefined || status !== 'failed')
    return { made, content: undefined, later: [] as Array<{ ex: Exchange; status: unknown }> }
  const content = await downloadContent(api, made.id)
  const later = await laterStatuses(api, made.id)
  return { made, content, later }
})

/** A never-issued id, of the form the reference's own examples suggest: a target may still read it as malformed. */
function neverIssuedId(what: string): string {
  return `video_gc_${runConfig().runId.replace(/[^A-Za-z0-9]/g, '')}_${what}`
}

/**
 * The main job deleted (by P2-4.1-delete, last but one in the file), with the answer of its DELETE and the retrieves
 * after it until the job was gone or the settle bound passed: a delete may be accepted (202) and done a moment later.
 */
const deletion = memo(async () => {
  const f = await startedJob()
  const deleted = await api.request({ method: 'DELETE', path: videoPath(f.id) })
  const gone = isAccepted(deleted.status)
    ? await readUntil(
        () => api.get(videoPath(f.id)),
        (ex) => ex.status >= 400 && ex.status < 500,
      )
    : undefined
  return { ...f, deleted, gone }
})

async function startedJob(): Promise<Lifecycle & { id: string; job: Record<string, unknown> }> {
  // The failed job's checks wait on a schedule too: let it run beside the main job's (its errors surface where it is
  // awaited). The main job is polled from its creation on, so that the statuses it passes through are seen.
  failedJob().catch(() => {})
  const f = await lifecycle()
  polled().catch(() => {})
  const { made } = f
  expectCreated(made, `a create of ${made.model} with the defaults returns the job`)
  return { ...f, id: made.id, job: made.job }
}

/** The main job polled to its end; skipped when it reached none (P2-6.3-poll-terminal reports that). */
async function ended(): Promise<Lifecycle & Polled & { id: string; job: Record<string, unknown>; terminal: string }> {
  const f = await startedJob()
  const p = await polled()
  precondition(
    p.poll?.terminal !== undefined,
    'P2-6.3-poll-terminal',
    `the job did not end within ${POLL_DEFAULTS.timeoutMs} ms of polling`,
  )
  return { ...f, ...p, id: f.id, terminal: p.poll.terminal }
}

describe('the video job (Part 2 §2.1, Part 1 §4.1)', () => {
  check(
    'P2-2.1-video-job',
    'create, retrieve and list answer video jobs; safety_identifier is the one sent',
    async () => {
      const f = await startedJob()
      expectSchema(f.made.ex, 'videos/job.json')
      expectThat(
        f.job.safety_identifier === f.made.safetyIdentifier,
        `safety_identifier ${JSON.stringify(f.made.safetyIdentifier)}, as sent`,
        `safety_identifier ${JSON.stringify(f.job.safety_identifier)}`,
        f.made.ex,
      )
      const retrieved = await api.get(videoPath(f.made.id as string))
      expectSuccess(retrieved, 'GET /v1/videos/{video_id} retrieves the job')
      expectSchema(retrieved, 'videos/job.json')
      const list = await listUntil(api, { safety_identifier: f.made.safetyIdentifier as string }, (items) =>
        items.some((item) => item.id === f.made.id),
      )
      const ours = list.items.filter((item) => item.id === f.made.id)
      expectThat(
        ours.length === 1,
        `the job ${f.made.id} listed once under its safety_identifier, within ${settleMs()} ms`,
        `${ours.length} times`,
        list.ex,
      )
      expectSchema(list.ex, 'videos/job.json', ours[0], 'the listed job')
    },
    settlingTimeout(),
  )

  check(
    'P2-2.1-request-id',
    'request_id is the svc-request-id of the creating call, on create and on retrieve',
    async () => {
      const f = await startedJob()
      const header = f.made.ex.svcRequestId
      precondition(header !== undefined, 'P1-4.1-svc-request-id', 'the create answered no svc-request-id header')
      expectThat(
        f.job.request_id === header,
        `request_id ${header} (the svc-request-id header)`,
        `request_id ${JSON.stringify(f.job.request_id)}`,
        f.made.ex,
      )
      const retrieved = await api.get(videoPath(f.made.id as string))
      expectSuccess(retrieved, 'GET /v1/videos/{video_id} retrieves the job')
      const again = isObject(retrieved.json) ? retrieved.json.request_id : undefined
      expectThat(
        again === header,
        `request_id ${header} on retrieve too`,
        `request_id ${JSON.stringify(again)}`,
        retrieved,
      )
    },
  )

  check(
    'P2-4.1-retrieve',
    'GET /v1/videos/{video_id} answers the job with the id, request_id and safety_identifier of its creation',
    async () => {
      const f = await startedJob()
      const ex = await api.get(videoPath(f.made.id as string))
      expectSuccess(ex, 'GET /v1/videos/{video_id} retrieves the job')
      const body = isObject(ex.json) ? ex.json : {}
      const differences = (['id', 'request_id', 'safety_identifier'] as const).flatMap((field) =>
        JSON.stringify(body[field]) === JSON.stringify(f.job[field])
          ? []
          : [`${field}: create ${JSON.stringify(f.job[field])}, retrieve ${JSON.stringify(body[field])}`],
      )
      expectThat(differences.length === 0, 'the job as its creation described it', differences, ex)
    },
  )

  check(
    'P1-7-video-never-issued',
    'retrieve, delete and content of a video id never issued answer 400 or 404',
    async () => {
      await requireVideoRoutes(api)
      const id = neverIssuedId('missing')
      const answers = [
        await api.get(videoPath(id)),
        await api.request({ method: 'DELETE', path: videoPath(id) }),
        await api.get(videoPath(id, '/content'), { headers: { accept: '*/*' } }),
      ]
      observe('a video id never issued', answers.map((ex) => `${ex.excerpt.method} ${ex.status}`).join(', '))
      const bad = answers.filter((ex) => ex.status !== 400 && ex.status !== 404)
      expectThat(
        bad.length === 0,
        'status 400 (an id the target cannot read: ids are opaque) or 404 (resource missing)',
        bad.map((ex) => `${ex.excerpt.method} ${ex.excerpt.path}: ${ex.status}`),
        bad[0],
      )
    },
  )
})

describe('states (Part 2 §3, §6.3)', () => {
  check(
    'P2-3-status-values',
    'every status seen, on create, while polling and in the list, is queued, processing, completed or failed',
    async () => {
      const f = { ...(await startedJob()), ...(await polled()) }
      const failed = await failedJob()
      const seen: Array<{ where: string; status: unknown; ex: Exchange }> = [
        { where: 'create', status: f.job.status, ex: f.made.ex },
      ]
      if (f.afterEarly) seen.push({ where: 'retrieve', status: statusOf(f.afterEarly), ex: f.afterEarly })
      f.poll?.seen.forEach((p, i) => {
        seen.push({ where: `poll ${i + 1} (${p.atMs} ms)`, status: p.status, ex: p.ex })
      })
      f.later.forEach((p, i) => {
        seen.push({ where: `retrieve after the end ${i + 1}`, status: p.status, ex: p.ex })
      })
      if (failed.made.job)
        seen.push({ where: 'create of a job that cannot start', status: failed.made.job.status, ex: failed.made.ex })
      const list = await listVideos(api, { safety_identifier: f.made.safetyIdentifier as string })
      list.items.forEach((item, i) => {
        seen.push({ where: `list /data/${i}`, status: item.status, ex: list.ex })
      })
      observe(
        'video statuses seen',
        seen
          .filter((s) => s.where.startsWith('poll') || s.where === 'create')
          .map((s) => `${s.where}: ${String(s.status)}`)
          .join('; '),
      )
      const bad = seen.filter((s) => !isKnownStatus(s.status))
      if (bad.length > 0)
        observe(
          'video status outside the observed four',
          [...new Set(bad.map((s) => JSON.stringify(s.status)))].join(', '),
        )
      expectThat(
        bad.length === 0,
        'status one of the observed queued, processing, completed, failed',
        bad.map((s) => `${s.where}: ${JSON.stringify(s.status)}`),
        bad[0]?.ex,
      )
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )

  check(
    'P2-6.3-poll-terminal',
    `polled with exponential backoff, a job reaches completed or failed within ${POLL_DEFAULTS.timeoutMs / 60_000} minutes`,
    async () => {
      await startedJob()
      const poll = (await polled()).poll as Poll
      const last = poll.seen.at(-1)
      precondition(
        last === undefined || isAccepted(last.ex.status),
        'P2-4.1-retrieve',
        `a poll answered ${last?.ex.status}`,
      )
      expectThat(
        poll.terminal !== undefined,
        `completed or failed within ${POLL_DEFAULTS.timeoutMs} ms`,
        `still ${JSON.stringify(last?.status)} after ${poll.elapsedMs} ms and ${poll.seen.length} polls`,
        last?.ex,
      )
      observe(
        'video completion time',
        `the job ended ${poll.terminal} after ${poll.elapsedMs} ms and ${poll.seen.length} polls`,
      )
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )

  check(
    'P2-3-terminal-stable',
    'a completed or a failed job keeps its status on later retrievals',
    async () => {
      const f = await ended()
      const changed = f.later
        .filter((l) => l.status !== f.terminal)
        .map((l) => `${JSON.stringify(l.status)} (HTTP ${l.ex.status})`)
      expectThat(
        changed.length === 0,
        `still ${f.terminal} on ${f.later.length} later retrievals`,
        changed,
        f.later.find((l) => l.status !== f.terminal)?.ex,
      )
      const failed = await failedJob()
      if (failed.made.job?.status === 'failed') {
        const moved = failed.later
          .filter((l) => l.status !== 'failed')
          .map((l) => `${JSON.stringify(l.status)} (HTTP ${l.ex.status})`)
        expectThat(
          moved.length === 0,
          'a failed job still failed on later retrievals',
          moved,
          failed.later.find((l) => l.status !== 'failed')?.ex,
        )
      }
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )
})

describe('content (Part 2 §3, §4.1, §7)', () => {
  check('P2-3-content-completed-only', 'content of a job that is not completed is not served', async () => {
    const f = await startedJob()
    let judged = 0
    const before = f.afterEarly ? statusOf(f.afterEarly) : undefined
    if (f.early && typeof before === 'string' && before !== 'completed') {
      // Still not completed after the content call, so not completed during it either.
      judged += 1
      const { first, final } = f.early
      observe(
        'video content before completion',
        `GET .../content of a ${before} job answered ${first.status}${final === first ? '' : `, then ${final.status} after its redirect`}: ${final.text.slice(0, 200)}`,
      )
      expectThat(
        !servesBytes(final),
        `no content bytes: the job was ${before}, its content is downloadable only once completed`,
        `status ${final.status} with ${final.bytes.length} bytes`,
        final,
      )
    }
    const failed = await failedJob()
    if (failed.content) {
      judged += 1
      const { first, final } = failed.content
      observe(
        'video content of a failed job',
        `GET .../content of a failed job answered ${first.status}: ${final.text.slice(0, 200)}`,
      )
      expectThat(
        !servesBytes(final),
        'no content bytes: a failed job has no content',
        `status ${final.status} with ${final.bytes.length} bytes`,
        final,
      )
    }
    if (judged === 0)
      notObserved(
        `no job was seen before completion (it was ${JSON.stringify(before)} right after its create) and the target made no failed job`,
      )
  })

  check(
    'P2-4.1-content-served',
    'content of a completed job is downloaded: its bytes, directly or by redirect',
    async () => {
      const f = await ended()
      if (f.terminal !== 'completed') notObserved(`the job ended ${f.terminal}, so there is no content to download`)
      const { first, final, redirects } = f.content as Download
      const verdict = checkMp4(final.bytes)
      const container = videoContainer(final.bytes) ?? 'no container recognised'
      observe(
        'video content',
        `${redirects > 0 ? `by ${redirects} redirect(s) (${first.status}), ` : ''}${final.header('content-type') ?? 'no content-type'}, ${final.bytes.length} bytes, ${container}: ${verdict.problems.length === 0 ? 'an MP4' : `not an MP4 (${verdict.problems.join('; ')})`}: ${describeBoxes(verdict)}${verdict.majorBrand ? `, brand ${verdict.majorBrand}` : ''}`,
      )
      if (final.excerpt.crossOrigin === true && final.status === 401)
        notObserved(
          `the redirect led to another origin (${new URL(final.excerpt.url).host}), which answered 401: the key never leaves the service, so the file there was not read`,
        )
      expectSuccess(final, redirects > 0 ? 'the redirect leads to the file' : 'the job is completed')
      expectThat(
        servesBytes(final),
        "the file's bytes: a video container, or a content-type that is neither text nor JSON",
        `${final.header('content-type') ?? 'no content-type'}, ${final.bytes.length} bytes: ${final.text.slice(0, 120)}`,
        final,
      )
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )
})

/** How far a file's duration may be from the seconds asked for: encoders round to whole frames and packets. */
const DURATION_TOLERANCE_S = 0.5

/** The models whose defaults §4.1's create table gives: the seconds and sizes of the others are not shown. */
const DEFAULTS_SHOWN_FOR = ['vidA-2', 'vidA-2-pro']

/** seconds as a job shows it, where it is a number (§4.1 writes it as a string: "4" and 4 are the same). */
function shownSeconds(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : value
  return typeof text === 'string' && /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined
}

/** size as a job shows it, where it is WIDTHxHEIGHT. */
function shownSize(value: unknown): { width: number; height: number } | undefined {
  const match = typeof value === 'string' ? /^(\d+)x(\d+)$/.exec(value) : null
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined
}

describe('defaults (Part 2 §4.1)', () => {
  check(
    'P2-4.1-defaults',
    `a vidA create without seconds and size makes a ${VIDEO.defaultSeconds}-second ${VIDEO.defaultSize} video`,
    async () => {
      const f = await ended()
      const wanted = {
        seconds: Number(VIDEO.defaultSeconds),
        size: shownSize(VIDEO.defaultSize) as { width: number; height: number },
      }
      const fields = `seconds ${JSON.stringify(f.job.seconds)}, size ${JSON.stringify(f.job.size)}`
      if (!DEFAULTS_SHOWN_FOR.map(targetName).includes(f.made.model)) {
        observe('video defaults', `a job of ${f.made.model} made without seconds and size shows ${fields}`)
        notObserved(
          `the run's video job is of ${f.made.model}, whose seconds and sizes §4.1 does not show; the defaults are those of ${DEFAULTS_SHOWN_FOR.join(' and ')}`,
        )
      }
      // §2.1 does not show these fields: a job is judged by those it shows in the form §4.1 gives them.
      const seconds = shownSeconds(f.job.seconds)
      const size = shownSize(f.job.size)
      if (seconds === undefined || size === undefined) observe('video defaults', `the job shows ${fields}`)
      const wrong = [
        seconds !== undefined && seconds !== wanted.seconds ? `seconds ${JSON.stringify(f.job.seconds)}` : undefined,
        size !== undefined && (size.width !== wanted.size.width || size.height !== wanted.size.height)
          ? `size ${JSON.stringify(f.job.size)}`
          : undefined,
      ].filter((p) => p !== undefined)
      expectThat(
        wrong.length === 0,
        `seconds "${VIDEO.defaultSeconds}" and size "${VIDEO.defaultSize}"`,
        wrong,
        f.made.ex,
      )
      const file = f.terminal === 'completed' ? f.content?.final : undefined
      const mp4 = file !== undefined && servesBytes(file) && checkMp4(file.bytes).problems.length === 0
      const shows = mp4 ? mp4Presentation(file.bytes) : {}
      const problems = [
        shows.seconds !== undefined && Math.abs(shows.seconds - wanted.seconds) > DURATION_TOLERANCE_S
          ? `the movie lasts ${shows.seconds} seconds`
          : undefined,
        shows.width !== undefined && (shows.width !== wanted.size.width || shows.height !== wanted.size.height)
          ? `the video track is shown ${shows.width} by ${shows.height}`
          : undefined,
      ].filter((p) => p !== undefined)
      expectThat(
        problems.length === 0,
        `an MP4 of ${wanted.seconds} seconds (within ${DURATION_TOLERANCE_S}) whose video track is shown ${wanted.size.width} by ${wanted.size.height}`,
        problems,
        file,
      )
      const judged = [seconds, size, shows.seconds, shows.width].some((v) => v !== undefined)
      if (!judged)
        notObserved(
          `the job shows neither seconds nor size as §4.1 writes them, and ${file === undefined ? `it ended ${f.terminal} with no file` : mp4 ? 'its MP4 gives neither a duration nor a picture size' : 'its file is not an MP4'} to read them from`,
        )
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )
})

describe('remix and delete (Part 2 §4.1)', () => {
  check(
    'P2-4.1-remix',
    'remixing a completed job with a body of prompt alone answers a new job',
    async () => {
      const f = await ended()
      if (f.terminal !== 'completed') notObserved(`the job ended ${f.terminal}; only a completed video is remixed here`)
      const remix = await remixVideo(
        api,
        { ...f.made, id: f.id },
        'gateway-conformance remix: the same boat, now at sunrise',
      )
      expectKeyAccepted(remix.ex)
      expectThat(
        isAccepted(remix.ex.status),
        `${ACCEPTED_WORDS}: a remix returns the new job`,
        `status ${remix.ex.status}`,
        remix.ex,
      )
      const id = remix.job?.id
      expectThat(typeof id === 'string' && id !== '', 'a job with an id', `id ${JSON.stringify(id)}`, remix.ex)
      expectThat(id !== f.id, `a new job, not the source ${f.id}`, `id ${String(id)}`, remix.ex)
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )

  check(
    'P2-4.1-unavailable-routes',
    'the video characters, extensions and edits routes are not served',
    async () => {
      const f = await ended()
      // The routes as the widely used convention names them, each with a body it would take, on the completed job.
      const probes: Array<{ path: string; body: Record<string, unknown> }> = [
        { path: '/v1/videos/characters', body: { name: 'gateway-conformance', video_id: f.id } },
        {
          path: '/v1/videos/extensions',
          body: { video_id: f.id, prompt: 'gateway-conformance: and then it sails on' },
        },
        { path: '/v1/videos/edits', body: { video_id: f.id, prompt: 'gateway-conformance: the boat, now red' } },
      ]
      const answers: Exchange[] = []
      for (const probe of probes) {
        // Should a target serve it, it would start a billable job like its source.
        spend(
          await estimateUsd(api, f.made.model, f.made.job?.seconds ?? '4'),
          `${probe.path}, should a target serve it`,
        )
        const ex = await api.post(probe.path, probe.body)
        if (ex.status < 300 && isObject(ex.json) && typeof ex.json.id === 'string' && ex.json.id !== f.id)
          trackJob(ex.json.id)
        answers.push(ex)
      }
      observe('unavailable video routes', answers.map((ex) => `${ex.excerpt.path}: ${ex.status}`).join(', '))
      const served = answers.filter((ex) => ex.status >= 200 && ex.status < 300)
      expectThat(
        served.length === 0,
        'no 2xx: these routes are not available',
        served.map((ex) => `${ex.excerpt.method} ${ex.excerpt.path}: ${ex.status} ${ex.text.slice(0, 160)}`),
        served[0],
      )
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )

  // Last but one in the file: it deletes the main job.
  check(
    'P2-4.1-delete',
    'after DELETE /v1/videos/{video_id} the job is not retrievable, not listed, its content not served',
    async () => {
      const { id, made, deleted, gone } = await deletion()
      expectSuccess(deleted, 'the job is deleted')
      observe(
        'video delete answer',
        `DELETE /v1/videos/{video_id} answered ${deleted.status}: ${deleted.text.slice(0, 300) || '(no body)'}; the job was gone after ${gone?.waitedMs} ms`,
      )
      const after = gone?.value as Exchange
      expectThat(
        gone?.settled === true,
        `${id} no longer retrievable (a 4xx) within ${settleMs()} ms`,
        `status ${after.status}`,
        after,
      )
      const content = await downloadContent(api, id)
      expectThat(
        !servesBytes(content.final),
        "the deleted job's content not served",
        `status ${content.final.status}`,
        content.final,
      )
      const list = await listUntil(
        api,
        { safety_identifier: made.safetyIdentifier as string },
        (items) => !items.some((item) => item.id === id),
      )
      expectThat(list.settled, `${id} no longer listed within ${settleMs()} ms`, 'still listed', list.ex)
    },
    // Two waits for the settle bound: the retrieve until the job is gone, the list until it is no longer there.
    settlingTimeout(2),
  )

  check(
    'P1-7-video-unknown-404',
    'retrieve, delete and content of a job the run deleted answer 404',
    async () => {
      const { id, deleted, gone } = await deletion()
      precondition(gone !== undefined, 'P2-4.1-delete', `the DELETE of the job answered ${deleted.status}, not a 2xx`)
      const retrieved = gone.value
      precondition(gone.settled, 'P2-4.1-delete', `the deleted job ${id} is still retrievable`)
      const answers = [
        retrieved,
        await api.request({ method: 'DELETE', path: videoPath(id) }),
        await api.get(videoPath(id, '/content'), { headers: { accept: '*/*' } }),
      ]
      const bad = answers.filter((ex) => ex.status !== 404)
      expectThat(
        bad.length === 0,
        'status 404: the job was issued and deleted, a missing resource',
        bad.map((ex) => `${ex.excerpt.method} ${ex.excerpt.path}: ${ex.status}`),
        bad[0],
      )
    },
    // It reads what P2-4.1-delete waited for (its deletion), should it run on its own.
    settlingTimeout(2),
  )
})
