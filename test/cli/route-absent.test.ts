/**
 * One cause, one verdict, end to end: the reference gateway behind a proxy that does not serve one route, answering
 * it as express does ("Cannot POST /v1/audio/speech", an HTML 404). The audio family then shows one failure, under the
 * requirement that states the route, and every check that needs the route skipped naming it; Fix first lists it
 * first, deciding them all. The suites hold no code for this: the harness does it (harness/routes.ts).
 */
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SEEDED_KEY_ENV } from '../../gateway/account/accounts.ts'
import type { EmbeddedGateway } from '../../gateway/embedded.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import { startGatewayThread } from '../support/gateway-thread.ts'
import { keyEnv, withRun } from '../support/run-conformance.ts'

const ROUTE = { method: 'POST', path: '/v1/audio/speech', requirement: 'P2-4.2-speech-models' }
/** A route no check serves a valid request to (an image edit needs a stored image): its absence is still one cause. */
const EDITS = { method: 'POST', path: '/v1/images/edits', requirement: 'P1-4.8-compatible-served' }
type Absent = typeof ROUTE

let gateway: EmbeddedGateway
let proxy: Server
let editsProxy: Server

/**
 * Passes every call to the gateway, but answers the one route with express's page for a route it lacks. The gateway
 * still answers that call (at a path it does not serve), so the answer keeps its shared headers: only the route is
 * missing, as on a gateway built without it.
 */
function startProxy(target: URL, route: Absent): Promise<Server> {
  const server = createServer(async (req, res) => {
    // The whole body first: a refusal the gateway sends before reading an upload (413) then reaches the client.
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const absent = req.method === route.method && (req.url ?? '').split('?')[0] === route.path
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: absent ? `${route.path}-not-served` : req.url,
        headers: req.headers,
      },
      (answer) => {
        if (!absent) {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
          return
        }
        answer.resume()
        const { 'content-type': _type, 'content-length': _length, ...shared } = answer.headers
        res.writeHead(404, { ...shared, 'content-type': 'text/html; charset=utf-8' })
        res.end(`<!DOCTYPE html>\n<html><body><pre>Cannot ${route.method} ${route.path}</pre></body></html>\n`)
      },
    )
    upstream.on('error', () => {
      if (!res.headersSent) res.destroy()
    })
    upstream.end(Buffer.concat(chunks))
  })
  // The gateway's keep-alive promise travels with its answers: the proxy keeps sockets at least as long, or a client
  // reusing one would write into a socket the proxy just closed.
  server.keepAliveTimeout = 120_000
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

beforeAll(async () => {
  gateway = await startGatewayThread({ minuteMs: DEFAULTS.embeddedMinuteMs })
  proxy = await startProxy(new URL(gateway.url), ROUTE)
  editsProxy = await startProxy(new URL(gateway.url), EDITS)
})
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve))
  await new Promise((resolve) => editsProxy?.close(resolve))
  await gateway?.close()
})

test('a route the target does not serve is one failure, and the checks that need it skip naming it', async () => {
  await withRun(['--family', 'audio'], envFor(proxy), (run) => {
    const summary = run.summary
    expect(summary, run.stderr).toBeDefined()
    const audio = summary?.requirements.filter((r) => r.family === 'audio') ?? []
    const failed = audio.filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'error')
    expect(
      failed.map((r) => r.id),
      failed.map((r) => r.evidence[0]?.message).join('\n---\n'),
    ).toEqual([ROUTE.requirement])
    const cause = summary?.fixFirst?.[0]
    expect(cause).toMatchObject({
      cause: ROUTE.requirement,
      exchange: { method: ROUTE.method, path: ROUTE.path, status: 404 },
    })
    expect(summary?.fixFirst?.map((e) => e.cause)).toEqual([ROUTE.requirement])
    // Speech is what the transcription and translation checks transcribe: many wait on it.
    expect(cause?.requirements.length).toBeGreaterThan(10)
    for (const id of cause?.requirements ?? []) {
      const result = audio.find((r) => r.id === id)
      expect(result?.status, id).toBe('skip')
      expect(result?.reason, id).toMatch(new RegExp(`needs ${ROUTE.requirement}`))
    }
    const skippedElse = audio.filter((r) => r.status === 'skip' && !cause?.requirements.includes(r.id))
    expect(skippedElse.map((r) => `${r.id}: ${r.reason}`)).toEqual([])
    expect(run.stdout).toMatch(/Fix first[^\n]*\n {2}P2-4\.2-speech-models \(MUST, fail\): decides \d+ MUST/)
    expect(run.exitCode).toBe(1)
  })
}, 300_000)

test('an image edit route the target does not serve is one warning, and the checks that need it skip naming it', async () => {
  await withRun(['--family', 'compatible'], envFor(editsProxy), (run) => {
    const compatible = run.summary?.requirements.filter((r) => r.family === 'compatible') ?? []
    const failed = compatible.filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'error')
    expect(
      failed.map((r) => r.id),
      failed.map((r) => r.evidence[0]?.message).join('\n---\n'),
    ).toEqual([EDITS.requirement])
    expect(run.summary?.fixFirst?.map((e) => e.cause)).toEqual([EDITS.requirement])
    expect(run.summary?.fixFirst?.[0]?.exchange).toMatchObject({ method: EDITS.method, path: EDITS.path, status: 404 })
  })
}, 300_000)

function envFor(server: Server): Record<string, string> {
  return {
    GATEWAY_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ...keyEnv({ ...gateway.keys }, SEEDED_KEY_ENV),
    GATEWAY_BUDGET_USD: '100000',
    GATEWAY_MINUTE_MS: String(DEFAULTS.embeddedMinuteMs),
  }
}
