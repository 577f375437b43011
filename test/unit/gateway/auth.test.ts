/** Authentication and its error bodies (Part 1 sections 5 and 7). */
import { describe, expect, it } from 'vitest'
import { testGateway } from './helpers.ts'

const compatible401 = {
  error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
}
const usage401 = { error: 'unauthorized', message: expect.any(String) }

describe('keys on /v1 (sections 5.1 to 5.3)', () => {
  const gw = testGateway()

  it.each(['/v1/models', '/v1/models/gw-chat'])('%s without a key is 401 with the compatible body', async (path) => {
    const response = await gw.call(path, { key: null })
    expect(response.status).toBe(401)
    expect(response.body).toEqual(compatible401)
  })

  it('an unknown key is 401, and so is a malformed Authorization header', async () => {
    expect((await gw.call('/v1/models', { key: { raw: 'sk-ref-t2-000000000000000000000000' } })).body).toEqual(
      compatible401,
    )
    const basic = await gw.call('/v1/models', { key: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } })
    expect(basic.status).toBe(401)
  })

  it('accepts Bearer with any case of the scheme', async () => {
    const response = await gw.call('/v1/models', {
      key: null,
      headers: { authorization: `bearer ${gw.state.accounts.main().key.value}` },
    })
    expect(response.status).toBe(200)
  })

  it('accepts x-api-key on the model endpoints only (section 5.3)', async () => {
    expect((await gw.call('/v1/models', { form: 'x-api-key' })).status).toBe(200)
    expect((await gw.call('/v1/models/gw-chat', { form: 'x-api-key' })).status).toBe(200)
    const usage = await gw.call('/user/v1/credit', { form: 'x-api-key' })
    expect(usage.status).toBe(401)
    expect(usage.body).toEqual(usage401)
  })

  it('refuses the suspended account with 403 permission_error (section 7)', async () => {
    const response = await gw.call('/v1/models', { key: 'suspended' })
    expect(response.status).toBe(403)
    expect(response.body).toEqual({
      error: { message: expect.any(String), type: 'permission_error', param: null, code: 'account_suspended' },
    })
  })

  it('GET /public/models needs no key and ignores a bad one (section 5.1)', async () => {
    expect((await gw.call('/public/models', { key: null })).status).toBe(200)
    expect((await gw.call('/public/models', { key: { raw: 'nonsense' } })).status).toBe(200)
  })
})

describe('keys on /user/v1 (section 5.5)', () => {
  const gw = testGateway()

  it.each(['/user/v1/credit', '/user/v1/transactions'])(
    '%s: missing or invalid key is 401 unauthorized',
    async (path) => {
      for (const key of [null, { raw: 'sk-ref-nope' }]) {
        const response = await gw.call(path, { key })
        expect(response.status).toBe(401)
        expect(response.body).toEqual(usage401)
      }
    },
  )

  it('a suspended account is 403 forbidden', async () => {
    for (const path of ['/user/v1/credit', '/user/v1/transactions']) {
      const response = await gw.call(path, { key: 'suspended' })
      expect(response.status).toBe(403)
      expect(response.body).toEqual({ error: 'forbidden', message: expect.any(String) })
    }
    const lookup = await gw.call('/user/v1/transactions/lookup', {
      key: 'suspended',
      method: 'POST',
      body: { ids: ['x'] },
    })
    expect(lookup.status).toBe(403)
  })

  it('refused calls carry no rate-limit headers and belong to no account', async () => {
    const response = await gw.call('/user/v1/credit', { key: null })
    expect(response.headers['x-ratelimit-limit-requests']).toBeUndefined()
    expect(gw.state.transactions.findById(response.id)?.accountId).toBeNull()
  })
})

describe('unknown routes (sections 1.6, 7)', () => {
  const gw = testGateway()

  it('answer 404 unsupported_route whether or not a key is sent', async () => {
    for (const key of [undefined, null]) {
      const response = await gw.call('/v1/batches', key === null ? { key } : {})
      expect(response.status).toBe(404)
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_route' })
    }
  })

  it('identify a valid caller: rate-limit headers, and a transaction the caller can list', async () => {
    const response = await gw.call('/v1/batches', { method: 'POST' })
    expect(response.headers['x-ratelimit-limit-requests']).toBeDefined()
    expect(gw.state.transactions.findById(response.id)?.accountId).toBe(gw.state.accounts.main().id)
  })
})
