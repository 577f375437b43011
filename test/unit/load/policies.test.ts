/**
 * The retry policies of the backoff profile (load/engine/policies.ts), one rule per test, and the replay of the
 * OpenAI Node client checked against that client itself (openai 7, a dev dependency); the clients engine's pace.
 */
import { createServer } from 'node:http'
import OpenAI from 'openai'
import { Agent } from 'undici'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { runClients } from '../../../load/engine/clients.ts'
import { naiveDelay, openAiNodeDelay, SPEC7, spec7Delay, type RetryContext } from '../../../load/engine/policies.ts'
import { nowMs, PhaseRecorder } from '../../../load/engine/recorder.ts'

const ctx = (over: Partial<RetryContext>): RetryContext => ({
  attempt: 1,
  maxAttempts: 6,
  status: 429,
  headers: {},
  now: Date.parse('2026-11-21T12:00:00Z'),
  random: () => 0,
  ...over,
})

afterEach(() => vi.restoreAllMocks())

describe('section 7 client (Part 1 section 7)', () => {
  test('honours Retry-After when it asks longer than the backoff', () => {
    expect(spec7Delay(ctx({ headers: { 'retry-after': '7' } }))).toBe(7000)
  })
  test('backs off exponentially without Retry-After, with random jitter on top', () => {
    expect(spec7Delay(ctx({ attempt: 3 }))).toBe(SPEC7.baseDelayMs * 4)
    expect(spec7Delay(ctx({ attempt: 3, random: () => 1 }))).toBe(SPEC7.baseDelayMs * 4 + SPEC7.jitterMs)
  })
  test('bounds the attempts and retries only 429', () => {
    expect(spec7Delay(ctx({ attempt: 6 }))).toBeNull()
    expect(spec7Delay(ctx({ status: 500 }))).toBeNull()
  })
  test('reads Retry-After as an HTTP date too', () => {
    expect(spec7Delay(ctx({ headers: { 'retry-after': 'Sat, 21 Nov 2026 12:00:09 GMT' } }))).toBe(9000)
  })
})

test('the naive client retries at once', () => {
  expect(naiveDelay(ctx({ attempt: 1, maxAttempts: 1000 }))).toBe(0)
  expect(naiveDelay(ctx({ attempt: 1000, maxAttempts: 1000 }))).toBeNull()
})

describe('the OpenAI Node client replay agrees with the client', () => {
  test('default backoff: 0.5 s doubling to 8 s, less up to 25 % jitter, as the client computes it', () => {
    const client = new OpenAI({ apiKey: 'sk-not-a-key', baseURL: 'http://127.0.0.1:9' }) as unknown as {
      calculateDefaultRetryTimeoutMillis(remaining: number, max: number): number
    }
    for (const random of [0, 0.5, 0.999]) {
      vi.spyOn(Math, 'random').mockReturnValue(random)
      for (const [attempt, maxAttempts] of [
        [1, 3],
        [2, 3],
        [1, 10],
        [6, 10],
      ] as const) {
        const maxRetries = maxAttempts - 1
        const remaining = maxAttempts - attempt
        expect(openAiNodeDelay(ctx({ attempt, maxAttempts, random: () => random }))).toBeCloseTo(
          client.calculateDefaultRetryTimeoutMillis(remaining, maxRetries),
          6,
        )
      }
    }
  })
  test('retry-after-ms first, then Retry-After; two retries by default; 409 and 5xx retried, 400 not', () => {
    expect(openAiNodeDelay(ctx({ maxAttempts: 3, headers: { 'retry-after-ms': '1500', 'retry-after': '9' } }))).toBe(
      1500,
    )
    expect(openAiNodeDelay(ctx({ maxAttempts: 3, headers: { 'retry-after': '9' } }))).toBe(9000)
    expect(openAiNodeDelay(ctx({ attempt: 3, maxAttempts: 3 }))).toBeNull()
    expect(openAiNodeDelay(ctx({ maxAttempts: 3, status: 409 }))).not.toBeNull()
    expect(openAiNodeDelay(ctx({ maxAttempts: 3, status: 503 }))).not.toBeNull()
    expect(openAiNodeDelay(ctx({ maxAttempts: 3, status: 400 }))).toBeNull()
    expect(openAiNodeDelay(ctx({ maxAttempts: 3, status: 400, headers: { 'x-should-retry': 'true' } }))).not.toBeNull()
  })
})

describe('the clients engine', () => {
  test('a paced naive client makes no more calls than its pace allows, however fast the target refuses', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(429, {
        'content-type': 'application/json',
        'x-ratelimit-limit-requests': '5',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1s',
        'retry-after': '1',
      })
      res.end('{"error":{"message":"limit","type":"rate_limit_error","code":"rate_limit_exceeded"}}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    const dispatcher = new Agent({ connections: 4 })
    try {
      const plan = {
        name: 'naive',
        description: '',
        engine: 'clients' as const,
        slot: 'main' as const,
        requests: [],
        rate: null,
        connections: 4,
        durationMs: 600,
        bucket: 'requests' as const,
        expectedLimit: 5,
        fromRest: false,
        verdicts: [],
      }
      // The first call of a process compiles undici's HTTP parser: on a busy machine that alone can outlast the
      // phase, which would then count a call per worker and say nothing of the pace.
      await dispatcher
        .request({ origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET' })
        .then((r) => r.body.dump())
      const recorder = new PhaseRecorder(plan, { minuteMs: 1000, bucketMs: 100, startedAt: nowMs() })
      const figures = await runClients({
        baseUrl: `http://127.0.0.1:${port}`,
        key: 'sk-test',
        dispatcher,
        timeoutMs: 2000,
        signal: new AbortController().signal,
        recorder,
        requests: [{ method: 'GET', path: '/user/v1/credit' }],
        policy: 'naive',
        workers: 4,
        maxAttempts: 1000,
        durationMs: 600,
        maxRequests: 10_000,
        pacePerSecond: 50,
      })
      // 600 ms at 50 calls a second: 30 turns (the first at 0 ms). Unpaced, four workers on loopback make hundreds.
      expect(figures.attempts).toBeGreaterThan(10)
      expect(figures.attempts).toBeLessThanOrEqual(31)
      expect(figures.refusals).toBe(figures.attempts)
      expect(figures.tasks).toBeLessThanOrEqual(4)
    } finally {
      await dispatcher.close()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
