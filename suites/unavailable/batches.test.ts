/**
 * Batches, planned and unavailable (Part 1 §2.8, §3, §4.9, §8.5): judged only where the target offers them
 * (GET /v1/batches answers 2xx). Every batch created is cancelled at once, and the input file is deleted.
 */
import { afterAll, describe } from 'vitest'
import {
  expectEach,
  expectKeyAccepted,
  expectSchema,
  expectStatus,
  expectSuccess,
  expectThat,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { runMetadata } from '../../harness/worker/run-tag.ts'
import { check, target, runConfig } from '../../harness/worker/suite.ts'
import { catalogueFixture, modelFor } from '../chat/fixtures.ts'
import {
  answerOf,
  bodyOf,
  cleanUp,
  isOffered,
  listItems,
  longText,
  metadataOf,
  PLACEHOLDER_FILE,
  requireOffered,
  uploadBatchInput,
} from './planned.ts'

const api = target()
const catalogue = catalogueFixture(api)

/**
 * Section 4.9: the endpoints a batch may target, but /v1/videos: Part 2 §4.1 makes batches of videos not available
 * until support is confirmed (P2-4.1-video-batches-unavailable).
 */
const ENDPOINTS = [
  '/v1/responses',
  '/v1/chat/completions',
  '/v1/embeddings',
  '/v1/completions',
  '/v1/moderations',
  '/v1/images/generations',
  '/v1/images/edits',
]

const probe = memo(() => api.get('/v1/batches'))
const created: string[] = []
let inputFile: { id: string; uploaded: boolean } | undefined

/** The input file, uploaded once the target is known to offer batches. */
const input = memo(async () => {
  const model = await modelFor(catalogue, 'chat')
  inputFile = await uploadBatchInput(api, {
    url: '/v1/chat/completions',
    body: { model: model.id, messages: [{ role: 'user', content: 'Say hello.' }], max_completion_tokens: 8 },
  })
  return inputFile
})

async function offered(): Promise<void> {
  requireOffered(await probe(), 'batches')
}

/**
 * POST /v1/batches with a valid body and the overrides; a created batch is remembered for cancelling. Batches
 * cannot be deleted, so each carries the run id in its metadata (unless a test sends metadata of its own).
 */
async function create(overrides: Record<string, unknown> = {}): Promise<Exchange> {
  const file = await input()
  const ex = await api.post('/v1/batches', {
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
    metadata: runMetadata(runConfig().runId),
    ...overrides,
  })
  const id = isObject(ex.json) && typeof ex.json.id === 'string' ? ex.json.id : undefined
  if (isOffered(ex) && id !== undefined) created.push(id)
  return ex
}

/**
 * A valid create, the accepted edge of every rule here. With a placeholder input file (no upload) a refusal says
 * nothing about the rule, so the test is skipped; with a real input file it is a failure of the rule's edge.
 */
async function expectAccepted(ex: Exchange, what: string): Promise<void> {
  if (isOffered(ex)) return
  const file = await input()
  if (!file.uploaded)
    skipTest(`batches could not be created without an uploaded input file (${what} answered ${answerOf(ex)})`)
  expectThat(false, `${what} to be accepted (2xx)`, answerOf(ex), ex)
}

/** An input file of video rows, for the batch of videos; uploaded only where batches are offered. */
const videoInput = memo(async () => {
  const { usable } = await catalogue()
  const model = usable.find((m) => m.mode === 'video_generation')?.id ?? 'gc-placeholder-video'
  videoFile = await uploadBatchInput(api, { url: '/v1/videos', body: { model, prompt: 'A red dot on white.' } })
  return videoFile
})
let videoFile: { id: string; uploaded: boolean } | undefined

afterAll(async () => {
  for (const id of created) await cleanUp(api, 'POST', `/v1/batches/${id}/cancel`)
  for (const file of [inputFile, videoFile]) if (file?.uploaded) await cleanUp(api, 'DELETE', `/v1/files/${file.id}`)
})

describe('batches, where offered (Part 1 §2.8, §3, §4.9)', () => {
  check('P1-2.8-batch-object', 'create, retrieve, cancel and list answer batch objects of §2.8', async () => {
    await offered()
    const ex = await create({ metadata: { suite: 'gateway-conformance', ...runMetadata(runConfig().runId) } })
    await expectAccepted(ex, 'a valid batch')
    expectSchema(ex, 'unavailable/batch.json', bodyOf(ex), 'the created batch')
    const id = bodyOf(ex).id as string
    const got = await api.get(`/v1/batches/${id}`)
    expectSuccess(got)
    expectSchema(got, 'unavailable/batch.json', bodyOf(got), 'the retrieved batch')
    const cancelled = await api.post(`/v1/batches/${id}/cancel`, {})
    expectSuccess(cancelled)
    expectSchema(cancelled, 'unavailable/batch.json', bodyOf(cancelled), 'the cancelled batch')
    observe(
      'batch cancel',
      `a ${String(bodyOf(ex).status)} batch, cancelled, reports status ${String(bodyOf(cancelled).status)}`,
    )
    const list = await api.get('/v1/batches')
    expectSuccess(list)
    expectEach(list, 'unavailable/batch.json', listItems(list), '/data')
  })

  check('P1-4.9-batch-completion-window', 'completion_window 24h is accepted and 48h refused with 400', async () => {
    await offered()
    await expectAccepted(await create({ completion_window: '24h' }), 'completion_window 24h')
    expectStatus(await create({ completion_window: '48h' }), 400, 'only 24h is offered')
  })

  check(
    'P1-4.9-batch-metadata',
    'metadata at 16 pairs, 64-character keys and 512-character values is accepted; one more is refused',
    async () => {
      await offered()
      await expectAccepted(
        await create({ metadata: metadataOf(16, 64, 512) }),
        'metadata of 16 pairs, keys of 64 and values of 512 characters',
      )
      expectStatus(await create({ metadata: metadataOf(17) }), 400, 'metadata holds at most 16 pairs')
      expectStatus(await create({ metadata: { [longText(65)]: 'v' } }), 400, 'metadata keys are at most 64 characters')
      expectStatus(
        await create({ metadata: { key: longText(513) } }),
        400,
        'metadata values are at most 512 characters',
      )
    },
  )

  check(
    'P1-4.9-batch-endpoint',
    'each allowed endpoint but /v1/videos is accepted; /v1/files refused with 400',
    async () => {
      await offered()
      for (const endpoint of ENDPOINTS) await expectAccepted(await create({ endpoint }), `endpoint ${endpoint}`)
      expectStatus(await create({ endpoint: '/v1/files' }), 400, 'endpoint is one of the eight of §4.9')
    },
  )

  check(
    'P2-4.1-video-batches-unavailable',
    'a batch of videos (endpoint /v1/videos) is refused, whether or not batches are offered',
    async () => {
      const probed = await probe()
      // Where batches are not offered, no upload: the placeholder input shows the route's own answer.
      const file = isOffered(probed) ? await videoInput() : { id: PLACEHOLDER_FILE, uploaded: false }
      const ex = await api.post('/v1/batches', {
        input_file_id: file.id,
        endpoint: '/v1/videos',
        completion_window: '24h',
        metadata: runMetadata(runConfig().runId),
      })
      const id = isObject(ex.json) && typeof ex.json.id === 'string' ? ex.json.id : undefined
      if (isOffered(ex) && id !== undefined) created.push(id)
      expectKeyAccepted(ex)
      observe('batch of videos', `POST /v1/batches with endpoint /v1/videos: ${answerOf(ex)}`)
      expectThat(!isOffered(ex), 'an error status: batches of videos are not available', answerOf(ex), ex)
    },
  )

  check('P1-4.9-batch-list-limit', 'limit 1 and 100 are accepted, 0 and 101 refused with 400', async () => {
    await offered()
    for (const limit of [1, 100]) {
      const ex = await api.get('/v1/batches', { query: { limit } })
      expectSuccess(ex)
      expectThat(
        listItems(ex).length <= limit,
        `at most ${limit} batch(es) with limit=${limit}`,
        `${listItems(ex).length}`,
        ex,
      )
    }
    for (const limit of [0, 101])
      expectStatus(await api.get('/v1/batches', { query: { limit } }), 400, 'limit is 1 to 100')
  })
})
