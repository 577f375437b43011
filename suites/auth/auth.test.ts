/** Authentication (Part 1 §5 and the auth rows of §7). */
import { describe } from 'vitest'
import type { Exchange } from '../../harness/worker/http-client.ts'
import {
  expectEach,
  expectSchema,
  expectSetup,
  expectStatus,
  expectSuccess,
  expectThat,
  is2xx,
  precondition,
} from '../../harness/worker/assert.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { listedItems, modelIds, modelItems } from '../models/model-list.ts'

const api = target()

/** A model id to address, from the list: a set-up call, judged by the models family, not by these checks. */
async function someModelId(): Promise<string> {
  const ex = await api.get('/v1/models')
  expectSetup(ex, 200, 'the model list that names a model to retrieve')
  const id = modelIds(listedItems(ex) ?? [])[0]
  if (id === undefined) skipTest('set-up failed: GET /v1/models listed no model to retrieve')
  return id
}

describe('a key is required (Part 1 §5.1, §7)', () => {
  check('P1-5.1-key-required', 'GET /v1/models without a key is refused with 401', async () => {
    expectStatus(await api.get('/v1/models', { key: null }), 401)
  })
  check('P1-5.1-key-required', 'GET /v1/models with an unknown key is refused with 401', async () => {
    expectStatus(await api.get('/v1/models', { key: 'invalid' }), 401)
  })
  check('P1-5.1-key-required', 'GET /v1/models/{model_id} without a key is refused with 401', async () => {
    const id = await someModelId()
    expectStatus(await api.get(`/v1/models/${encodeURIComponent(id)}`, { key: null }), 401)
  })
  check('P1-5.1-key-required', 'x-api-key with an unknown key is refused with 401', async () => {
    expectStatus(await api.get('/v1/models', { key: 'invalid', auth: 'x-api-key' }), 401)
  })
  check(
    'P1-5.1-public-models',
    'GET /public/models answers 200 without a key, with items shaped like the Bearer list',
    async () => {
      const ex = await api.get('/public/models', { key: null })
      expectSuccess(ex)
      const items = modelItems(ex)
      expectThat(items.length > 0, 'at least one public model', 'an empty list', ex)
      expectEach(ex, 'models/list-item.json', items, '/data')
    },
  )
})

/** The requirement whose words state each route: a route the target does not serve is its failure alone. */
const ROUTE_REQUIREMENT = {
  '/v1/models': 'P1-2.3-model-list',
  '/v1/models/{model_id}': 'P1-2.3-model-retrieve',
  '/user/v1/credit': 'P1-2.1-credit-record',
  '/user/v1/transactions': 'P1-2.2-transactions-envelope',
} as const

type Route = keyof typeof ROUTE_REQUIREMENT

/**
 * A key form is judged on the routes the target serves: a 404 with Bearer (the standard form, §5.2) says the route
 * is not served, which is the route's requirement to report, and the key-form check skips naming it.
 */
function expectServed(bearer: Exchange, route: Route): void {
  precondition(
    bearer.status !== 404,
    ROUTE_REQUIREMENT[route],
    `GET ${route} answered 404 with Bearer: the target does not serve it, so the key rules are judged on the routes it serves`,
  )
}

const pathOf = async (route: Route): Promise<string> =>
  route === '/v1/models/{model_id}' ? `/v1/models/${encodeURIComponent(await someModelId())}` : route

describe('Bearer and x-api-key (Part 1 §5.2, §5.3)', () => {
  for (const route of Object.keys(ROUTE_REQUIREMENT) as Route[]) {
    check('P1-5.2-bearer', `Authorization: Bearer is accepted on GET ${route}`, async () => {
      const ex = await api.get(await pathOf(route))
      if (!is2xx(ex)) expectServed(ex, route)
      expectSuccess(ex)
    })
  }
  for (const route of ['/v1/models', '/v1/models/{model_id}'] as const) {
    check('P1-5.3-x-api-key', `x-api-key is accepted on GET ${route}`, async () => {
      const path = await pathOf(route)
      const ex = await api.get(path, { auth: 'x-api-key' })
      // A 404 is the key form's only where the same route answers Bearer: otherwise the route is not served.
      if (ex.status === 404) expectServed(await api.get(path), route)
      expectSuccess(ex)
    })
  }
})

describe('usage endpoints refuse bad keys with their own bodies (Part 1 §5.5, §7)', () => {
  const refusals = [
    ['P1-5.5-usage-401', '/user/v1/credit', null, 401],
    ['P1-5.5-usage-401', '/user/v1/credit', 'invalid', 401],
    ['P1-5.5-usage-401', '/user/v1/transactions', 'invalid', 401],
    ['P1-5.5-usage-403', '/user/v1/credit', 'suspended', 403],
    ['P1-5.5-usage-403', '/user/v1/transactions', 'suspended', 403],
  ] as const
  for (const [id, route, key, status] of refusals) {
    const what =
      key === null ? 'without a key' : key === 'invalid' ? 'with an invalid key' : "with a suspended account's key"
    const body = status === 401 ? 'unauthorized' : 'forbidden'
    check(id, `GET ${route} ${what}: ${status} with error ${body}`, async () => {
      const ex = await api.get(route, { key })
      // A 404 is the refusal's only where the route answers a valid key: otherwise the route is not served.
      if (ex.status === 404) expectServed(await api.get(route), route)
      expectStatus(ex, status)
      expectSchema(ex, `auth/usage-${status}.json`)
    })
  }
  check('P1-7-suspended-403', "GET /v1/models with a suspended account's key: 403", async () => {
    expectStatus(await api.get('/v1/models', { key: 'suspended' }), 403)
  })
})
