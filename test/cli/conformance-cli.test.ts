/**
 * `npm run conformance` as a user runs it: exit codes, one-line errors for bad configuration and unreachable
 * targets, selection, and full runs against the embedded reference gateway that must be conformant, complete and
 * free of keys in every file they write.
 */
import { createServer } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { SEEDED_KEYS } from '../../gateway/account/accounts.ts'
import { requirements, families } from '../../harness/requirements.ts'
import { withRun } from '../support/run-conformance.ts'
import { runReportProblems } from '../unit/harness/run-report-checks.ts'
import { filesUnder } from '../support/files.ts'

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('bad configuration: exit 2 and one line that says what to fix', () => {
  test.each([
    [
      ['--base-url', 'http://127.0.0.1:8080/v1'],
      { GATEWAY_API_KEY: 'k' },
      /^conformance: --base-url must be the host root with no path or query .*drop "\/v1"$/,
    ],
    [
      [],
      { GATEWAY_BASE_URL: 'localhost:8080' },
      /^conformance: GATEWAY_BASE_URL must start with http:\/\/ or https:\/\//,
    ],
    [[], { GATEWAY_AS_OF: '2026-13-01' }, /^conformance: GATEWAY_AS_OF must be a date written YYYY-MM-DD/],
    [['--family', 'models,bogus'], {}, /^conformance: unknown family "bogus": choose from /],
    [['--base-url', 'http://127.0.0.1:8080'], {}, /^conformance: GATEWAY_API_KEY is not set/],
    [['--bogus'], {}, /^conformance: Unknown option '--bogus'.*--help/],
    [['suites/nonexistent'], {}, /^conformance: no suite file matches "suites\/nonexistent"/],
  ])('%j %j', async (args, env, pattern) => {
    await withRun(args, env, (run) => {
      expect(run.exitCode).toBe(2)
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
      expect(run.stderr.trim()).toMatch(pattern)
    })
  })

  test('an unreachable target is one line, "cannot reach", not a wall of failed tests', async () => {
    const port = await closedPort()
    await withRun(['--base-url', `http://127.0.0.1:${port}`], { GATEWAY_API_KEY: 'k' }, (run) => {
      expect(run.exitCode).toBe(2)
      expect(run.stderr.trim()).toBe(`conformance: cannot reach http://127.0.0.1:${port}: connection refused`)
      expect(run.stdout).toBe('')
    })
  })
})

describe('help and the requirement list', () => {
  test('--help prints the flags and exit codes', async () => {
    await withRun(['--help'], {}, (run) => {
      expect(run.exitCode).toBe(0)
      for (const flag of ['--base-url', '--family', '--grep', '--as-of', '--report-dir', '--list-requirements'])
        expect(run.stdout).toContain(flag)
    })
  })

  test('--list-requirements lists every requirement with what checks it, and no unchecked MUST', async () => {
    await withRun(['--list-requirements'], {}, (run) => {
      expect(run.exitCode, run.stderr).toBe(0)
      for (const id of requirements().keys()) expect(run.stdout).toContain(`${id}  `)
      expect(run.stdout).not.toContain('MUST requirements that no test checks')
      expect(run.stdout).not.toContain('checked by: nothing')
    })
  }, 240_000) // collects every suite file: seconds alone, minutes beside the fault proof
})

describe('runs against the embedded reference gateway', () => {
  // The families whose rules or data move with the date (headers, the usage endpoints' time filters, files), inside
  // the x-request-id migration window and before it. The full run is test/cli/allowed-variation.test.ts's, at
  // today's date against the gateway under --vary with canary keys; the fault proof runs every suite file against
  // the plain gateway.
  test.each([
    ['2026-09-01', ['--family', 'headers,account,files']],
    ['2026-03-01', ['--family', 'headers,account,files']],
  ])(
    'at as-of %s %j: conformant and complete, every selected requirement passes, no key in any report',
    async (asOf, extra) => {
      await withRun(['--as-of', asOf, ...extra], {}, (run) => {
        expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0)
        const summary = run.summary!
        expect(summary.verdict).toBe('conformant')
        expect(summary.target.embedded).toBe(true)
        // Every requirement passes, but for SHOULDs about surfaces the reference itself says are unavailable (§1.6).
        const notPassed = summary.requirements.filter(
          (r) =>
            r.status !== 'pass' &&
            r.status !== 'disabled' &&
            !(r.level === 'SHOULD' && r.status === 'skip' && /^capability absent/.test(r.reason ?? '')),
        )
        expect(notPassed.map((r) => `${r.id}: ${r.status} ${r.reason ?? r.evidence[0]?.message ?? ''}`)).toEqual([])
        expect(summary.requirements).toHaveLength(requirements().size)
        const files = filesUnder(run.reportRoot)
        expect(files.some((f) => f.endsWith('junit.xml')) && files.some((f) => f.includes('allure-results'))).toBe(true)
        // summary.json against its published schema, exchanges.har against HAR 1.2, coverage.md listing every requirement.
        expect(
          runReportProblems(join(run.reportRoot, 'latest'), requirements().keys(), Object.values(SEEDED_KEYS)),
        ).toEqual([])
        for (const file of files) {
          const text = readFileSync(file, 'utf8')
          for (const key of Object.values(SEEDED_KEYS)) expect(text.includes(key), `${file} holds a key`).toBe(false)
        }
        for (const key of Object.values(SEEDED_KEYS)) expect(run.stdout.includes(key)).toBe(false)
      })
    },
    240_000,
  ) // shares two cores with the fault proof

  test('--family selects: other families are disabled, not skipped, and the run is complete', async () => {
    await withRun(['--family', 'models'], {}, (run) => {
      expect(run.exitCode).toBe(0)
      const byStatus = (status: string): string[] =>
        run.summary!.requirements.filter((r) => r.status === status).map((r) => r.family)
      // headers: its audit judges the models suite's responses; the project-token rule has none to judge here.
      expect(new Set(byStatus('disabled'))).toEqual(new Set(families().filter((f) => f !== 'models')))
      expect(
        run.summary!.requirements.filter((r) => r.family === 'headers' && r.status === 'disabled').map((r) => r.id),
      ).toEqual(['P1-4.1-project-token-headers'])
      expect(byStatus('skip')).toEqual([])
      expect(new Set(byStatus('pass'))).toEqual(new Set(['models', 'headers'])) // headers: the audit of the models suite's responses
    })
  }, 120_000)

  test('a selection that matches no test is a harness error (exit 2), not a conformant run', async () => {
    // One family: a grep is applied after collection, and collecting all seventeen costs a minute on a busy machine.
    await withRun(['--family', 'models', '--grep', 'no-test-has-this-name'], {}, (run) => {
      expect(run.exitCode).toBe(2)
      expect(run.summary?.verdict).toBe('error')
      expect(run.summary?.harnessErrors[0]).toMatch(/^no test ran/)
    })
  }, 120_000)

  test('--grep selects tests by requirement id', async () => {
    await withRun(['--family', 'models', '--grep', 'P1-2.3-mode-values'], {}, (run) => {
      expect(run.exitCode).toBe(0)
      const tested = run.summary!.requirements.filter((r) => r.tests.some((t) => t.status === 'pass')).map((r) => r.id)
      expect(tested).toEqual(['P1-2.3-mode-values'])
    })
  }, 120_000)
})
