/** The client against a local server: SSE streams read with timings, raw and streamed bodies, deadlines. */
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { TargetFailure } from '../../../harness/errors.ts'
import { TargetClient } from '../../../harness/worker/http-client.ts'
import { DEFAULT_NATIVE_KEY_HEADER } from '../../../harness/setup/config.ts'

let server: Server
let client: TargetClient

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('event: a\ndata: {"n":1}\n\n')
      setTimeout(() => res.end('event: b\ndata: {"n":2}\n\n'), 50)
      return
    }
    if (req.url === '/echo') {
      let size = 0
      req.on('data', (chunk: Buffer) => (size += chunk.length))
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ size, type: req.headers['content-type'] })),
      )
      return
    }
    if (req.url === '/hang') return // never answers
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  client = new TargetClient({
    baseUrl: `http://127.0.0.1:${port}`,
    embedded: false,
    keys: { main: 'k' },
    asOf: '2026-11-21',
    budgetUsd: null,
    largeUploads: false,
    models: {},
    nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
    // Room for a busy shared machine; the hang test sets its own short deadline.
    timeoutMs: 5_000,
    runId: 't',
  })
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('TargetClient', () => {
  test('stream() reads events with the time each arrived, and how the stream ended', async () => {
    const ex = await client.stream({ path: '/sse' })
    expect(ex.stream?.events.map((e) => e.event)).toEqual(['a', 'b'])
    expect(ex.stream?.end.cleanEnd).toBe(true)
    const [first, second] = ex.stream?.eventTimesMs ?? []
    // The server sends b at least 30 ms after the request; a busy client may read a and b together, so only
    // the order and that lower bound hold on a shared machine.
    expect(second).toBeGreaterThanOrEqual(first ?? Number.POSITIVE_INFINITY)
    expect(second).toBeGreaterThanOrEqual(30)
    expect(ex.excerpt.body).toContain('event: a')
  })

  test('a streamed body is sent in chunks and described, not copied, in the excerpt', async () => {
    const chunk = new Uint8Array(64 * 1024)
    const ex = await client.request({
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/octet-stream' },
      body: async function* () {
        for (let i = 0; i < 16; i += 1) yield chunk
      },
      bodyNote: '1 MiB of zeros',
    })
    expect(ex.json).toEqual({ size: 16 * 64 * 1024, type: 'application/octet-stream' })
    expect(ex.excerpt).toMatchObject({ requestBody: '1 MiB of zeros', requestBodyIsNote: true })
  })

  test('a target that never answers is a failure within the deadline, not a hang', async () => {
    const started = Date.now()
    await expect(client.get('/hang', { timeoutMs: 500 })).rejects.toBeInstanceOf(TargetFailure)
    expect(Date.now() - started).toBeLessThan(3000)
  })
})
