/**
 * Responses of every kind the suites touch, for the shared-header rules (Part 1 sections 1.4, 4.1,
 * 9.4: "every response", errors included). Besides these explicit tests, the reporter audits every exchange of
 * every family against the same rules.
 */
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'

interface SampleCall {
  title: string
  /** True when the call carries a valid key, so that rate-limit headers are due. */
  authenticated: boolean
  run: (api: TargetClient) => Promise<Exchange>
}

export const UNKNOWN_MODEL = 'gc-no-such-model'

export const SAMPLE_CALLS: SampleCall[] = [
  { title: 'a model list (200)', authenticated: true, run: (api) => api.get('/v1/models') },
  {
    title: 'the public model list without a key',
    authenticated: false,
    run: (api) => api.get('/public/models', { key: null }),
  },
  { title: 'the credit record (200)', authenticated: true, run: (api) => api.get('/user/v1/credit') },
  { title: 'a /v1 call without a key (401)', authenticated: false, run: (api) => api.get('/v1/models', { key: null }) },
  {
    title: 'a /user/v1 call with an invalid key (401)',
    authenticated: false,
    run: (api) => api.get('/user/v1/credit', { key: 'invalid' }),
  },
  { title: 'an unknown model (404)', authenticated: true, run: (api) => api.get(`/v1/models/${UNKNOWN_MODEL}`) },
  {
    title: 'an out-of-range query (400)',
    authenticated: true,
    run: (api) => api.get('/user/v1/transactions', { query: { page_size: 0 } }),
  },
  { title: 'an unknown route', authenticated: true, run: (api) => api.get('/v1/gc-no-such-route') },
]
