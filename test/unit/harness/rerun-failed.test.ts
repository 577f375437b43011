/** --rerun-failed DIR: what it selects from an earlier run's summary, and how it refuses what is not one. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { ConfigError } from '../../../harness/errors.ts'
import { rerunSelection } from '../../../harness/setup/rerun-failed.ts'

const dir = mkdtempSync(join(tmpdir(), 'gc-rerun-failed-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const FAMILIES: Record<string, string> = {
  'P1-5.1-a': 'auth',
  'P1-4.1-audit': 'headers',
  'P1-2.3-m': 'models',
  'P1-2.3-n': 'models',
  'P1-4.4-f': 'files',
}
const known = (id: string) => (FAMILIES[id] ? { family: FAMILIES[id] as string } : undefined)

function summaryWith(requirements: unknown[]): string {
  const run = mkdtempSync(join(dir, 'run-'))
  writeFileSync(join(run, 'summary.json'), JSON.stringify({ requirements }))
  return run
}

test('failed and erred requirements run again; audited ones through the tests whose exchanges they judged', () => {
  const run = summaryWith([
    { id: 'P1-5.1-a', status: 'fail', tests: [{ name: '[P1-5.1-a] t' }], evidence: [] },
    {
      id: 'P1-4.1-audit',
      status: 'fail',
      tests: [],
      evidence: [{ test: 'suites/models/models.test.ts > [P1-2.3-m] the list', message: 'm' }],
    },
    { id: 'P1-4.4-f', status: 'error', tests: [{ name: '[P1-4.4-f] t' }], evidence: [] },
    { id: 'P1-2.3-n', status: 'pass', tests: [{ name: '[P1-2.3-n] t' }], evidence: [] },
    { id: 'P1-2.3-w', status: 'warn', tests: [{ name: '[P1-2.3-w] t' }], evidence: [] },
  ])
  expect(rerunSelection(run, known)).toEqual({
    summaryFile: join(run, 'summary.json'),
    failed: ['P1-5.1-a', 'P1-4.1-audit', 'P1-4.4-f'],
    ids: ['P1-2.3-m', 'P1-4.4-f', 'P1-5.1-a'],
    families: ['auth', 'files', 'models'],
  })
})

test('a report folder is read through its latest', () => {
  const root = mkdtempSync(join(dir, 'root-'))
  const run = summaryWith([{ id: 'P1-5.1-a', status: 'fail', tests: [{ name: 'x' }], evidence: [] }])
  mkdirSync(join(root, 'latest'))
  writeFileSync(join(root, 'latest', 'summary.json'), JSON.stringify({ requirements: [] }))
  expect(rerunSelection(root, known).ids).toEqual([])
  expect(rerunSelection(run, known).ids).toEqual(['P1-5.1-a'])
})

test.each([
  ['a folder with no summary', () => mkdtempSync(join(dir, 'none-')), /no summary\.json there or in /],
  [
    'a file that is not a summary',
    () => {
      const run = mkdtempSync(join(dir, 'bad-'))
      writeFileSync(join(run, 'summary.json'), '{"verdict":')
      return run
    },
    /not a conformance summary/,
  ],
])('%s is a bad setting (exit 2)', (_name, make, message) => {
  expect(() => rerunSelection(make(), known)).toThrow(ConfigError)
  expect(() => rerunSelection(make(), known)).toThrow(message)
})
