/**
 * The open-loop engine with planned offsets (load/engine/scheduler.ts): it sends every call the arrival plan
 * holds, and a call held back by the connection cap is measured from the instant it was planned, so the wait
 * shows in latency and as schedule error (no coordinated omission). A loopback server, about a second each;
 * bounds that hold however busy the machine is.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent } from 'undici'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { countBy, plannedOffsets } from '../../load/engine/arrivals.ts'
import { nowMs, PhaseRecorder } from '../../load/engine/recorder.ts'
import { runScheduled } from '../../load/engine/scheduler.ts'
import type { PhasePlan } from '../../load/types.ts'

const ANSWER_MS = 100
let server: Server
let baseUrl = ''

beforeAll(async () => {
  server = createServer((_req, res) => setTimeout(() => res.end('{}'), ANSWER_MS))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

async function run(
  rate: number,
  connections: number,
  durationMs: number,
): Promise<{ offsets: Float64Array; result: ReturnType<PhaseRecorder['result']> }> {
  const arrival = { process: 'poisson' as const, seed: 21 }
  const plan: PhasePlan = {
    name: 'p',
    description: '',
    engine: 'scheduler',
    slot: 'main',
    requests: [{ method: 'GET', path: '/' }],
    rate,
    arrival,
    connections,
    durationMs,
    bucket: null,
    expectedLimit: null,
    fromRest: false,
    verdicts: [],
  }
  const offsets = plannedOffsets(rate, durationMs, arrival, 10_000)
  const startedAt = nowMs()
  const recorder = new PhaseRecorder(plan, {
    minuteMs: 60_000,
    bucketMs: 100,
    startedAt,
    plannedBy: (ms) => countBy(offsets, ms),
  })
  const dispatcher = new Agent({ connections })
  try {
    await runScheduled({
      baseUrl,
      key: 'k',
      dispatcher,
      timeoutMs: 5000,
      signal: new AbortController().signal,
      recorder,
      requests: plan.requests,
      rate,
      connections,
      durationMs,
      maxRequests: 10_000,
      offsets,
    })
  } finally {
    await dispatcher.close()
  }
  return { offsets, result: recorder.result(nowMs()) }
}

test('with room, the planned calls are sent, each taking at least the answer time', async () => {
  const { offsets, result } = await run(20, 32, 1000)
  // A busy machine may stall the loop past the end, and calls not sent by then are not sent late.
  expect(result.sent).toBeLessThanOrEqual(offsets.length)
  expect(result.sent).toBeGreaterThanOrEqual(offsets.length - 4)
  expect(result.latency.p50).toBeGreaterThanOrEqual(ANSWER_MS - 5)
})

test('past the connection cap, calls wait: latency counts the wait from the planned instant, and the schedule is behind', async () => {
  // One connection answers 10 calls a second; 30 a second are planned.
  const { result } = await run(30, 1, 1200)
  expect(result.sent).toBeGreaterThan(5)
  // Measured from the send, every call would take about 100 ms; from the plan, the queue's wait adds up. Each
  // call's latency holds its own lateness, however busy the machine: the longest is at least the lag's p99.
  expect(result.schedule?.lagP99Ms).toBeGreaterThan(3 * ANSWER_MS)
  expect(result.latency.max).toBeGreaterThan(4 * ANSWER_MS)
  expect(result.latency.max).toBeGreaterThanOrEqual(0.99 * (result.schedule?.lagP99Ms as number) + ANSWER_MS - 5)
  expect(result.schedule?.maxBehindCalls).toBeGreaterThan(3)
  expect(result.schedule?.conclusive).toBe(false)
})
