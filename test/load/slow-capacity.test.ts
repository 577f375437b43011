/**
 * The capacity search against a target that saturates at a known rate well below the generator's ceiling: a small
 * server on loopback that answers 30 calls at once, each after 50 ms, and queues the rest (about 600 a second), as
 * a gateway in front of a slow upstream does. The search runs as a user runs it, in a process of its own
 * (`scripts/load.ts`), with the target in another: a promise its run left unsettled would end that process with
 * exit 13 and no report, which a run in this process (whose server keeps the event loop alive) would never show.
 * Its first step offers 1,200 calls a second, twice what the target serves, on two worker threads; the steps after
 * it, below 1,000 a second, run on one, as the search did before its process ended unsettled.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { LoadResult } from '../../load/types.ts'
import { type SlowTarget, startSlowTarget } from './slow-target.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const scratch = mkdtempSync(join(tmpdir(), 'gc-load-slow-'))
let target: SlowTarget

beforeAll(async () => {
  target = await startSlowTarget({ concurrency: 30, serviceMs: 50, model: 'slow-model' })
})
afterAll(async () => {
  await target?.close()
  rmSync(scratch, { recursive: true, force: true })
})

function load(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GATEWAY_')))
    const child = spawn(process.execPath, ['scripts/load.ts', ...args], {
      cwd: ROOT,
      env: { ...clean, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), 55_000)
    child.stderr.on('data', (d: Buffer) => (stderr += d))
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ code, stderr })
    })
  })
}

test('ends in a verdict whose figure is the target’s capacity, with workers, and writes its reports', async () => {
  const dir = join(scratch, 'search')
  const run = await load(
    ['--profile', 'capacity', '--rate', '1200', '--duration', '1500ms', '--workers', '2', '--report-dir', dir],
    { GATEWAY_BASE_URL: target.url, GATEWAY_API_KEY: 'sk-slow-target', GATEWAY_MODELS: 'responses=slow-model' },
  )
  expect(run.stderr).not.toContain('unsettled top-level await')
  expect(run.code, run.stderr).toBe(0)
  const result = JSON.parse(readFileSync(join(dir, 'load', 'latest', 'result.json'), 'utf8')) as LoadResult
  const c = result.capacity!
  expect(c.bound).toBe('capacity')
  // A step past 1,000 calls a second ran on the two threads.
  expect(result.phases.some((p) => p.plan.workers === 2)).toBe(true)
  // About 600 a second (the server's timers add a little to each 50 ms, and a busy machine starves it further):
  // held within half under it, broken within 25 % over it, and the broken step says the target fell behind.
  expect(c.sustainable!).toBeGreaterThanOrEqual(0.5 * target.capacity)
  expect(c.sustainable!).toBeLessThanOrEqual(1.1 * target.capacity)
  expect(c.firstBroken!).toBeLessThanOrEqual(1.25 * target.capacity)
  expect(c.steps.find((s) => s.offered === c.firstBroken)!.outcome).toBe('saturated')
  expect(result.verdicts.map((v) => [v.id, v.status])).toEqual([['capacity', 'pass']])
  expect(result.verdicts[0]!.figure).toMatch(/first broken [\d.]+\/s \(the target's latency/)
  const md = readFileSync(join(dir, 'load', 'latest', 'summary.md'), 'utf8')
  expect(md).toContain('## Capacity search')
  expect(md).toContain("bound met first: the target's capacity")
  expect(readFileSync(join(dir, 'load', 'latest', 'report.html'), 'utf8')).toContain('data-chart="capacity"')
}, 60_000)
