/** The run's stop rules (harness/setup/run-stop.ts): a deadline, and a breaker that every worker's client obeys. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { DEFAULT_NATIVE_KEY_HEADER, type TargetConfig } from '../../../harness/setup/config.ts'
import { readStop, RUN_STOP_DEFAULTS, RunGate, RunStopped } from '../../../harness/setup/run-stop.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-run-stop-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function config(extra: Partial<TargetConfig>): TargetConfig {
  return {
    baseUrl: 'http://127.0.0.1:1',
    embedded: false,
    keys: {},
    asOf: '2026-11-21',
    budgetUsd: null,
    timeoutMs: 1000,
    largeUploads: false,
    models: {},
    nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
    runId: 't',
    ...extra,
  }
}

function refusal(gate: RunGate): RunStopped | undefined {
  try {
    gate.check('GET /v1/models')
    return undefined
  } catch (error) {
    expect(error).toBeInstanceOf(RunStopped)
    return error as RunStopped
  }
}

describe('RunGate', () => {
  test('after a run of transport failures over the workers, every worker stops calling and says why, with the evidence', () => {
    const stopFile = join(scratch, 'breaker.json')
    const one = new RunGate(config({ stopFile }))
    const other = new RunGate(config({ stopFile }))
    for (let i = 1; i < RUN_STOP_DEFAULTS.consecutiveFailures; i += 1)
      (i % 2 === 0 ? one : other).failed(`GET /v1/models: no response within 1000 ms (#${i})`)
    expect(refusal(other)).toBeUndefined()
    one.failed('POST /v1/responses: the stream did not end within 1000 ms')
    expect(readStop(stopFile)?.evidence).toHaveLength(RUN_STOP_DEFAULTS.consecutiveFailures)
    for (const gate of [one, other]) {
      const error = refusal(gate)
      expect(error?.code).toBe('TARGET_UNHEALTHY')
      expect(error?.message).toMatch(
        /GET \/v1\/models not sent: the run stopped calling, target unhealthy, 5 transport failures in a row: \(1\) GET \/v1\/models: no response within 1000 ms \(#1\);.*\(5\) POST \/v1\/responses: the stream did not end/,
      )
    }
  })

  test('an answer in between, in any worker, breaks the run: failures must be consecutive', () => {
    const stopFile = join(scratch, 'interrupted.json')
    const gate = new RunGate(config({ stopFile }))
    const other = new RunGate(config({ stopFile }))
    for (let i = 0; i < RUN_STOP_DEFAULTS.consecutiveFailures * 3; i += 1) {
      if (i % RUN_STOP_DEFAULTS.consecutiveFailures === 0) other.answered()
      else gate.failed('GET /v1/models: the connection closed before any response (ECONNRESET)')
    }
    expect(refusal(gate)).toBeUndefined()
    expect(readStop(stopFile)).toBeUndefined()
  })

  test("past the run's deadline no call is sent", () => {
    expect(refusal(new RunGate(config({ deadlineAt: Date.now() + 60_000 })))).toBeUndefined()
    const error = refusal(new RunGate(config({ deadlineAt: Date.now() - 1 })))
    expect(error?.code).toBe('RUN_DEADLINE')
    expect(error?.message).toMatch(
      /GET \/v1\/models not sent: the run's deadline \(GATEWAY_MAX_DURATION, --max-duration\) passed/,
    )
  })
})
