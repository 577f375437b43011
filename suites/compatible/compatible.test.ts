/**
 * Images, embeddings, legacy completions and messages (Part 1 §4.8): their shapes are not shown, so only what
 * the reference states for every call is judged here: a key is required (§5.1), bodies are JSON and an invalid
 * one is 400 (Conventions, §7); the shared headers are audited on every exchange. Whether each endpoint serves a
 * minimal request, and how it refuses a missing field or an unknown model, are SHOULD readings; the shapes seen
 * are recorded.
 */
import { describe } from 'vitest'
import { expectJson, expectStatus, expectThat } from '../../harness/worker/assert.ts'
import { routeAbsence } from '../../harness/routes.ts'
import { randomSuffix } from '../../harness/worker/helpers.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { catalogueFixture, modelFor } from '../chat/fixtures.ts'
import { describeBody, ENDPOINTS, type Endpoint } from './endpoints.ts'

const api = target()
const catalogue = catalogueFixture(api)

/** A model of the endpoint's mode where the target has one; otherwise a placeholder (auth and parsing come first). */
async function someModel(endpoint: Endpoint): Promise<string> {
  const { usable } = await catalogue()
  return usable.find((m) => m.mode === endpoint.mode)?.id ?? `gc-placeholder-${endpoint.mode}`
}

describe('a key is required (Part 1 §5.1)', () => {
  for (const endpoint of ENDPOINTS) {
    check(
      'P1-5.1-key-required',
      `POST ${endpoint.path} without a key, or with an unknown key, is refused with 401`,
      async () => {
        const body = endpoint.body(await someModel(endpoint))
        const none = await api.post(endpoint.path, body, { key: null })
        expectStatus(none, 401)
        expectStatus(await api.post(endpoint.path, body, { key: 'invalid' }), 401)
        observe('compatible 401 body', `${endpoint.path}: ${describeBody(none)}`)
      },
    )
  }
})

describe('an invalid body is 400 (Part 1 Conventions, §7)', () => {
  for (const endpoint of ENDPOINTS) {
    check(
      'P1-7-compatible-malformed-json',
      `POST ${endpoint.path} with a body that is not JSON is refused with 400`,
      async () => {
        const ex = await api.request({
          method: 'POST',
          path: endpoint.path,
          body: '{"model": ',
          headers: { 'content-type': 'application/json' },
        })
        expectStatus(ex, 400)
        observe('compatible 400 body', `${endpoint.path}: ${describeBody(ex)}`)
      },
    )

    check(
      'P1-7-compatible-missing-field',
      `POST ${endpoint.path} without ${endpoint.missing.field} is refused with 400`,
      async () => {
        const model = await someModel(endpoint)
        const ex = await api.post(endpoint.path, endpoint.missing.body(model))
        expectStatus(ex, 400, `${endpoint.missing.field} is required by the convention`)
        if (!endpoint.servedCheck) {
          // A real image edit needs a stored image; what a placeholder file id gets is the target's choice.
          observe(
            'compatible image edit',
            `with a file id that does not exist: ${describeBody(await api.post(endpoint.path, endpoint.body(model)))}`,
          )
        }
      },
    )
  }
})

describe('serving a minimal request (Part 1 §4.8)', () => {
  for (const endpoint of ENDPOINTS.filter((e) => e.servedCheck)) {
    check(
      'P1-4.8-compatible-served',
      `POST ${endpoint.path} serves a minimal request with a ${endpoint.mode} model`,
      async () => {
        const model = await modelFor(catalogue, endpoint.mode)
        const ex = await api.post(endpoint.path, endpoint.body(model.id))
        expectThat(
          ex.status >= 200 && ex.status < 300,
          `a 2xx answer to a minimal request with ${model.id}`,
          describeBody(ex),
          ex,
        )
        expectJson(ex)
        observe('compatible response shape', `${endpoint.path} with ${model.id}: ${describeBody(ex)}`)
        if (endpoint.path === '/v1/messages') {
          // §5.3 names x-api-key for the model endpoints only; the messages convention sends it, so what happens is recorded.
          const apiKey = await api.post(endpoint.path, endpoint.body(model.id), { auth: 'x-api-key' })
          observe('compatible messages x-api-key', describeBody(apiKey))
        }
      },
    )
  }
  for (const endpoint of ENDPOINTS.filter((e) => !e.servedCheck)) {
    check(
      'P1-4.8-compatible-served',
      `POST ${endpoint.path} is served: a request naming a file that does not exist is not a missing route`,
      async () => {
        const ex = await api.post(endpoint.path, endpoint.body(await someModel(endpoint)))
        const absence = routeAbsence(ex.excerpt)
        expectThat(absence === undefined, `${endpoint.path} served`, absence?.answer ?? '', ex)
      },
    )
  }
})

describe('an unknown model (Part 1 §7)', () => {
  for (const endpoint of ENDPOINTS.filter((e) => e.servedCheck)) {
    check(
      'P1-7-compatible-unknown-model',
      `POST ${endpoint.path} naming a model that does not exist is refused with 400 or 404`,
      async () => {
        const ex = await api.post(endpoint.path, endpoint.body(`gc-no-such-model-${randomSuffix()}`))
        observe('compatible unknown model', `${endpoint.path}: ${describeBody(ex)}`)
        expectStatus(ex, [400, 404])
      },
    )
  }
})
