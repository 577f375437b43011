/**
 * Objectives and the capacity search end to end, in process (`runLoadCli`) against the reference gateway on
 * loopback, each run a few seconds: an objective no target meets exits 1 and an easy one 0, --abort-on-fail stops
 * early, and three searches: one that breaks below any limit (the gateway answers each call 100 ms late and two
 * connections carry the load, so about 20 calls a second is its capacity), one that meets its tier's limit with
 * every step held, and one that meets a limit's 429s, which are not the target's capacity.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { startEmbeddedGateway } from '../../gateway/embedded.ts'
import type { LoadResult } from '../../load/types.ts'
import { runLoadCli } from '../../load/command/index.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-load-slo-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

async function load(
  name: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string; result: LoadResult | null; ms: number }> {
  const dir = join(scratch, name)
  let stderr = ''
  const started = performance.now()
  const code = await runLoadCli([...args, '--report-dir', dir], {
    stdout: () => undefined,
    stderr: (t) => (stderr += t),
    env,
  })
  const ms = performance.now() - started
  let result: LoadResult | null = null
  try {
    const run = readdirSync(join(dir, 'load')).find((d) => d !== 'latest') as string
    result = JSON.parse(readFileSync(join(dir, 'load', run, 'result.json'), 'utf8')) as LoadResult
  } catch {
    // No report: a configuration error.
  }
  return { code, stderr, result, ms }
}

describe('objectives', () => {
  const streams = ['--profile', 'streaming', '--rate', '25', '--minute-ms', '4000']

  test('an objective no target meets is a failed verdict with its figure: exit 1', async () => {
    const run = await load('impossible', [...streams, '--duration', '1s', '--slo', 'e2e_p99=0.01ms'])
    expect(run.code, run.stderr).toBe(1)
    const v = run.result!.verdicts.find((x) => x.id === 'objective')!
    expect(v.status).toBe('fail')
    expect(v.figure).toMatch(/^e2e p99 [\d.]+ m?s against 0.01 ms \(\d+ samples\)$/)
    // Not one call was good: goodput 0 beside a throughput of about 25 a second.
    const g = run.result!.phases[0]!.goodput!
    expect(g.good).toBe(0)
    expect(g.ok).toBeGreaterThan(10)
  }, 30_000)

  test('objectives the target meets pass: exit 0, and every 2xx is good', async () => {
    const run = await load('easy', [
      ...streams,
      '--duration',
      '1s',
      '--slo',
      'ttft_p99=20s,itl_p99=10s,tpot_mean=10s,e2e_p99=30s,errors=1%',
    ])
    expect(run.code, `${run.stderr} ${JSON.stringify(run.result?.verdicts)}`).toBe(0)
    expect(run.result!.verdicts.filter((x) => x.id === 'objective').map((x) => x.status)).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
      'pass',
    ])
    const g = run.result!.phases[0]!.goodput!
    expect(g.good).toBe(g.ok)
    expect(run.result!.objectives!.map((o) => o.name)).toEqual([
      'ttft_p99',
      'itl_p99',
      'tpot_mean',
      'e2e_p99',
      'errors',
    ])
  }, 30_000)

  test('--abort-on-fail stops a 30 s run once the breach is beyond recovery, and says so', async () => {
    const run = await load('abort', [...streams, '--duration', '30s', '--slo', 'e2e_p99=0.01ms', '--abort-on-fail'])
    expect(run.code, run.stderr).toBe(1)
    expect(run.ms).toBeLessThan(20_000)
    expect(run.result!.partial).toBe(true)
    expect(run.result!.stopReason).toMatch(
      /^stopped early by --abort-on-fail: e2e_p99 breached beyond recovery in phase streams after \d+ of 750 calls/,
    )
  }, 30_000)

  test.each([
    [['--slo', 'ttft_p99=fast'], '--slo "ttft_p99=fast": the value must be a duration in ms or s, e.g. 2s or 150ms'],
    [['--abort-on-fail'], '--abort-on-fail stops a run on a breached objective: give the objectives with --slo'],
    [
      ['--profile', 'capacity', '--slo', 'e2e_p99=1s', '--abort-on-fail'],
      'the profile capacity is a search: it ends each step that broke by itself, and a broken step is how it finds the rate; drop --abort-on-fail',
    ],
    [
      ['--profile', 'capacity', '--shard', '1/2'],
      'the profile capacity is a search that adapts each step to what it measured: it cannot be sharded',
    ],
    [
      ['--profile', 'capacity', '--repeat', '2'],
      'the profile capacity is a search: its repeats would not share their steps; run it again and compare the two',
    ],
  ])('%j is exit 2 with one line', async (args, message) => {
    const run = await load('config', ['--profile', 'streaming', ...args])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(`load: ${message}\n`)
  })
})

describe('capacity search', () => {
  test('breaks below any limit: the rate found lies between the last held and the first broken, and it says why', async () => {
    const gateway = await startEmbeddedGateway({ vary: true, varyLatencyMs: 100 })
    try {
      const run = await load(
        'capacity',
        ['--profile', 'capacity', '--rate', '5', '--duration', '1s', '--connections', '2'],
        {
          GATEWAY_BASE_URL: gateway.url,
          GATEWAY_API_KEY: gateway.keys.tier5,
          GATEWAY_API_KEY_TIER5: gateway.keys.tier5,
        },
      )
      expect(run.code, run.stderr).toBe(0)
      const c = run.result!.capacity!
      expect(c.bound).toBe('capacity')
      // Two connections at 100 ms a call carry at most 20 calls a second.
      expect(c.sustainable).toBeGreaterThan(0)
      expect(c.firstBroken).toBeLessThanOrEqual(40)
      expect(c.sustainable!).toBeLessThan(c.firstBroken!)
      expect(c.steps.find((s) => s.offered === c.sustainable)!.outcome).toBe('held')
      expect(c.steps.find((s) => s.offered === c.firstBroken)!.outcome).not.toBe('held')
      expect(c.steps.some((s) => s.kind === 'bisect')).toBe(true)
      expect(c.stopReason).toMatch(/^resolved to within 10 %|not steady|cap of \d+ steps/)
      expect(run.result!.verdicts.map((v) => [v.id, v.status])).toEqual([['capacity', 'pass']])
      const md = readFileSync(join(scratch, 'capacity', 'load', 'latest', 'summary.md'), 'utf8')
      expect(md).toContain('## Capacity search')
      expect(md).toContain(
        '| step | kind | offered | achieved | throughput (2xx/s) | goodput | p50 | p99 | errors | 429 | outcome | why |',
      )
      const html = readFileSync(join(scratch, 'capacity', 'load', 'latest', 'report.html'), 'utf8')
      expect(html).toMatch(/<figure class="chart" data-chart="capacity"><svg /)
      const json = readFileSync(join(scratch, 'capacity', 'load', 'latest', 'result.json'), 'utf8')
      for (const text of [md, html, json, run.stderr]) expect(text).not.toContain(gateway.keys.tier5)
    } finally {
      await gateway.close()
    }
  }, 60_000)

  test("with --tier, every step held up to the tier's limit: the limit was met first", async () => {
    // Tier 1: the text model's 500 a minute (P1-8.3, extra.rate_limits.current) is 50/s of a 10 s minute.
    const run = await load('tier', [
      '--profile',
      'capacity',
      '--tier',
      '1',
      '--rate',
      '12',
      '--duration',
      '1s',
      '--minute-ms',
      '10000',
    ])
    expect(run.code, run.stderr).toBe(0)
    const c = run.result!.capacity!
    expect(c.tierLimit).toMatchObject({ perMinute: 500, perSecond: 50 })
    expect(c.steps.map((s) => [s.offered, s.outcome])).toEqual([
      [12, 'held'],
      [24, 'held'],
      [45, 'held'],
    ])
    expect(c.bound).toBe('limit')
    expect(c.sustainable).toBe(45)
    expect(c.stopReason).toMatch(/tier's limit .* was met before the target's capacity/)
  }, 30_000)

  // One retry: the gateway shares this worker's event loop, and on a machine busy past its two cores a stall before the
  // limit's step is a target falling behind (a queue), rightly read as its capacity, so that run shows nothing of 429s.
  let attempt = 0
  test("a limit's 429s end the search as the limit met first, never as the target's capacity", {
    retry: 1,
    timeout: 30_000,
  }, async () => {
    attempt += 1
    // Only a tier-0 key (the main key): its text model allows 20 calls a minute, 20/s of a one-second minute.
    const gateway = await startEmbeddedGateway({ minuteMs: 1000 })
    try {
      const run = await load(
        `refused-${attempt}`,
        ['--profile', 'capacity', '--rate', '5', '--duration', '1s', '--minute-ms', '1000'],
        { GATEWAY_BASE_URL: gateway.url, GATEWAY_API_KEY: gateway.keys.tier0 },
      )
      expect(run.code, run.stderr).toBe(0)
      const c = run.result!.capacity!
      expect(c.bound).toBe('limit')
      expect(c.steps.at(-1)!.outcome).toBe('refused')
      expect(c.steps.at(-1)!.refused).toBeGreaterThan(0)
      expect(c.stopReason).toMatch(/the target refused calls at [\d.]+\/s .*: its limit was met before its capacity/)
    } finally {
      await gateway.close()
    }
  })
})
