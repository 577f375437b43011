/**
 * The config file as a user meets it: found in the working folder, or named with --config; its settings take effect
 * under the flags; a partial run says so; a key written into it stops the run before anything starts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import type { Summary } from '../../harness/report/summary.ts'
import { type ChildRun, runChild } from '../support/child.ts'
import { ROOT } from '../support/run-conformance.ts'

const cwd = mkdtempSync(join(tmpdir(), 'gc-config-run-'))
afterAll(() => rmSync(cwd, { recursive: true, force: true }))

function cli(args: string[], env: Record<string, string> = {}): Promise<ChildRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_')))
  return runChild(process.execPath, [join(ROOT, 'scripts/cli.ts'), ...args], {
    cwd,
    env: { ...base, ...env },
  })
}

test('gateway-conformance.yaml in the working folder selects the family and the report folder; a flag beats it', async () => {
  writeFileSync(join(cwd, 'gateway-conformance.yaml'), 'families: [auth]\nreportDir: from-file\nasOf: 2026-09-01\n')
  const run = await cli(['conformance', '--as-of', '2026-10-01'])
  expect(run.code, run.stderr).toBe(0)
  const lines = run.stdout.trim().split('\n')
  expect(lines.at(-2)).toMatch(
    /^PASSED \(partial: \d+ of \d+ requirements selected\): not a conformance verdict \(exit 0\)$/,
  )
  expect(lines.at(-1)).toMatch(/^Reports: from-file\/\d{8}-\d{6}-[0-9a-f]{4}\/ /)
  const summary = JSON.parse(readFileSync(join(cwd, 'from-file', 'latest', 'summary.json'), 'utf8')) as Summary
  expect(summary.selection.families).toEqual(['auth'])
  expect(summary.asOf).toBe('2026-10-01')
  expect(summary.scope?.whole).toBe(false)
  expect(summary.tool.catalogueSha256).toMatch(/^[0-9a-f]{64}$/)
}, 300_000) // a run, on a machine other runs may share

test('--config FILE with a key written into it: exit 2, one line, the key not repeated, nothing run', async () => {
  writeFileSync(join(cwd, 'literal.yaml'), 'target: https://gw.example.com\nkeys:\n  main: sk-live-do-not-echo-4242\n')
  const run = await cli(['conformance', '--config', 'literal.yaml'])
  expect(run.code).toBe(2)
  expect(run.stdout).toBe('')
  expect(run.stderr.trim()).toMatch(/^conformance: literal\.yaml \/keys\/main: a key is given as a reference/)
  expect(run.stderr).not.toContain('do-not-echo')
})

test('--rerun-failed DIR runs again only what failed in that report, and says which', async () => {
  writeFileSync(join(cwd, 'gateway-conformance.yaml'), '# nothing: the run below chooses its own tests\n')
  const first = await cli(['conformance', '--family', 'auth', '--report-dir', 'first'])
  expect(first.code, first.stderr).toBe(0)
  // Two of its passes marked failed, as a target's failures would be.
  const file = join(cwd, 'first', 'latest', 'summary.json')
  const summary = JSON.parse(readFileSync(file, 'utf8')) as Summary
  const chosen = summary.requirements.filter((r) => r.family === 'auth' && r.status === 'pass').slice(0, 2)
  for (const r of chosen) r.status = 'fail'
  writeFileSync(file, JSON.stringify(summary))

  const again = await cli(['conformance', '--rerun-failed', 'first', '--report-dir', 'again'])
  expect(again.code, again.stderr).toBe(0)
  const ids = chosen.map((r) => r.id)
  expect(again.stdout.split('\n')[0]).toMatch(
    new RegExp(
      `^Running again what failed or erred in first/latest/summary\\.json: 2 requirements \\(${ids.join(', ')}\\)$`,
    ),
  )
  const rerun = JSON.parse(readFileSync(join(cwd, 'again', 'latest', 'summary.json'), 'utf8')) as Summary
  const ran = new Set(rerun.requirements.filter((r) => r.tests.some((t) => t.status !== 'unselected')).map((r) => r.id))
  expect([...ran].sort()).toEqual([...ids].sort())
  expect(rerun.scope?.whole).toBe(false)
  expect(again.stdout).toMatch(/PASSED \(partial: \d+ of \d+ requirements selected\)/)
}, 300_000) // two runs, on a machine other runs may share
