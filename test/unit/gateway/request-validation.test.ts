/**
 * The request schemas as the gateway's validator (gateway/request-validation.ts): what a schema states is refused
 * before the route runs, in the route's dialect; a fault or a variation lifts only the constraints of the
 * requirements it names, a fault only what it breaks, a variation only what the words leave open.
 */
import { describe, expect, it } from 'vitest'
import { constraintsOf, requestSchemas } from '../../../common/request-schemas.ts'
import { FAULTS } from '../../../gateway/faults/registry.ts'
import { judgedRoutes } from '../../../gateway/request-validation.ts'
import { VARIATION_RELAXES } from '../../../gateway/variations.ts'
import { requirements } from '../../../harness/requirements.ts'
import { KEYS, testGateway } from './helpers.ts'

const auth = () => ({ authorization: `Bearer ${KEYS.main}` })

const CHAT = 'gw-chat-mini'
const post = (body: unknown) => ({ method: 'POST' as const, body })

const CONSTRAINTS = requestSchemas().flatMap(constraintsOf)
/** A field without the branches it sits in: `(allOf 0) (then).seconds` is `seconds`. */
const bare = (field: string): string => field.replace(/ \([^)]*\)/g, '').replace(/^\./, '')
const REFUSED_BY = new Set(CONSTRAINTS.flatMap((c) => (c.refusedBy ? [c.refusedBy] : [])))

describe('what a fault or a variation lifts', () => {
  it('a fault lifts requirements it breaks, or one on the same field that the value let through must pass too', () => {
    const fieldsOf = (id: string): Set<string> =>
      new Set(CONSTRAINTS.filter((c) => c.refusedBy === id).map((c) => `${c.route} ${c.location} ${bare(c.field)}`))
    const wrong = FAULTS.flatMap((fault) => {
      const broken = new Set(fault.breaks.flatMap((id) => [...fieldsOf(id)]))
      return (fault.relaxes ?? [])
        .filter(
          (id) => !REFUSED_BY.has(id) || !(fault.breaks.includes(id) || [...fieldsOf(id)].some((f) => broken.has(f))),
        )
        .map((id) => `${fault.name}: ${id}`)
    })
    expect(wrong).toEqual([])
  })

  it('every fault that lets a request the schemas refuse through says so (the fault proof finds one that does not)', () => {
    expect(FAULTS.filter((fault) => fault.relaxes !== undefined).length).toBeGreaterThan(50)
  })

  it('a variation lifts only refusals the words leave open: no MUST, no constraint whose refusal is stated', () => {
    const catalogue = requirements()
    const wrong = Object.entries(VARIATION_RELAXES).flatMap(([variation, ids]) =>
      (ids ?? [])
        .filter(
          (id) =>
            !REFUSED_BY.has(id) ||
            catalogue.get(id)?.level === 'MUST' ||
            CONSTRAINTS.some((c) => c.refusedBy === id && c.refusal === 'stated'),
        )
        .map((id) => `${variation}: ${id}`),
    )
    expect(wrong).toEqual([])
  })
})

describe('the validator', () => {
  it('judges every route a request schema states: each pairs with a route of the gateway', async () => {
    const gw = testGateway()
    await gw.app.ready()
    expect([...judgedRoutes(gw.app)].sort()).toEqual(
      requestSchemas()
        .map((s) => s['x-route'])
        .sort(),
    )
  })

  it('refuses a value past a stated edge with 400 naming the parameter, in the route dialect', async () => {
    const gw = testGateway()
    const compatible = await gw.call('/v1/responses', post({ model: CHAT, input: 'hi', temperature: 2.5 }))
    expect(compatible.status).toBe(400)
    expect(compatible.body.error.param).toBe('temperature')
    const usage = await gw.call('/user/v1/transactions?page_size=abc')
    expect(usage.status).toBe(400)
    expect(usage.body).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('page_size') })
    const native = await gw.call('/v1beta/models/nv-gen-flash:generateContent', post({ contents: [{ parts: [] }] }))
    expect(native.status).toBe(400)
    expect(native.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message: 'contents[0].role is required.' })
  })

  it('judges a HEAD as the GET it mirrors', async () => {
    const gw = testGateway()
    expect((await gw.app.inject({ method: 'HEAD', url: '/v1/files?order=abc', headers: auth() })).statusCode).toBe(400)
    expect((await gw.app.inject({ method: 'HEAD', url: '/v1/files?order=asc', headers: auth() })).statusCode).toBe(200)
  })

  it('a fault that lifts a requirement lets its constraint through, and nothing else', async () => {
    const gw = testGateway({ faults: ['temperature-above-2-accepted'] })
    expect((await gw.call('/v1/responses', post({ model: CHAT, input: 'hi', temperature: 2.5 }))).status).toBe(200)
    expect((await gw.call('/v1/responses', post({ model: CHAT, input: 'hi', top_logprobs: 21 }))).status).toBe(400)
  })

  it('under range-refusals-422 an open range is refused with 422, a stated refusal stays 400', async () => {
    const gw = testGateway({ variations: ['range-refusals-422'] })
    const speed = await gw.call('/v1/audio/speech', post({ model: 'tts-1', input: 'hi', voice: 'alloy', speed: 9 }))
    expect(speed.status).toBe(422)
    expect((await gw.call('/v1/audio/speech', post({ model: 'tts-1', input: 'hi' }))).status).toBe(400)
  })

  it("under real-names a listed model sent under its maker's name is judged under the reference's", async () => {
    const gw = testGateway({ variations: ['real-names'] })
    const job = await gw.call('/v1/videos', post({ model: 'vela-motion-2', prompt: 'a boat' }))
    expect(job.status).toBeLessThan(300)
  })

  it('a refused call still names and counts its model, as when its route read the model first', async () => {
    const gw = testGateway()
    const refused = await gw.call('/v1/responses', post({ model: CHAT, input: 'hi', temperature: 5 }))
    const served = await gw.call('/v1/responses', post({ model: CHAT, input: 'hi' }))
    expect(refused.status).toBe(400)
    // Both drew on the model's own requests bucket (Part 1 §7: failed requests still count).
    expect(refused.headers['x-ratelimit-limit-requests']).toBe(served.headers['x-ratelimit-limit-requests'])
    expect(Number(served.headers['x-ratelimit-remaining-requests'])).toBe(
      Number(refused.headers['x-ratelimit-remaining-requests']) - 1,
    )
  })

  it('a null where the field takes null is not given: stream_options null needs no stream', async () => {
    const gw = testGateway()
    expect((await gw.call('/v1/responses', post({ model: CHAT, input: 'hi', stream_options: null }))).status).toBe(200)
    expect((await gw.call('/v1/responses', post({ model: CHAT, input: 'hi', stream_options: {} }))).status).toBe(400)
  })

  it('under range-refusals-422 the 422 is a refusal of the request in the dialect, not a server error', async () => {
    const gw = testGateway({ variations: ['range-refusals-422'] })
    const refused = await gw.call('/v1/responses', post({ model: CHAT, input: 'hi', temperature: 5 }))
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'temperature' })
  })
})
