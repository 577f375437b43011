/**
 * Every videos route asks for a key (Part 2 §5: "All endpoints of this part require an API key"; Part 1 §7: 401 for
 * an invalid or missing key): each of them, without a key and with an invalid one, answers 401 and serves nothing.
 * The routes of one job are called on a job the target issued, made with the main key (the one billable call here):
 * there the key is all that is wrong. Where no job could be made they are not called (an id the target never issued
 * may be refused for itself before the key is read), and are recorded as not observed.
 */
import { afterAll, describe } from 'vitest'
import { expectThat, notObserved } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { targetName } from '../shared/names.ts'
import { createVideo, deleteCreated, requireVideoRoutes, someVideoModel, videoPath } from './jobs.ts'

const api = target()
afterAll(() => deleteCreated(api))

type Unkeyed = null | 'invalid'

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
    const id = made?.id
    // Without a job the target issued, the routes of one job are not called: an id's own refusal would hide the key's.
    const routes = Object.entries(ROUTES).filter(([, route]) => id !== undefined || !route.ofJob)
    const answers: Array<{ what: string; ex: Exchange }> = []
    for (const [route, { call }] of routes)
      for (const key of [null, 'invalid'] as const)
        answers.push({
          what: `${route} ${key === null ? 'without a key' : 'with an invalid key'}`,
          ex: await call(key, id ?? ''),
        })
    const bad = answers.filter((a) => a.ex.status !== 401)
    expectThat(
      bad.length === 0,
      'status 401 on every route: an API key is required',
      bad.map((a) => `${a.what}: ${a.ex.excerpt.method} ${a.ex.excerpt.path} answered ${a.ex.status}`),
      bad[0]?.ex,
    )
    if (id === undefined)
      notObserved(
        `create and list answered 401; the routes of one job (${Object.keys(ROUTES)
          .filter((r) => ROUTES[r]?.ofJob)
          .join(
            ', ',
          )}) were not called, as ${made === undefined ? 'the target lists no video model to make a job with' : `the create with the key answered ${made.ex.status} and no job`}`,
      )
    observe('video auth', `the routes of one job were called on ${id}, a job the target issued`)
  })
})
