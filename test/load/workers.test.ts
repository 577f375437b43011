/**
 * An open-loop phase driven by worker threads (load/engine/workers.ts): which phases take them, how the schedule is
 * sliced, and a phase of 1,200 planned calls on two workers against a loopback server whose figures merge exactly
 * (every call sent is answered and in the histograms and series once); and a pool that runs two phases on the two
 * threads it started once.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { slicePlan, WorkerPool, workersFor, WORKERS } from '../../load/engine/workers.ts'
import { jsonGetter, type Profile } from '../../load/profiles/profile.ts'
import { runProfile } from '../../load/runner.ts'
import type { PhasePlan } from '../../load/types.ts'

const plan = (over: Partial<PhasePlan> = {}): PhasePlan => ({
  name: 'fast',
  description: 'd',
  engine: 'scheduler',
  slot: 'main',
  requests: [{ method: 'GET', path: '/v1/models' }],
  rate: 1200,
  connections: 16,
  durationMs: 1000,
  bucket: null,
  expectedLimit: null,
  fromRest: false,
  verdicts: ['throughput'],
  ...over,
})

describe('which phases workers drive', () => {
  test('an open-loop phase past the rate one core holds, split into at most as many workers as the rate needs', () => {
    expect(workersFor(plan(), 4)).toBe(Math.floor(1200 / WORKERS.minRatePerWorker))
    expect(workersFor(plan({ rate: 100 }), 4)).toBe(1)
    expect(workersFor(plan(), 1)).toBe(1)
    expect(workersFor(plan({ rate: null, engine: 'autocannon' }), 4)).toBe(1)
    expect(workersFor(plan({ probe: { slot: 'tier1', rate: 1, requests: [] } }), 4)).toBe(1)
    expect(workersFor(plan({ requests: [{ method: 'POST', path: '/v1/files', collectId: true }] }), 4)).toBe(1)
  })

  test('slices divide the rate and connections; an arrival process is seeded per slice', () => {
    const arrival = { process: 'poisson' as const, seed: 7 }
    const a = slicePlan(plan({ arrival }), 0, 2)
    const b = slicePlan(plan({ arrival }), 1, 2)
    expect([a.rate, a.connections]).toEqual([600, 8])
    expect(a.arrival?.seed).not.toBe(b.arrival?.seed)
  })
})

let server: Server
let url: string
beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"object":"list","data":[]}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

test('two workers: of 1,200 planned calls, each sent is answered and recorded once in the merge', async () => {
  const profile: Profile = {
    name: 'fast',
    description: 'd',
    tier: null,
    caps: { maxDurationMs: 30_000, maxRequests: 10_000 },
    plan: async () => [plan()],
  }
  const result = await runProfile({
    profile,
    context: {
      baseUrl: url,
      embedded: false,
      minuteMs: 60_000,
      keys: { main: 'k' },
      tier: null,
      durationMs: null,
      rate: null,
      connections: null,
      workers: 2,
      timeoutMs: 10_000,
      runId: 'workers',
      getJson: jsonGetter(url, { main: 'k' }, 10_000),
    },
    runId: 'workers',
    shard: null,
    signal: AbortSignal.timeout(30_000),
    toolVersion: 'test',
  })
  const phase = result.phases[0]!
  expect(phase.plan.workers).toBe(2)
  expect(phase.plan.rate).toBe(1200)
  // How many left on time is the bench's business (a busy machine sends fewer): what is judged here is that each
  // call sent is counted once in every figure of the merge.
  expect(phase.sent).toBeGreaterThan(0)
  expect(phase.sent).toBeLessThanOrEqual(1200)
  expect(phase.answered).toBe(phase.sent)
  expect(phase.byStatus).toEqual({ '200': phase.sent })
  expect(phase.latency.count).toBe(phase.sent)
  expect(phase.series.reduce((n, s) => n + s.sent, 0)).toBe(phase.sent)
  expect(phase.series.reduce((n, s) => n + s.ok, 0)).toBe(phase.sent)
}, 60_000)

test('a pool starts its threads once and runs phase after phase on them, each merged on its own', async () => {
  const pool = new WorkerPool()
  const base = {
    baseUrl: url,
    key: 'k',
    timeoutMs: 10_000,
    minuteMs: 60_000,
    bucketMs: 100,
    maxRequests: 10_000,
    objectives: [],
  }
  try {
    for (const rate of [600, 400]) {
      const parts = await pool.run(
        base,
        plan({ rate, durationMs: 500 }),
        2,
        AbortSignal.timeout(20_000),
        () => undefined,
        () => performance.timeOrigin + performance.now(),
      )
      expect(parts.map((p) => p.slice.rate)).toEqual([rate / 2, rate / 2])
      for (const { part } of parts) {
        expect(part.sent).toBeGreaterThan(0)
        expect(part.sent).toBeLessThanOrEqual(rate / 4 + 1)
        expect(part.answered).toBe(part.sent)
      }
    }
    expect(pool.started).toBe(2)
  } finally {
    await pool.close()
  }
}, 60_000)
