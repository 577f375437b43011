/**
 * Every videos route asks for a key (Part 2 §5: "All endpoints of this part require an API key"; Part 1 §7: 401 for
 * an invalid or missing key): each of them, without a key and with an invalid one, answers 401 and serves nothing.
 * The routes of one job are called on a job the target issued, made with the main key (the one billable call here):
 * there the key is all that is wrong. Where no job could be made they are called on an id the target never issued,
 * and that id's own refusal (400 or 404) is as good as 401: the words fix no order between the key and the id.
 */
import { afterAll, describe } from 'vitest'
import { expectThat } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, runConfig, target } from '../../harness/worker/suite.ts'
import { targetName } from '../shared/names.ts'
import { createVideo, deleteCreated, requireVideoRoutes, someVideoModel, videoPath } from './jobs.ts'

const api = target()
afterAll(() => deleteCreated(api))

type Unkeyed = null | 'invalid'

/** An id the target never issued, for when it issued none to this run. */
const neverIssued = (): string => `video_gc_${runConfig().runId.replace(/[^A-Za-z0-9]/g, '')}_auth`

const ROUTES: Record<string, { ofJob: boolean; call: (key: Unkeyed, id: string) => Promise<Exchange> }> = {
  create: {
    ofJob: false,
    call: (key) =>
      api.post('/v1/videos', { model: targetName('vidA-2'), prompt: 'gateway-conformance: no key, no video' }, { key }),
  },
  list: { ofJob: false, call: (key) => api.get('/v1/videos', { key }) },
  retrieve: { ofJob: true, call: (key, id) => api.get(videoPath(id), { key }) },
  delete: { ofJob: true, call: (key, id) => api.request({ method: 'DELETE', path: videoPath(id), key }) },
  remix: {
    ofJob: true,
    call: (key, id) => api.post(videoPath(id, '/remix'), { prompt: 'gateway-conformance: no key' }, { key }),
  },
  content: {
    ofJob: true,
    call: (key, id) => api.get(videoPath(id, '/content'), { key, headers: { accept: '*/*' } }),
  },
}

describe('authentication (Part 2 §5, Part 1 §7)', () => {
  check('P2-5-video-auth', 'every /v1/videos route answers 401 without a key and with an invalid one', async () => {
    await requireVideoRoutes(api)
    const model = await someVideoModel(api)
    const made = model === undefined ? undefined : await createVideo(api, { label: 'auth', model })
    const issued = made?.id
    const id = issued ?? neverIssued()
    observe(
      'video auth',
      issued === undefined
        ? `${made === undefined ? 'no video model to make a job with' : `the create answered ${made.ex.status}`}: the routes of one job were called on an id never issued`
        : `the routes of one job were called on ${issued}, a job the target issued`,
    )
    const answers: Array<{ what: string; ofJob: boolean; ex: Exchange }> = []
    for (const [route, { ofJob, call }] of Object.entries(ROUTES))
      for (const key of [null, 'invalid'] as const)
        answers.push({
          what: `${route} ${key === null ? 'without a key' : 'with an invalid key'}`,
          ofJob,
          ex: await call(key, id),
        })
    // On an id never issued, the id's own refusal may come before the key's.
    const allowed = (a: { ofJob: boolean }): readonly number[] =>
      a.ofJob && issued === undefined ? [401, 400, 404] : [401]
    const bad = answers.filter((a) => !allowed(a).includes(a.ex.status))
    expectThat(
      bad.length === 0,
      issued === undefined
        ? 'status 401 on every route (400 or 404 for an id never issued): an API key is required'
        : 'status 401 on every route: an API key is required',
      bad.map((a) => `${a.what}: ${a.ex.excerpt.method} ${a.ex.excerpt.path} answered ${a.ex.status}`),
      bad[0]?.ex,
    )
  })
})
