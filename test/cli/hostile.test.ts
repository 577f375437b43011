/**
 * Hostile targets: the conformance CLI and the load harness against a server that answers malformed
 * JSON, the wrong content type, nothing at all, a body that never ends, an endless, silent or cut event stream,
 * 50 MB, a reset, a redirect loop, or 200 where an error is due. Each run must end by itself within a bound,
 * report the target's failure under the requirement it breaks (exit 1; never a harness error, exit 2, for what is
 * the target's fault), say in words what was wrong, write its report, and never crash.
 * The requirements met: Part 1 §2.3 and §4.3 (the model list), §7 (an unknown id is a 404), §6.2 (streams).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { DEFAULT_NATIVE_KEY_HEADER, DEFAULTS } from '../../harness/setup/config.ts'
import { TargetFailure } from '../../harness/errors.ts'
import { CLIENT_DEFAULTS, TargetClient } from '../../harness/worker/http-client.ts'
import { RUN_STOP_DEFAULTS, RunStopped } from '../../harness/setup/run-stop.ts'
import type { LoadResult } from '../../load/types.ts'
import { runLoadCli } from '../../load/command/index.ts'
import { HOSTILE, startHostileServer, type HostileMode, type HostileServer } from '../support/hostile-server.ts'
import { limiter, runConformance, type ConformanceRun } from '../support/run-conformance.ts'

/** Low enough that a hang costs little, high enough that a plausible answer on a busy machine is never late. */
const TIMEOUT_MS = 2000
/** A run that has not ended by itself by then is killed, and fails its test: nothing may hang. */
const RUN_BOUND_MS = 60_000
/** A test's own time: its run's bound, and the wait for a free slot behind the others. */
const TEST_MS = 300_000
const KEY = 'sk-hostile-test-key-3f9c1d'
const ENV = { GATEWAY_API_KEY: KEY, GATEWAY_TIMEOUT_MS: String(TIMEOUT_MS) }
// Child runs are CPU-heavy (vitest and its workers); most of their time goes on waiting out deadlines.
const slot = limiter(3)

const scratch = mkdtempSync(join(tmpdir(), 'gc-hostile-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** What every conformance run against a hostile target must show, whatever the mode. */
function expectCleanFailure(run: ConformanceRun, server: HostileServer, ms: number): void {
  const output = `${run.stderr}\n${run.stdout.slice(-2000)}`
  expect(run.exitCode, `killed at the bound? ${output}`).not.toBe(-1)
  expect(ms).toBeLessThan(RUN_BOUND_MS)
  expect(server.hits, 'the hostile routes were reached').toBeGreaterThan(0)
  expect(run.stderr).not.toMatch(/internal error|\n\s+at /)
  expect(run.summary, 'summary.json written').toBeDefined()
  const summary = run.summary!
  // The target's fault is a failure, never a harness error (ARCHITECTURE.md, The contracts).
  expect(summary.harnessErrors).toEqual([])
  expect(
    summary.requirements
      .filter((r) => r.status === 'error')
      .map((r) => `${r.id}: ${r.evidence[0]?.message.split('\n')[3]}`),
  ).toEqual([])
  expect(run.exitCode, output).toBe(1)
  expect(summary.exitCode).toBe(1)
  expect(`${run.stdout}${run.stderr}`).not.toContain(KEY)
}

function evidenceOf(run: ConformanceRun, id: string): string {
  const result = run.summary?.requirements.find((r) => r.id === id)
  expect(result?.status, `${id}: ${JSON.stringify(result?.evidence[0]?.message)}`).toBe('fail')
  return result!.evidence.map((e) => e.message).join('\n---\n')
}

interface CliCase {
  mode: HostileMode
  /** The file the run is restricted to, and the requirement whose test must meet the hostile answer. */
  file: string
  requirement: string
  messages: RegExp[]
  env?: Record<string, string>
}

const MODELS = 'suites/models/models.test.ts'
const STREAMS = 'suites/responses/streaming.test.ts'
const CLI_CASES: CliCase[] = [
  { mode: 'malformed-json', file: MODELS, requirement: 'P1-2.3-model-list', messages: [/Seen: not JSON \(/] },
  {
    mode: 'hang',
    file: MODELS,
    requirement: 'P1-2.3-model-list',
    messages: [new RegExp(`GET /v1/models: no response within ${TIMEOUT_MS} ms`)],
  },
  {
    mode: 'endless-body',
    file: MODELS,
    requirement: 'P1-2.3-model-list',
    messages: [
      new RegExp(
        `no complete response within ${TIMEOUT_MS} ms: the body did not end \\(\\d+ bytes of the body read\\)`,
      ),
    ],
  },
  // A deadline long enough that the byte cap, not the clock, stops the read on a busy machine.
  {
    mode: 'huge-body',
    file: MODELS,
    requirement: 'P1-2.3-model-list',
    messages: [new RegExp(`response body past ${CLIENT_DEFAULTS.maxBodyBytes} bytes: reading stopped there`)],
    env: { GATEWAY_TIMEOUT_MS: '20000' },
  },
  {
    mode: 'reset',
    file: MODELS,
    requirement: 'P1-2.3-model-list',
    messages: [/the connection closed before any response \(/],
  },
  {
    mode: 'redirect-loop',
    file: MODELS,
    requirement: 'P1-2.3-model-list',
    messages: [/Expected: a 2xx status/, /Seen: 302/, /transport: a redirect to \/v1\/models, not followed/],
  },
  {
    mode: 'ok-instead-of-error',
    file: MODELS,
    requirement: 'P1-7-unknown-model-404',
    messages: [/Expected: status 404/, /Seen: 200/],
  },
  {
    mode: 'wrong-content-type',
    file: STREAMS,
    requirement: 'P1-6.2-stream-sse',
    messages: [/Expected: content-type text\/event-stream/, /Seen: application\/json/],
  },
  // The hostile server shares this worker's event loop with the in-process load runs: on a busy machine it can fall
  // silent for the whole idle cap before the total deadline comes, and the client then names that instead.
  {
    mode: 'endless-sse',
    file: STREAMS,
    requirement: 'P1-6.2-stream-terminal',
    messages: [
      /Seen: no terminal event among \d+/,
      new RegExp(
        `transport: (the stream did not end within|no byte of the stream for) ${TIMEOUT_MS} ms, after \\d+ events`,
      ),
    ],
  },
  {
    mode: 'cut-sse',
    file: STREAMS,
    requirement: 'P1-6.2-stream-terminal',
    messages: [/Seen: no terminal event among 2 /, /transport: the stream ended inside an event/],
  },
]

/**
 * Targets broken on every route but the probe, one shape each: the run stops calling after a run of transport
 * failures, and ends with exit 2, a partial report, and the failures that stopped it named. What bounds the run is
 * the number of calls it makes once the target fails (the breaker's five, and those already in flight in the other
 * workers), each within its deadline: with the defaults (30 s a call) a run ends within 5 minutes. Here the call
 * deadline is 1/15 of the default, and so is the trickle's pace; one shape that fails fast runs with the defaults.
 */
const SCALED_TIMEOUT_MS = 2000
const SCALED_BOUND_MS = 60_000
const DEFAULT_BOUND_MS = 5 * 60_000
/** Calls that meet the broken routes: the five in a row that stop the run, and those in flight in every worker then. */
const MAX_BROKEN_CALLS = RUN_STOP_DEFAULTS.consecutiveFailures + 2 * DEFAULTS.suiteWorkers
const BROKEN_FAMILIES = 'files,responses'
const BROKEN_EVERYWHERE = ['/v1/', '/v1beta/', '/user/']
const SHAPES: Array<[HostileMode, RegExp]> = [
  ['hang', new RegExp(`no response within ${SCALED_TIMEOUT_MS} ms`)],
  ['reset', /the connection closed before any response/],
  ['malformed-json', /a body labelled application\/json that is not JSON/],
  ['wrong-content-type', /a body labelled application\/json that is not JSON/],
  // On a busy machine the deadline may come before the byte cap.
  ['huge-body', new RegExp(`response body past \\d+ bytes|no complete response within ${SCALED_TIMEOUT_MS} ms`)],
  // The server never pauses, but a machine busy past its cores can hold its writes for the idle cap.
  ['endless-sse', /(no complete response within|the stream did not end within|no byte of the stream for) 2000 ms/],
  ['trickle', new RegExp(`no complete response within ${SCALED_TIMEOUT_MS} ms: the body did not end`)],
]

function expectStopped(run: ConformanceRun, server: HostileServer, ms: number, bound: number, failure: RegExp): void {
  const output = `${run.stderr}\n${run.stdout.slice(-2000)}`
  expect(run.exitCode, output).toBe(2)
  expect(ms).toBeLessThan(bound)
  expect(server.hits).toBeLessThanOrEqual(MAX_BROKEN_CALLS)
  expect(run.stderr).not.toMatch(/internal error|\n\s+at /)
  const summary = run.summary!
  expect(summary.exitCode).toBe(2)
  // Five in a row stop the run; a call in flight in another worker then may fail too and be counted.
  const evidence =
    /^the run stopped calling the target: target unhealthy, [5-9] transport failures in a row: (.*)$/.exec(
      summary.stopped ?? '',
    )
  expect(evidence, summary.stopped).not.toBeNull()
  for (let i = 1; i <= 5; i += 1)
    expect(evidence![1]).toMatch(new RegExp(`\\(${i}\\) [A-Z]+ /\\S+: [^;]*(?:${failure.source})`))
  expect(run.stdout).toContain(
    'Run stopped, report partial (exit 2): the run stopped calling the target: target unhealthy',
  )
  expect(`${run.stdout}${run.stderr}`).not.toContain(KEY)
}

// One concurrent suite around all, quick tests first: vitest starts at most five tests at once, in this order.
describe.concurrent('hostile targets', () => {
  describe('the client: caps in bytes and time, each named in the failure', () => {
    const servers: HostileServer[] = []
    afterAll(() => Promise.all(servers.map((s) => s.close())))
    async function clientFor(mode: HostileMode, timeoutMs = 800): Promise<TargetClient> {
      const server = await startHostileServer(mode)
      servers.push(server)
      return new TargetClient({
        baseUrl: server.url,
        embedded: false,
        keys: { main: KEY },
        asOf: '2026-11-21',
        budgetUsd: null,
        largeUploads: false,
        models: {},
        nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
        timeoutMs,
        runId: 't',
      })
    }
    const streamSpec = { method: 'POST', path: '/v1/responses', json: { stream: true } }

    test('a 50 MB body is read only up to the byte cap, not held whole', async () => {
      const client = await clientFor('huge-body', 30_000)
      const error = await client.get('/v1/models').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TargetFailure)
      const excerpt = (error as TargetFailure).excerpt
      expect(excerpt.error).toBe(`response body past ${CLIENT_DEFAULTS.maxBodyBytes} bytes: reading stopped there`)
      expect(excerpt.bodyBytes).toBeLessThan(HOSTILE.hugeBodyBytes / 2)
    }, 60_000)

    test('an endless stream stops at the byte cap the caller gave, with the events read so far', async () => {
      const client = await clientFor('endless-sse', 30_000)
      const ex = await client.stream(streamSpec, { maxBytes: 8 * 1024 })
      expect(ex.stream?.end.reason).toBe('max-bytes')
      expect(ex.stream?.events.length).toBeGreaterThan(10)
      expect(ex.excerpt.error).toMatch(/^the stream ran past 8192 bytes without ending/)
    }, 60_000)

    test('an endless stream stops at the request deadline by default', async () => {
      const client = await clientFor('endless-sse')
      const started = Date.now()
      const ex = await client.stream(streamSpec)
      expect(ex.stream?.end.reason).toBe('total-timeout')
      expect(ex.excerpt.error).toMatch(/^the stream did not end within 800 ms, after \d+ events/)
      expect(Date.now() - started).toBeLessThan(10_000)
    })

    test('a silent stream stops at its caps and is said to be silent', async () => {
      const client = await clientFor('silent-sse')
      const ex = await client.stream(streamSpec)
      expect(ex.stream?.end).toMatchObject({ events: 0, bytes: 0 })
      expect(ex.excerpt.error).toMatch(/^no byte of the stream (for|within) 800 ms/)
    })

    test('a silent stream under a longer deadline meets the idle cap the caller gave', async () => {
      const client = await clientFor('silent-sse', 30_000)
      const ex = await client.stream(streamSpec, { idleTimeoutMs: 300 })
      expect(ex.stream?.end.reason).toBe('idle-timeout')
      expect(ex.excerpt.error).toBe(
        'no byte of the stream for 300 ms, after 0 events and 0 bytes: reading stopped there',
      )
    }, 60_000)

    test('a stream request answered with an endless plain body keeps the plain deadline', async () => {
      const client = await clientFor('endless-body')
      const started = Date.now()
      await expect(client.stream({ path: '/v1/models' })).rejects.toThrow(
        /no complete response within 800 ms: the body did not end/,
      )
      expect(Date.now() - started).toBeLessThan(10_000)
    })
  })

  describe('the load harness: exit 1, 2 or 3, a report, never a crash', () => {
    async function load(
      mode: HostileMode,
      on: string[],
      args: string[],
    ): Promise<{ code: number; stdout: string; stderr: string; result?: LoadResult }> {
      const server = await startHostileServer(mode, { on })
      const dir = join(scratch, `load-${mode}-${on.join('').replace(/\W/g, '')}`)
      let stdout = ''
      let stderr = ''
      const env = { ...ENV, GATEWAY_API_KEY_TIER1: `${KEY}-1`, GATEWAY_API_KEY_TIER2: `${KEY}-2` }
      try {
        const code = await runLoadCli(['--base-url', server.url, '--report-dir', dir, ...args], {
          stdout: (t) => (stdout += t),
          stderr: (t) => (stderr += t),
          env,
        })
        expect(server.hits).toBeGreaterThan(0)
        expect(stderr).not.toMatch(/harness error|\n\s+at /)
        expect(`${stdout}${stderr}`).not.toContain(KEY)
        const runs = existsSync(join(dir, 'load')) ? readdirSync(join(dir, 'load')).filter((d) => d !== 'latest') : []
        const result =
          runs[0] === undefined
            ? undefined
            : (JSON.parse(readFileSync(join(dir, 'load', runs[0], 'result.json'), 'utf8')) as LoadResult)
        return { code, stdout, stderr, ...(result ? { result } : {}) }
      } finally {
        await server.close()
      }
    }
    const USAGE = ['--profile', 'tier-2-usage', '--phase', 'half', '--duration', '1s', '--minute-ms', '1000']

    test('usage endpoints that never answer: every call a timeout, nothing judged as passed', async () => {
      const run = await load('hang', ['/user/v1/'], USAGE)
      expect([1, 3], run.stderr + run.stdout).toContain(run.code)
      const phase = run.result!.phases[0]!
      expect(phase.sent).toBeGreaterThan(0)
      expect(phase.errors).toEqual({ timeout: phase.sent })
    }, 60_000)

    test('usage endpoints that answer 50 MB: every call cut at the byte cap or the deadline', async () => {
      const run = await load('huge-body', ['/user/v1/'], USAGE)
      expect([1, 3], run.stderr + run.stdout).toContain(run.code)
      const phase = run.result!.phases[0]!
      expect(Object.keys(phase.errors).filter((name) => name !== 'body too large' && name !== 'timeout')).toEqual([])
      expect(Object.values(phase.errors).reduce((a, b) => a + b, 0)).toBe(phase.sent)
    }, 60_000)

    test('streams that never end count as cut short, and the streaming verdict cannot pass', async () => {
      const run = await load('endless-sse', ['/v1/responses'], ['--profile', 'streaming', '--duration', '1s'])
      expect([1, 3], run.stderr + run.stdout).toContain(run.code)
      const phase = run.result!.phases[0]!
      // Every stream that began (a 200 came) was cut at the deadline, and counts as cut short.
      const begun = phase.byStatus['200'] ?? 0
      expect(begun).toBeGreaterThan(0)
      expect(phase.stream).toMatchObject({ completed: 0, truncated: begun })
      const verdict = run.result!.verdicts.find((v) => v.id === 'streaming')!
      // Failed as cut short, or inconclusive where a busy machine put the generator behind its plan.
      if (verdict.status === 'fail')
        expect(verdict.detail).toBe(`${begun} of ${begun} streams ended without response.completed`)
      else expect(verdict.detail).toMatch(/behind its plan/)
    }, 60_000)

    test('a model list that never comes leaves nothing to plan: exit 2 and one line, no stack', async () => {
      const run = await load(
        'hang',
        ['/v1/models'],
        ['--profile', 'tier-2-model', '--duration', '1s', '--minute-ms', '1000'],
      )
      expect(run.code).toBe(2)
      expect(run.stderr.trim()).toBe(
        `load: the target's answer to GET /v1/models cannot be used to plan the run: no complete answer within ${TIMEOUT_MS} ms`,
      )
    }, 60_000)
  })

  describe('the breaker: every broken shape is a transport failure, and five in a row stop every call', () => {
    test.each(SHAPES)(
      '%s',
      async (mode, failure) => {
        const server = await startHostileServer(mode, {
          on: BROKEN_EVERYWHERE,
          trickleEveryMs: HOSTILE.slowTrickleEveryMs / 15,
        })
        const stopFile = join(scratch, `stop-${mode}.json`)
        const client = new TargetClient({
          baseUrl: server.url,
          embedded: false,
          keys: { main: KEY },
          asOf: '2026-11-21',
          budgetUsd: null,
          largeUploads: false,
          models: {},
          nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
          timeoutMs: SCALED_TIMEOUT_MS,
          runId: 't',
          stopFile,
        })
        const call = () => client.stream({ method: 'POST', path: '/v1/responses', json: { stream: true } })
        try {
          for (let i = 0; i < RUN_STOP_DEFAULTS.consecutiveFailures; i += 1)
            await call().catch((error: unknown) => expect(error).toBeInstanceOf(TargetFailure))
          const refused = await call().catch((error: unknown) => error)
          expect(refused).toBeInstanceOf(RunStopped)
          expect((refused as RunStopped).code).toBe('TARGET_UNHEALTHY')
          const message = (refused as RunStopped).message
          expect(message).toMatch(
            /^POST \/v1\/responses not sent: the run stopped calling, target unhealthy, 5 transport failures in a row: \(1\) /,
          )
          // One failure it names at least shows the shape: a machine busy past its cores may hold an answer past the deadline.
          expect(message).toMatch(new RegExp(`\\([1-5]\\) POST /v1/responses: [^;]*(?:${failure.source})`))
          expect(server.hits).toBe(RUN_STOP_DEFAULTS.consecutiveFailures)
        } finally {
          await server.close()
        }
      },
      60_000,
    )
  })

  describe('bounded runs: a target broken everywhere stops the run, exit 2, the failures that stopped it named', () => {
    test.each(['hang', 'endless-sse'] as const)(
      '%s, scaled to a 2 s call deadline',
      async (mode) => {
        await slot(async () => {
          const server = await startHostileServer(mode, { on: BROKEN_EVERYWHERE })
          const started = Date.now()
          const run = await runConformance(
            ['--base-url', server.url, '--family', BROKEN_FAMILIES],
            { ...ENV, GATEWAY_TIMEOUT_MS: String(SCALED_TIMEOUT_MS) },
            SCALED_BOUND_MS + RUN_BOUND_MS,
          )
          try {
            expectStopped(
              run,
              server,
              Date.now() - started,
              SCALED_BOUND_MS,
              (SHAPES.find(([m]) => m === mode) as [HostileMode, RegExp])[1],
            )
          } finally {
            run.cleanup()
            await server.close()
          }
        })
      },
      TEST_MS,
    )

    test(
      'past --max-duration no call is sent: exit 2, and the report says the deadline cut the run',
      async () => {
        await slot(async () => {
          // One second is over before the first test starts: nothing of the run is judged.
          const run = await runConformance(['--family', 'models', '--max-duration', '1s'], {}, RUN_BOUND_MS)
          try {
            expect(run.exitCode, run.stderr).toBe(2)
            const summary = run.summary!
            expect(summary.stopped).toBe(
              "the run's deadline passed (1 s, GATEWAY_MAX_DURATION or --max-duration): calls after it were not sent",
            )
            const cut = summary.requirements.filter((r) => r.status === 'error')
            expect(cut.length).toBeGreaterThan(0)
            // A test under way meets a refused call; a test not yet begun is not run at all.
            for (const r of cut)
              expect(r.evidence[0]?.message).toMatch(
                /\[RUN_DEADLINE\] [A-Z]+ \/\S* not sent: the run's deadline \(GATEWAY_MAX_DURATION, --max-duration\) passed; not judged|^not run: the run's deadline passed/,
              )
            expect(run.stdout).toContain("Run stopped, report partial (exit 2): the run's deadline passed")
          } finally {
            run.cleanup()
          }
        })
      },
      TEST_MS,
    )

    test(
      'resets, with the default settings',
      async () => {
        await slot(async () => {
          const server = await startHostileServer('reset', { on: BROKEN_EVERYWHERE })
          const started = Date.now()
          const run = await runConformance(
            ['--base-url', server.url, '--family', BROKEN_FAMILIES],
            { GATEWAY_API_KEY: KEY },
            DEFAULT_BOUND_MS + RUN_BOUND_MS,
          )
          try {
            expectStopped(
              run,
              server,
              Date.now() - started,
              DEFAULT_BOUND_MS,
              /the connection closed before any response/,
            )
          } finally {
            run.cleanup()
            await server.close()
          }
        })
      },
      DEFAULT_BOUND_MS + TEST_MS,
    )
  })

  describe('the conformance CLI: exit 1, the requirement met, a message that says what was wrong', () => {
    test.each(CLI_CASES.map((c) => [`${c.mode}: ${c.requirement} fails`, c] as const))(
      '%s',
      async (_, c) => {
        await slot(async () => {
          const server = await startHostileServer(c.mode)
          const started = Date.now()
          const run = await runConformance(
            ['--base-url', server.url, '--grep', c.requirement, c.file],
            { ...ENV, ...c.env },
            RUN_BOUND_MS,
          )
          try {
            expectCleanFailure(run, server, Date.now() - started)
            const evidence = evidenceOf(run, c.requirement)
            for (const message of c.messages) expect(evidence).toMatch(message)
          } finally {
            run.cleanup()
            await server.close()
          }
        })
      },
      TEST_MS,
    )

    test(
      'a target that answers nothing, not even the probe, cannot be reached: exit 2 and one line',
      async () => {
        const server = await startHostileServer('hang', { on: ['/'] })
        try {
          const run = await runConformance(['--base-url', server.url], ENV, RUN_BOUND_MS)
          run.cleanup()
          expect(server.hits).toBeGreaterThan(0)
          expect(run.exitCode).toBe(2)
          expect(run.stderr.trim()).toBe(`conformance: cannot reach ${server.url}: no answer within ${TIMEOUT_MS} ms`)
        } finally {
          await server.close()
        }
      },
      TEST_MS,
    )
  })
})
