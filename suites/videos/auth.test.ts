/**
 * Every videos route asks for a key (Part 2 §5: "All endpoints of this part require an API key"; Part 1 §7: 401 for
 * an invalid or missing key): each of them, without a key and with an invalid one, answers 401 and serves nothing.
 * No call but one list with the main key has a valid key, so none is charged to anyone and none needs a job of the
 * target's. A target that serves no videos at all (its list answers 404 to the main key) has nothing to guard.
 */
import { describe } from 'vitest'
import { expectThat } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { check, runConfig, target } from '../../harness/worker/suite.ts'
import { targetName } from '../shared/names.ts'
import { videoPath } from './jobs.ts'

const api = target()

type Unkeyed = null | 'invalid'

/** An id the target never issued: the key is judged before any id could be. */
const id = (): string => `video_gc_${runConfig().runId.replace(/[^A-Za-z0-9]/g, '')}_auth`

const ROUTES: Record<string, (key: Unkeyed) => Promise<Exchange>> = {
  create: (key) =>
    api.post('/v1/videos', { model: targetName('vidA-2'), prompt: 'gateway-conformance: no key, no video' }, { key }),
  list: (key) => api.get('/v1/videos', { key }),
  retrieve: (key) => api.get(videoPath(id()), { key }),
  delete: (key) => api.request({ method: 'DELETE', path: videoPath(id()), key }),
  remix: (key) => api.post(videoPath(id(), '/remix'), { prompt: 'gateway-conformance: no key' }, { key }),
  content: (key) => api.get(videoPath(id(), '/content'), { key, headers: { accept: '*/*' } }),
}

describe('authentication (Part 2 §5, Part 1 §7)', () => {
  check('P2-5-video-auth', 'every /v1/videos route answers 401 without a key and with an invalid one', async () => {
    const served = await api.get('/v1/videos')
    if (served.status === 404)
      skipTest(
        'the target serves no /v1/videos routes (GET /v1/videos answered 404 to the main key): capability absent',
      )
    const answers: Array<{ what: string; ex: Exchange }> = []
    for (const [route, call] of Object.entries(ROUTES))
      for (const key of [null, 'invalid'] as const)
        answers.push({
          what: `${route} ${key === null ? 'without a key' : 'with an invalid key'}`,
          ex: await call(key),
        })
    const bad = answers.filter((a) => a.ex.status !== 401)
    expectThat(
      bad.length === 0,
      'status 401 on every route: an API key is required',
      bad.map((a) => `${a.what}: ${a.ex.excerpt.method} ${a.ex.excerpt.path} answered ${a.ex.status}`),
      bad[0]?.ex,
    )
  })
})
