/**
 * One video job through its life (Part 2 §2.1, §3, §4.1, §6.3): the job object and its request_id, retrieve,
 * the four status values, polling with backoff until it ends, content refused before completion and served
 * after (an MP4), terminal statuses that stay, remix, 404 for ids that do not exist, and delete. A second job,
 * made with the reference gateway's cannot-start trigger, shows a failed job where the target produces one.
 */
import { afterAll, describe } from 'vitest'
import { expectSchema, expectStatus, expectThat, fail, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/helpers.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { observe, skipTest } from '../../harness/recorder.ts'
import { check, target, runConfig } from '../../harness/suite.ts'
import {
  ACCEPTED,
  CANNOT_START_MARKER,
  createVideo,
  deleteCreated,
  listVideos,
  remixVideo,
  type Created,
  videoPath,
} from './jobs.ts'
import { checkMp4, describeBoxes } from './mp4-check.ts'
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

const CONTENT = { headers: { accept: '*/*' } } // the file's type is not shown: accept whatever it is

interface Lifecycle {
  made: Created
  /** GET .../content right after the create, and the retrieve right after that. */
  early: Exchange | undefined
  afterEarly: Exchange | undefined
}

interface Polled {
  poll: Poll | undefined
  /** Retrievals after the poll ended. */
  later: Array<{ ex: Exchange; status: unknown }>
  /** GET .../content once the job completed. */
  content: Exchange | undefined
}

/** The main job: created, and its content asked for at once, before it can have completed. */
const lifecycle = memo(async (): Promise<Lifecycle> => {
  const made = await createVideo(api, { label: 'lifecycle' })
  if (made.id === undefined) return { made, early: undefined, afterEarly: undefined }
  const early = await api.get(videoPath(made.id, '/content'), CONTENT)
  const afterEarly = await api.get(videoPath(made.id))
  return { made, early, afterEarly }
})

/** The main job polled to its end (minutes on a real target: only tests with the polling timeout await this). */
const polled = memo(async (): Promise<Polled> => {
  const { made } = await lifecycle()
  if (made.id === undefined) return { poll: undefined, later: [], content: undefined }
  const poll = await pollUntilTerminal(api, made.id)
  const later = poll.terminal === undefined ? [] : await laterStatuses(api, made.id)
  const content = poll.terminal === 'completed' ? await api.get(videoPath(made.id, '/content'), CONTENT) : undefined
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
  const content = await api.get(videoPath(made.id, '/content'), CONTENT)
  const later = await laterStatuses(api, made.id)
  return { made, content, later }
})

async function startedJob(): Promise<Lifecycle & { id: string; job: Record<string, unknown> }> {
  // The failed job's checks wait on a schedule too: let it run beside the main job's (its errors surface where it is awaited).
  failedJob().catch(() => {})
  const f = await lifecycle()
  precondition(
    ACCEPTED.includes(f.made.ex.status),
    'P2-4.1-models',
    `a vidA-2 create with the defaults answered ${f.made.ex.status}`,
  )
  const { id, job } = f.made
  precondition(id !== undefined && job !== undefined, 'P2-2.1-video-job', 'the create answered no job id')
  return { ...f, id, job }
}

/** The main job polled to its end; skipped when it reached none (P2-6.3-poll-terminal reports that). */
async function ended(): Promise<Lifecycle & Polled & { id: string; terminal: string }> {
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
      expectStatus(retrieved, 200)
      expectSchema(retrieved, 'videos/job.json')
      const list = await listVideos(api, { safety_identifier: f.made.safetyIdentifier as string })
      const ours = list.items.filter((item) => item.id === f.made.id)
      expectThat(
        ours.length === 1,
        `the job ${f.made.id} listed once under its safety_identifier`,
        `${ours.length} times`,
        list.ex,
      )
      expectSchema(list.ex, 'videos/job.json', ours[0], 'the listed job')
    },
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
      expectStatus(retrieved, 200)
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
      expectStatus(ex, 200)
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
    'P1-7-video-unknown-404',
    'retrieve, delete and content of a video id that does not exist answer 404',
    async () => {
      const id = `video_gc_${runConfig().runId.replace(/[^A-Za-z0-9]/g, '')}_missing`
      expectStatus(await api.get(videoPath(id)), 404)
      expectStatus(await api.request({ method: 'DELETE', path: videoPath(id) }), 404)
      expectStatus(await api.get(videoPath(id, '/content'), CONTENT), 404)
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
      const bad = seen.filter((s) => !isKnownStatus(s.status))
      expectThat(
        bad.length === 0,
        'status one of queued, processing, completed, failed',
        bad.map((s) => `${s.where}: ${JSON.stringify(s.status)}`),
        bad[0]?.ex,
      )
      observe(
        'video statuses seen',
        seen
          .filter((s) => s.where.startsWith('poll') || s.where === 'create')
          .map((s) => `${s.where}: ${String(s.status)}`)
          .join('; '),
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
        last === undefined || last.ex.status === 200,
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
  check(
    'P2-3-content-completed-only',
    'content of a queued, processing or failed job is refused with a 4xx status',
    async () => {
      const f = await startedJob()
      let judged = 0
      const before = f.afterEarly ? statusOf(f.afterEarly) : undefined
      precondition(
        before === undefined || isKnownStatus(before),
        'P2-3-status-values',
        `the job's status is ${JSON.stringify(before)}`,
      )
      if (f.early && (before === 'queued' || before === 'processing')) {
        // Still not completed after the content call, so not completed during it either.
        judged += 1
        observe(
          'video content before completion',
          `GET .../content of a ${before} job answered ${f.early.status}: ${f.early.text.slice(0, 200)}`,
        )
        expectThat(
          f.early.status >= 400 && f.early.status < 500,
          `a 4xx status: the job was ${before}, its content is not downloadable yet`,
          `status ${f.early.status}`,
          f.early,
        )
      }
      const failed = await failedJob()
      if (failed.content) {
        judged += 1
        observe(
          'video content of a failed job',
          `GET .../content of a failed job answered ${failed.content.status}: ${failed.content.text.slice(0, 200)}`,
        )
        expectThat(
          failed.content.status >= 400 && failed.content.status < 500,
          'a 4xx status: a failed job has no content',
          `status ${failed.content.status}`,
          failed.content,
        )
      }
      if (judged === 0)
        skipTest(
          `no job was seen before completion (it was ${JSON.stringify(before)} right after its create) and the target made no failed job`,
        )
    },
  )

  check(
    'P2-4.1-content-served',
    'content of a completed job answers 200 with the file',
    async () => {
      const f = await ended()
      if (f.terminal !== 'completed') skipTest(`the job ended ${f.terminal}, so there is no content to download`)
      const content = f.content as Exchange
      expectStatus(content, 200, 'the job is completed')
      expectThat(content.bytes.length > 0, "the file's bytes", 'an empty body', content)
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )

  check(
    'P2-4.1-content-mp4',
    'the content of a completed job is an MP4 file (ftyp first, moov and mdat)',
    async () => {
      const f = await ended()
      precondition(
        f.terminal === 'completed' && f.content?.status === 200,
        'P2-4.1-content-served',
        `the content of the ${f.terminal} job answered ${f.content?.status}`,
      )
      const content = f.content
      const verdict = checkMp4(content.bytes)
      observe(
        'video content',
        `${content.header('content-type') ?? 'no content-type'}, ${content.bytes.length} bytes: ${describeBoxes(verdict)}${verdict.majorBrand ? `, brand ${verdict.majorBrand}` : ''}`,
      )
      expectThat(
        verdict.problems.length === 0,
        'an MP4 file: ISO base media boxes, ftyp first, moov and mdat',
        verdict.problems,
        content,
      )
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )
})

describe('remix and delete (Part 2 §4.1)', () => {
  check(
    'P2-4.1-remix',
    'remixing a completed job with a prompt answers a new job',
    async () => {
      const f = await ended()
      if (f.terminal !== 'completed') skipTest(`the job ended ${f.terminal}; only a completed video is remixed here`)
      const remix = await remixVideo(
        api,
        { ...f.made, id: f.id },
        'gateway-conformance remix: the same boat, now at sunrise',
      )
      expectStatus(remix.ex, ACCEPTED, 'a remix returns the new job')
      const id = remix.job?.id
      expectThat(typeof id === 'string' && id !== '', 'a job with an id', `id ${JSON.stringify(id)}`, remix.ex)
      expectThat(id !== f.id, `a new job, not the source ${f.id}`, `id ${String(id)}`, remix.ex)
    },
    { timeout: POLLING_TEST_TIMEOUT_MS },
  )

  // Last in the file: it deletes the main job.
  check(
    'P2-4.1-delete',
    'after DELETE /v1/videos/{video_id} the job is not retrievable (404), not listed, its content not served',
    async () => {
      const f = await startedJob()
      const id = f.made.id as string
      const deleted = await api.request({ method: 'DELETE', path: videoPath(id) })
      expectStatus(deleted, [200, 202, 204], 'the job is deleted')
      observe(
        'video delete answer',
        `DELETE /v1/videos/{video_id} answered ${deleted.status}: ${deleted.text.slice(0, 300) || '(no body)'}`,
      )
      const after = await api.get(videoPath(id))
      expectThat(after.status !== 200, `${id} no longer retrievable`, `status ${after.status}`, after)
      if (after.status !== 404) {
        const probe = await api.get(videoPath(`video_gc_${runConfig().runId.replace(/[^A-Za-z0-9]/g, '')}_probe`))
        precondition(
          probe.status === 404,
          'P1-7-video-unknown-404',
          `a video id that never existed answers ${probe.status}`,
        )
        fail('status 404: a deleted job is a missing resource', `status ${after.status}`, after)
      }
      const content = await api.get(videoPath(id, '/content'), CONTENT)
      expectThat(content.status >= 400, "the deleted job's content not served", `status ${content.status}`, content)
      const list = await listVideos(api, { safety_identifier: f.made.safetyIdentifier as string })
      expectThat(!list.items.some((item) => item.id === id), `${id} no longer listed`, 'still listed', list.ex)
    },
  )
})
