/**
 * The gateway under generated bodies: every POST route fuzzed with fast-check from valid requests of its own
 * (fuzz-routes.ts: the request schemas' seeds and the generation phase's positive cases) broken in every way
 * fuzz-bodies.ts knows, after a sweep that nests every node of each JSON seed 10,000 deep in turn. No answer may be
 * 5xx; every 4xx must be one the answer table (harness/openapi/answers.ts, §7 of each part) gives the route, in its
 * dialect (Part 1 §7 compatible and /user/v1 bodies, Part 2 §7 the speech-synthesis body the native interface
 * shares), with a svc-request-id (Part 1 §4.1); and each route must still answer its valid request afterwards. Bodies go through Fastify's inject; invalid UTF-8 and wrong content
 * types also go over a real socket, where the bytes are exactly what a client sends.
 *
 * Deterministic: one fixed seed and a bounded number of runs per route. A failure names the seed; rerun with
 * FUZZ_SEED=<seed> (and FUZZ_RUNS=<n> for a longer search); another seed also draws other generated positives.
 */
import fc from 'fast-check'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway } from '../../gateway/server.ts'
import { deepAtEveryNode, encodeSeed, fuzzCases, type FuzzCase } from './fuzz-bodies.ts'
import {
  authHeaders,
  FUZZ_ROUTES,
  makeSetup,
  postRoutesOf,
  seedFor,
  type FuzzRoute,
  type Seed,
  type Setup,
} from './fuzz-routes.ts'
import { answerProblems, type Answer } from './fuzz-shapes.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_901)
const RUNS = Number(process.env.FUZZ_RUNS ?? 50)
const SOCKET_RUNS = 12
/** A case that takes longer has hung the gateway: fast-check reports it as a failing case rather than the test timing out. */
const CASE_TIMEOUT_MS = 10_000

// A short video step, so that the remix route has a completed source within a few milliseconds; a 10-second minute,
// so that a long run (FUZZ_RUNS in the thousands) that meets a limit (750 a minute on /user/v1) waits seconds.
const gateway = createGateway({ videoStepMs: 5, minuteMs: 10_000 })
let setup: Setup
let base = ''

beforeAll(async () => {
  await gateway.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = gateway.app.server.address() as { port: number }
  base = `http://127.0.0.1:${port}`
  setup = await makeSetup(gateway.app)
})
afterAll(() => gateway.app.close())

async function inject(route: FuzzRoute, c: FuzzCase): Promise<Answer> {
  const response = await gateway.app.inject({
    method: 'POST',
    url: c.url,
    headers: { ...authHeaders(route), ...(c.contentType === undefined ? {} : { 'content-type': c.contentType }) },
    payload: c.payload,
  })
  return { status: response.statusCode, headers: response.headers, body: response.body }
}

async function overSocket(
  route: FuzzRoute,
  url: string,
  contentType: string | undefined,
  payload: Buffer,
): Promise<Answer> {
  const response = await request(`${base}${url}`, {
    method: 'POST',
    headers: { ...authHeaders(route), ...(contentType === undefined ? {} : { 'content-type': contentType }) },
    body: payload,
  })
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() }
}

function seedsOf(route: FuzzRoute): Seed[] {
  return route.seeds.map((seed) => seedFor(seed, setup))
}

/** Fails with the problems of an answer and what was sent, never a key. */
function expectInShape(route: FuzzRoute, answer: Answer, sent: string): void {
  const problems = answerProblems(route.dialect, route.statuses, answer)
  if (problems.length > 0) throw new Error(`${sent}\n  ${problems.join('\n  ')}`)
}

/**
 * Each seed the reference's words leave no refusal for (the x-seed, a hand-written seed) answers 2xx: the fuzz
 * starts from accepted requests, and the route still serves. A generated positive the words may refuse (a model's
 * capability, a setting) answers 2xx or a 4xx in shape, never a 5xx, as the generation phase judges it.
 */
async function expectServes(
  route: FuzzRoute,
  send: (url: string, contentType: string, payload: Buffer) => Promise<Answer>,
): Promise<void> {
  for (const seed of seedsOf(route)) {
    const url = route.validUrl ? await route.validUrl(setup) : (route.urls(setup)[0] as string)
    const { contentType, payload } = encodeSeed(seed)
    let answer = await send(url, contentType, payload)
    if (answer.status === 429) {
      // The fuzz spent the route's limit (a 429 in shape is a fine answer to it): the route serves once it resets.
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers['retry-after']) * 1000))
      answer = await send(url, contentType, payload)
    }
    if (seed.mustServe)
      expect(answer.status, `POST ${url} with its valid seed, ${seed.from}: ${answer.body.slice(0, 300)}`).toBeLessThan(
        300,
      )
    else expectInShape(route, answer, `POST ${url} with ${seed.from}`)
  }
}

describe('the fuzz list', () => {
  it('has an entry for every POST route of the gateway, and none for a route it does not serve', async () => {
    await gateway.app.ready()
    const served = postRoutesOf(gateway.app)
    // The parser must see the routes at all, or the comparison below would prove nothing.
    expect(served).toContain('/v1/responses')
    expect(served).toContain('/v1/videos/:video_id/remix')
    expect(
      served.filter((route) => !(route in FUZZ_ROUTES)),
      'POST routes with no fuzz entry in test/gateway/fuzz-routes.ts',
    ).toEqual([])
    expect(
      Object.keys(FUZZ_ROUTES).filter((route) => !served.includes(route)),
      'fuzz entries for routes the gateway does not serve',
    ).toEqual([])
  })
})

describe('generated bodies on every POST route (Part 1 §7, Part 2 §7)', () => {
  for (const [pattern, route] of Object.entries(FUZZ_ROUTES)) {
    it(`POST ${pattern}: no 5xx, every 4xx in the ${route.dialect} dialect, and still serving after ${RUNS} cases`, async () => {
      const send = (url: string, contentType: string, payload: Buffer) =>
        inject(route, { url, contentType, payload, note: 'valid seed' })
      await expectServes(route, send)
      for (const url of route.urls(setup)) {
        for (const seed of seedsOf(route)) {
          if (seed.kind !== 'json') continue
          for (const { text, note } of deepAtEveryNode(seed.body)) {
            expectInShape(
              route,
              await inject(route, { url, contentType: 'application/json', payload: Buffer.from(text), note }),
              `POST ${url} ${seed.from}: ${note}`,
            )
          }
        }
      }
      const property = fc.asyncProperty(fuzzCases(route.urls(setup), seedsOf(route)), async (c) => {
        expectInShape(route, await inject(route, c), fc.stringify(c))
      })
      try {
        await fc.assert(property, {
          seed: SEED,
          numRuns: RUNS,
          endOnFailure: true,
          includeErrorInReport: true,
          timeout: CASE_TIMEOUT_MS,
        })
      } catch (error) {
        throw new Error(`fuzz seed ${SEED} (rerun with FUZZ_SEED=${SEED}): ${(error as Error).message}`)
      }
      await expectServes(route, send)
    })
  }
})

/** Byte sequences that are not UTF-8 (RFC 3629): a lone continuation, an overlong '/', a surrogate, a cut sequence, 0xFF. */
const BAD_UTF8 = [
  [0x80],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xff, 0xfe],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe9],
].map((bytes) => Buffer.from(bytes))

/** Content types a JSON or multipart route does not take, or takes only in their exact form. */
const CONTENT_TYPES: ReadonlyArray<string | undefined> = [
  undefined,
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/json; charset=utf-16le',
  'application/json; charset=iso-8859-1',
  'APPLICATION/JSON',
  'application/json-patch+json',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/mixed; boundary=fuzz-7c1d0e9a',
  'text/event-stream',
  ';;;=/',
  `application/json; x=${'y'.repeat(4000)}`,
]

/** A body with bad bytes put in: after a quote (so inside a string or key, or between them), at the start, or all of it. */
const invalidUtf8 = fc.record({
  at: fc.nat(),
  bytes: fc.constantFrom(...BAD_UTF8),
  where: fc.constantFrom('after-quote' as const, 'after-quote' as const, 'start' as const, 'whole' as const),
})

function withBadBytes(
  payload: Buffer,
  how: { at: number; bytes: Buffer; where: 'after-quote' | 'start' | 'whole' },
): Buffer {
  if (how.where === 'whole') return Buffer.concat(Array.from({ length: 40 }, () => how.bytes))
  if (how.where === 'start') return Buffer.concat([how.bytes, payload])
  const quotes: number[] = []
  payload.forEach((byte, i) => {
    if (byte === 0x22) quotes.push(i)
  })
  const at = quotes.length === 0 ? 0 : (quotes[how.at % quotes.length] as number) + 1
  return Buffer.concat([payload.subarray(0, at), how.bytes, payload.subarray(at)])
}

describe('over a real socket: invalid UTF-8 and wrong content types', () => {
  for (const [pattern, route] of Object.entries(FUZZ_ROUTES)) {
    it(`POST ${pattern}`, async () => {
      const url = route.urls(setup)[0] as string
      for (const seed of seedsOf(route)) {
        const { contentType, payload } = encodeSeed(seed)
        const property = fc.asyncProperty(invalidUtf8, async (how) => {
          const bad = withBadBytes(payload, how)
          expectInShape(
            route,
            await overSocket(route, url, contentType, bad),
            `POST ${url} [${contentType}] ${seed.from} with ${how.bytes.toString('hex')} ${how.where} (${how.at})`,
          )
        })
        try {
          await fc.assert(property, {
            seed: SEED,
            numRuns: SOCKET_RUNS,
            endOnFailure: true,
            includeErrorInReport: true,
            timeout: CASE_TIMEOUT_MS,
          })
        } catch (error) {
          throw new Error(`fuzz seed ${SEED} (rerun with FUZZ_SEED=${SEED}): ${(error as Error).message}`)
        }
        for (const type of CONTENT_TYPES) {
          if (type === contentType) continue
          expectInShape(
            route,
            await overSocket(route, url, type, payload),
            `POST ${url} [${String(type).slice(0, 60)}] with ${seed.from}`,
          )
        }
      }
      await expectServes(route, (u, type, body) => overSocket(route, u, type, body))
    })
  }

  it('still serves the model list after everything', async () => {
    const answer = await overSocket(
      FUZZ_ROUTES['/v1/responses'] as FuzzRoute,
      '/v1/responses',
      'application/json',
      Buffer.from(JSON.stringify({ model: 'gw-chat-mini', input: 'still there?' })),
    )
    expect(answer.status).toBe(200)
    const models = await request(`${base}/v1/models`, {
      headers: authHeaders(FUZZ_ROUTES['/v1/responses'] as FuzzRoute),
    })
    expect(models.statusCode).toBe(200)
    await models.body.dump()
  })
})
