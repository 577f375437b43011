/**
 * `npm run load -- compare` as a nightly job meets it: exit 0 without a regression, 1 with one, 2 with one line
 * for bad input, and compare.md and compare.html written; then one real `--repeat 2` run of a second each against
 * the embedded gateway, whose merge must add its repeats up exactly (about ten seconds).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import type { LoadResult, PhaseResult } from '../../load/types.ts'
import { runLoadCli } from '../../load/command/index.ts'
import { fixtureResult } from './fixture-result.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-load-compare-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await runLoadCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} })
  return { code, stdout, stderr }
}

/** A run directory holding `result` (the fixture's streaming phase, its latency p99 as given). */
function runDir(name: string, p99: number, edit: (r: LoadResult) => void = () => {}): string {
  const r = fixtureResult()
  const phase = r.phases[1] as PhaseResult
  r.phases = [{ ...phase, latency: { ...phase.latency, p99 } }]
  edit(r)
  const dir = join(scratch, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'result.json'), JSON.stringify(r))
  return dir
}

describe('exit codes', () => {
  test("0: no regression; compare.md and compare.html go to the new run's directory", async () => {
    const next = runDir('same-new', 1010)
    const run = await cli(['compare', runDir('same-base', 1000), next])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('NO REGRESSION (exit 0)')
    expect(run.stdout).toContain('spread NOT measured')
    expect(existsSync(join(next, 'compare.md'))).toBe(true)
    expect(readFileSync(join(next, 'compare.html'), 'utf8')).toMatch(/^<!doctype html>/)
  })

  test('1: p99 25 % slower; --report-dir chooses where the files go', async () => {
    const out = join(scratch, 'out')
    const run = await cli(['compare', runDir('slow-base', 1000), runDir('slow-new', 1250), '--report-dir', out])
    expect(run.code, run.stderr).toBe(1)
    expect(run.stdout).toMatch(/streaming\s+latency p99\s+1000 ms\s+1250 ms\s+\+25\.0 %.*REGRESSION/)
    expect(readFileSync(join(out, 'compare.md'), 'utf8')).toContain('REGRESSION (exit 1)')
  })

  test('--threshold raises the bar: the same 25 % is then only worse', async () => {
    const run = await cli(['compare', runDir('t-base', 1000), runDir('t-new', 1250), '--threshold', '30'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/latency p99.*worse, within threshold/)
  })

  test.each([
    [
      'a directory without result.json',
      () => [scratch, runDir('x', 1)],
      /^load: cannot read .*result\.json: give the report directory of a load run/,
    ],
    [
      'a corrupt result.json',
      () => {
        const dir = join(scratch, 'corrupt')
        mkdirSync(dir, { recursive: true })
        writeFileSync(join(dir, 'result.json'), '{"schemaVersion": 1, "phases": [')
        return [dir, runDir('y', 1)]
      },
      /is not a load result\.json of this tool$/,
    ],
    [
      "a result.json whose phases are not a load run's",
      () => [runDir('bare', 1, (r) => (r.phases = [{} as PhaseResult])), runDir('w', 1)],
      /bare: phase 1 of its result\.json lacks its plan, counts or latency/,
    ],
    [
      'runs of different profiles',
      () => [runDir('p1', 1), runDir('p2', 1, (r) => (r.profile.name = 'saturation'))],
      /ran tier1 and .* ran saturation: compare two runs of one profile$/,
    ],
    ['one directory', () => [runDir('z', 1)], /compare takes two report directories/],
    [
      'a threshold of no figure',
      () => [runDir('q1', 1), runDir('q2', 1), '--threshold', 'speed=5'],
      /--threshold: no figure "speed"/,
    ],
  ])('2: %s, in one line', async (_, args, message) => {
    const run = await cli(['compare', ...(args() as string[])])
    expect(run.code).toBe(2)
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr.trim()).toMatch(message)
  })
})

describe('a real --repeat run', () => {
  test('two repeats against the embedded gateway: each reported, merged exactly, and equal to itself', async () => {
    const root = join(scratch, 'real')
    const run = await cli([
      '--profile',
      'streaming',
      '--duration',
      '1s',
      '--minute-ms',
      '4000',
      '--repeat',
      '2',
      '--report-dir',
      root,
    ])
    expect(run.code, run.stderr + run.stdout).toBe(0)
    const dir = /Report: (\S+)/.exec(run.stdout)?.[1] as string
    const read = (d: string): LoadResult => JSON.parse(readFileSync(join(d, 'result.json'), 'utf8')) as LoadResult
    const merged = read(dir)
    const parts = [read(join(dir, 'repeat-1')), read(join(dir, 'repeat-2'))]
    expect(merged.repeats?.count).toBe(2)
    expect(merged.phases[0]!.latency.count).toBe(
      parts[0]!.phases[0]!.latency.count + parts[1]!.phases[0]!.latency.count,
    )
    expect(merged.repeats!.phases.streams!.throughput!.values).toHaveLength(2)
    expect(run.stdout).toContain('Spread over 2 repeats')
    const same = await cli(['compare', dir, dir, '--report-dir', join(scratch, 'self')])
    expect(same.code, same.stderr).toBe(0)
    expect(same.stdout).toMatch(/within noise$/m)
    expect(same.stdout).not.toMatch(/ (REGRESSION|better|worse, within threshold)$/m)
  }, 60_000)
})
