/**
 * `npm run load` as a user meets it: the profile list, one-line configuration errors (exit 2), a run that passes
 * with its three reports and no key in them (exit 0), a run whose generator cannot hold its plan (exit 3), Ctrl-C
 * that still writes a partial report (exit 3), and two shards merged into the verdicts of one run.
 * Every run targets loopback, on a minute of two or three seconds, and is bounded in time.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import type { LoadResult } from '../../load/types.ts'
import { runLoadCli } from '../../load/command/index.ts'
import { canaryKeys, leaks } from '../support/canary.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'gc-load-cli-'))

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function load(
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (text: string, child: ReturnType<typeof spawn>) => void,
): Promise<Run> {
  return new Promise((resolvePromise) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GATEWAY_')))
    const child = spawn(process.execPath, ['scripts/load.ts', ...args], {
      cwd: ROOT,
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.stdout.on('data', (d: Buffer) => (stdout += d))
    child.stderr.on('data', (d: Buffer) => {
      stderr += d
      onStderr?.(stderr, child)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolvePromise({ code, stdout, stderr })
    })
  })
}

async function inProcess(args: string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await runLoadCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env })
  return { code, stdout, stderr }
}

const onlyDir = (root: string): string => {
  const dirs = readdirSync(join(root, 'load')).filter((d) => d !== 'latest')
  expect(dirs).toHaveLength(1)
  return join(root, 'load', dirs[0] as string)
}
const resultIn = (dir: string): LoadResult => JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as LoadResult

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('configuration', () => {
  test('--list names every profile of the issue', async () => {
    const run = await inProcess(['--list'])
    expect(run.code).toBe(0)
    for (const tier of [0, 1, 2, 3, 4, 5])
      for (const kind of ['usage', 'model', 'files']) expect(run.stdout).toContain(`tier-${tier}-${kind} `)
    for (const name of ['saturation', 'streaming', 'backoff', 'capacity', 'stated-limits', 'mixed'])
      expect(run.stdout).toContain(`${name} `)
  })

  // In process: a configuration error never reaches a target, so there is nothing to spawn for.
  test.each([
    [['--profile', 'nope'], 'unknown profile "nope"'],
    [['--profile', 'tier-2-usage', '--duration', '0'], '--duration must be between 1s and 1h'],
    [['--profile', 'tier-2-usage', '--shard', '3/2'], '--shard must be i/n'],
    [['--profile', 'tier-2-usage', '--tier', '3'], 'is for tier 2'],
    [['--profile', 'tier-2-usage', '--phase', 'nope'], 'has no phase nope'],
    [['--bogus'], "Unknown option '--bogus'"],
    [
      ['--profile', 'tier-2-usage', '--limiter', 'leaky'],
      "--limiter must be one of fixed-window, sliding-window, token-bucket, clock-window, got 'leaky'",
    ],
    [['--profile', 'streaming', '--arrival', 'gamma:0'], '--arrival must be constant, poisson or gamma:<burstiness>'],
    [['--profile', 'streaming', '--arrival', 'bursty'], '--arrival must be constant, poisson or gamma:<burstiness>'],
    [['--profile', 'streaming', '--ramp', 'linear'], '--ramp must be linear:<span> or exponential:<span>'],
    [['--profile', 'streaming', '--seed', '1.5'], '--seed must be a whole number from 0 to 4294967295'],
    [['--profile', 'stated-limits', '--limit', 'chat=600'], '--limit "chat=600": must be ROUTE=N/PERIOD'],
    [['--profile', 'stated-limits', '--limit', 'chat=6/1m,key=boss'], 'key must be one of main, tier0'],
    [
      ['--profile', 'stated-limits', '--limit', 'chat=6/1m', '--limit', 'POST /v1/chat/completions=7/1m'],
      'two limits are stated for POST /v1/chat/completions with the main key',
    ],
    [['--profile', 'stated-limits', '--route-limit', 'chat=6/1m'], "--route-limit must be 'METHOD /path=N/PERIOD'"],
    [['--profile', 'stated-limits'], 'the profile stated-limits judges the limits you state: give --limit'],
  ])('%j is exit 2 with one line: %s', async (args, message) => {
    const run = await inProcess(args)
    expect(run.code).toBe(2)
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr).toContain(message)
  })

  test("--limiter is for the embedded gateway: a target's own algorithm is observed, never chosen", async () => {
    const run = await inProcess(['--profile', 'tier-2-usage', '--limiter', 'token-bucket'], {
      GATEWAY_BASE_URL: 'http://127.0.0.1:9',
      GATEWAY_API_KEY: 'k',
    })
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(
      "load: --limiter chooses the embedded gateway's algorithm; a target's own is observed in the report, never chosen",
    )
  })

  test('--route-limit configures the embedded gateway; a target states its limits with --limit', async () => {
    const run = await inProcess(['--profile', 'stated-limits', '--route-limit', 'POST /v1/models=1/1s'], {
      GATEWAY_BASE_URL: 'http://127.0.0.1:9',
      GATEWAY_API_KEY: 'k',
    })
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(
      "load: --route-limit configures the embedded gateway; a target's own limits are stated with --limit",
    )
  })

  test('a target that is not on this machine needs --confirm-target', async () => {
    const run = await inProcess(['--profile', 'tier-2-usage'], {
      GATEWAY_BASE_URL: 'https://gateway.example.com',
      GATEWAY_API_KEY: 'k',
    })
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(
      'load: https://gateway.example.com is not on this machine: a load run against it needs --confirm-target gateway.example.com',
    )
  })
})

describe('runs', () => {
  test('a passing run writes result.json, summary.md and report.html, with no key in them (canary keys)', async () => {
    const dir = join(scratch, 'pass')
    // Keys no code has seen before, accepted by this gateway as its seeded ones: none may appear anywhere the run
    // wrote or printed.
    const canaries = canaryKeys()
    // A 4 s minute: this gateway shares the test worker's process, and a busy machine's pauses must stay well
    // inside a minute for the bounds to be judged.
    const target = await startEmbeddedGateway({ minuteMs: 4000, keyAliases: canaries.aliases })
    try {
      const args = ['--profile', 'tier-1-usage', '--phase', 'double', '--base-url', target.url, '--minute-ms', '4000']
      let run = await load([...args, '--report-dir', dir], canaries.env)
      const printed = { stdout: run.stdout, stderr: run.stderr }
      // A busy machine that held the generator behind its plan made no measurement (exit 3, saying so): once more.
      const behind = () => readFileSync(join(dir, 'load', 'latest', 'result.json'), 'utf8').includes('behind its plan')
      if (run.code === 3 && behind()) {
        expect(leaks(canaries.values, dir, printed)).toEqual([])
        rmSync(dir, { recursive: true, force: true })
        run = await load([...args, '--report-dir', dir], canaries.env)
      }
      expect(run.code, run.stderr + run.stdout).toBe(0)
      expect(run.stdout).toMatch(/double\s+admission\s+PASS/)
      const out = onlyDir(dir)
      for (const file of ['result.json', 'summary.md', 'report.html']) expect(existsSync(join(out, file))).toBe(true)
      expect(existsSync(join(dir, 'load', 'latest'))).toBe(true)
      expect(leaks(canaries.values, dir, { stdout: run.stdout, stderr: run.stderr })).toEqual([])
    } finally {
      await target.close()
    }
  }, 120_000)

  test('a generator that cannot hold its plan proves nothing: exit 3 (the embedded gateway as --limiter names)', async () => {
    const dir = join(scratch, 'behind')
    const run = await load([
      '--profile',
      'tier-0-usage',
      '--phase',
      'half',
      '--rate',
      '20000',
      '--connections',
      '1',
      '--duration',
      '1s',
      '--minute-ms',
      '1000',
      '--limiter',
      'token-bucket',
      '--report-dir',
      dir,
    ])
    expect(run.code, run.stderr + run.stdout).toBe(3)
    const result = resultIn(onlyDir(dir))
    expect(result.verdicts.find((v) => v.id === 'admission')?.detail).toMatch(/behind its plan/)
    expect(result.target.limiter).toBe('token-bucket')
  }, 60_000)

  test('Ctrl-C stops the run and still writes a partial report', async () => {
    const dir = join(scratch, 'interrupted')
    let sent = false
    const run = await load(
      ['--profile', 'tier-1-usage', '--duration', '30s', '--minute-ms', '1000', '--report-dir', dir],
      {},
      (stderr, child) => {
        if (!sent && /half \d/.test(stderr)) {
          sent = true
          child.kill('SIGINT')
        }
      },
    )
    expect(sent).toBe(true)
    expect(run.code, run.stderr + run.stdout).toBe(3)
    const result = resultIn(onlyDir(dir))
    expect(result.partial).toBe(true)
    expect(result.stopReason).toMatch(/interrupted/)
    expect(result.phases.length).toBeGreaterThanOrEqual(1)
  }, 60_000)
})

describe('shards', () => {
  // Three seconds: each shard's schedule may lag by 300 ms (a tenth of a minute) on a busy machine and still count.
  const SHARD_MINUTE_MS = 3000
  let gateway: EmbeddedGateway
  beforeAll(async () => {
    gateway = await startEmbeddedGateway({ minuteMs: SHARD_MINUTE_MS })
  })
  afterAll(async () => {
    await gateway.close()
  })

  // One retry: on a machine busy enough to hold a generator behind its plan, the merged verdicts are inconclusive
  // (the run proves nothing), which says nothing of the merge; a merge that is wrong fails both attempts.
  let attempt = 0
  test('two shards of a profile merge into the verdicts of one run', { retry: 1, timeout: 90_000 }, async () => {
    attempt += 1
    const base = join(scratch, `shards-${attempt}`)
    const env = {
      GATEWAY_BASE_URL: gateway.url,
      GATEWAY_API_KEY: gateway.keys.main,
      GATEWAY_API_KEY_TIER1: gateway.keys.tier1,
      GATEWAY_API_KEY_TIER2: gateway.keys.tier2,
    }
    const common = ['--profile', 'tier-2-usage', '--phase', 'double', '--minute-ms', String(SHARD_MINUTE_MS)]
    const [one, two] = await Promise.all([
      load([...common, '--shard', '1/2', '--report-dir', join(base, 's1')], env),
      load([...common, '--shard', '2/2', '--report-dir', join(base, 's2')], env),
    ])
    expect(one.code, one.stderr).not.toBe(2)
    expect(two.code, two.stderr).not.toBe(2)
    const dirs = [onlyDir(join(base, 's1')), onlyDir(join(base, 's2'))]
    const parts = dirs.map(resultIn)
    // Each shard offered half of twice the limit: alone, neither would have met the limit in a window.
    expect(parts.map((p) => p.phases[0]!.plan.rate)).toEqual([
      50 / (SHARD_MINUTE_MS / 1000),
      50 / (SHARD_MINUTE_MS / 1000),
    ])
    const merged = await load(['merge', ...dirs, '--report-dir', join(base, 'merged')])
    const whole = resultIn(onlyDir(join(base, 'merged')))
    expect(
      merged.code,
      `${merged.stderr} ${whole.verdicts.map((v) => `${v.id} ${v.status}: ${v.detail}`).join(' || ')}`,
    ).toBe(0)
    const phase = whole.phases[0]!
    expect(whole.mergedFrom).toEqual(dirs)
    expect(phase.plan.rate).toBeCloseTo(100 / (SHARD_MINUTE_MS / 1000), 9)
    // Histograms and series add up exactly.
    expect(phase.latency.count).toBe(parts.reduce((n, p) => n + p.phases[0]!.latency.count, 0))
    expect(phase.series.reduce((n, b) => n + b.sent, 0)).toBe(parts.reduce((n, p) => n + p.phases[0]!.sent, 0))
    expect(phase.series.reduce((n, b) => n + b.admittedSent + b.refusedSent, 0)).toBe(
      parts.reduce((n, p) => n + p.phases[0]!.series.reduce((m, b) => m + b.admittedSent + b.refusedSent, 0), 0),
    )
    // Together the shards met the limit: the merged run admitted it before its first 429, which no shard saw alone.
    const admission = whole.verdicts.find((v) => v.id === 'admission')!
    expect(admission.status, admission.detail).toBe('pass')
    const first =
      /limit 50; \d+ served, \d+ refused with 429, 0 refused otherwise; (\d+) admitted before the first 429/.exec(
        admission.figure,
      )
    expect(Number(first?.[1]), admission.figure).toBeGreaterThanOrEqual(50)
  })
})
