/**
 * The proof that the suites can fail (ARCHITECTURE.md, The contracts): for every named fault of the reference gateway,
 * a conformance run against the gateway with that fault fails exactly the requirements the fault breaks, and
 * exits 1 when one of them is a MUST. And every MUST requirement of the catalogue is broken by some fault.
 *
 * The runs are made by `npm run faults -- --scope files --limiters` (scripts/faults.ts), once, in a child process;
 * each fault is then one test. Faults whose files do not overlap share a run, each facing a gateway of its own.
 * Scope files runs each fault against the suite files that check what it breaks, a fault of the tiers family with
 * the lowest tiers' keys only; the whole family's collateral, at every tier, is `npm run faults`'s to show. --limiters runs the faults of the rate limiter again
 * against a sliding-window and a token-bucket gateway, and the limit families against the faithful gateway in
 * those modes: the reference names no algorithm, so the checks must hold, and catch the faults, under each.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CONFORMANCE_FAULTS, FAULTS } from '../../gateway/faults/registry.ts'
import { LIMITER_ALGORITHMS } from '../../gateway/limiter.ts'
import { requirements } from '../../harness/requirements.ts'
import { CLEAN, FAULTED_LIMITERS, resultKey, type FaultResult } from '../../proof/fault-runs.ts'
import { ROOT } from '../support/run-conformance.ts'

// Every fault, some side by side (proof/run-defaults.ts, FAULT_RUN_DEFAULTS): minutes beside the rest of npm test on two
// cores; the bound only ends a run that hangs, far below CI's 90-minute limit.
const RUN_TIMEOUT_MS = 900_000

/** After SIGTERM at the bound, how long the runner has to end before it is killed. */
const STOP_GRACE_MS = 10_000

let scratch: string
let results = new Map<string, FaultResult>()
let output = ''
/** Set when the runner was stopped at its bound: the faults it had not reached say so. */
let stopped = ''

beforeAll(
  async () => {
    scratch = mkdtempSync(join(tmpdir(), 'gc-fault-proof-'))
    const json = join(scratch, 'faults.json')
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_') && !name.startsWith('VITEST')),
    )
    const child = spawn(
      process.execPath,
      [join(ROOT, 'scripts/faults.ts'), '--scope', 'files', '--limiters', '--json', json],
      { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => {
      stopped = `the runner was stopped at its bound of ${RUN_TIMEOUT_MS / 1000} s before it judged this`
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS).unref()
    }, RUN_TIMEOUT_MS)
    await new Promise((resolve) => child.on('close', resolve))
    clearTimeout(timer)
    results = new Map(readResults(json).map((r) => [resultKey(r.fault, r.limiter), r]))
  },
  RUN_TIMEOUT_MS + STOP_GRACE_MS + 10_000,
)

/** The runner's results: the whole file, or, from a runner stopped early, the lines it wrote as it went. */
function readResults(json: string): FaultResult[] {
  try {
    return JSON.parse(readFileSync(json, 'utf8')) as FaultResult[]
  } catch {
    const partial = `${json}.partial`
    return existsSync(partial) ? readFileSync(partial, 'utf8').split('\n').flatMap(resultOfLine) : []
  }
}

/** A line of the partial file; one cut by the kill is not a result. */
function resultOfLine(line: string): FaultResult[] {
  try {
    return [JSON.parse(line) as FaultResult]
  } catch {
    return []
  }
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('every MUST requirement can fail', () => {
  test('each MUST requirement of the catalogue is broken by at least one named fault', () => {
    const broken = new Set(FAULTS.flatMap((f) => f.breaks))
    // An untestable requirement has no test that a fault could make fail (the catalogue says why).
    const unproven = [...requirements().values()]
      .filter((r) => r.level === 'MUST' && r.untestable === undefined && !broken.has(r.id))
      .map((r) => r.id)
    expect(unproven).toEqual([])
  })

  test('every fault names requirements that exist', () => {
    const unknown = FAULTS.flatMap((f) =>
      f.breaks.filter((id) => !requirements().has(id)).map((id) => `${f.name}: ${id}`),
    )
    expect(unknown).toEqual([])
  })
})

const OTHER_LIMITERS = LIMITER_ALGORITHMS.filter((l) => l !== 'fixed-window')

describe('a run against each fault fails exactly what the fault breaks', () => {
  // Load-only faults (no requirement in `breaks`) are proved by test/load/load-faults.test.ts.
  const runs = [
    ...CONFORMANCE_FAULTS.map((fault) => ({ fault, key: fault.name })),
    ...FAULTED_LIMITERS.flatMap((limiter) =>
      CONFORMANCE_FAULTS.filter((f) => f.limiter).map((fault) => ({ fault, key: resultKey(fault.name, limiter) })),
    ),
  ]
  for (const { fault, key } of runs) {
    test(`${key} -> ${fault.breaks.join(', ')}`, () => {
      const result = results.get(key)
      expect(result, `no result for ${key}; ${stopped || `the fault runner said:\n${output}`}`).toBeDefined()
      expect(
        { failing: result!.failing, errors: result!.errors },
        `collateral seen: ${JSON.stringify(result!.collateralSeen)}; missed: ${JSON.stringify(result!.missedSeen)}${
          result!.firstTry ? `; the first try missed: ${JSON.stringify(result!.firstTry.missedSeen)}` : ''
        }`,
      ).toEqual({ failing: [...fault.breaks].sort(), errors: [] })
      expect(result!.exitCode).toBe(result!.expectedExitCode)
    })
  }
})

describe('the rate-limit checks hold for every limiter the reference allows', () => {
  for (const limiter of OTHER_LIMITERS) {
    test(`the limit families pass against a faithful ${limiter} gateway`, () => {
      const result = results.get(resultKey(CLEAN, limiter))
      expect(
        result,
        `no result for a clean ${limiter} run; ${stopped || `the fault runner said:\n${output}`}`,
      ).toBeDefined()
      expect(
        { failing: result!.failing, errors: result!.errors },
        `seen: ${JSON.stringify(result!.collateralSeen ?? {})}`,
      ).toEqual({ failing: [], errors: [] })
      // Exit 0, not 3: no MUST was left skipped, so the algorithm alone made nothing inconclusive.
      expect(result!.exitCode).toBe(0)
    })
  }
})
