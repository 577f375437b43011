/** What a watcher of a run sees: how far it is on every file's line, and a heartbeat through long silences. */
import type { TestModule, TestSpecification } from 'vitest/node'
import { afterEach, describe, expect, test } from 'vitest'
import { familyOf, formatElapsed, ProgressReporter } from '../../../harness/report/progress.ts'

function moduleOf(
  file: string,
  tests: Array<{ requirement: string; state: 'passed' | 'failed' | 'skipped' }>,
): TestModule {
  return {
    moduleId: `/root/${file}`,
    children: {
      allTests: () =>
        tests.map((t) => ({ meta: () => ({ requirement: t.requirement }), result: () => ({ state: t.state }) })),
    },
  } as unknown as TestModule
}

const specs = (n: number): TestSpecification[] => Array.from({ length: n }, () => ({}) as TestSpecification)

describe('progress', () => {
  let clock = 0
  const lines: string[] = []
  let reporter: ProgressReporter | undefined
  afterEach(() => {
    reporter?.onTestRunEnd()
    lines.length = 0
  })

  function start(files: number): ProgressReporter {
    clock = 1_000_000
    reporter = new ProgressReporter({
      root: '/root',
      requirementsSelected: 40,
      write: (text) => lines.push(text),
      now: () => clock,
      heartbeatMs: 15_000,
    })
    reporter.onTestRunStart(specs(files))
    return reporter
  }

  test('each file adds files and requirements done of the selection, the elapsed time and the family', () => {
    const r = start(3)
    clock += 65_000
    const suffix = r.fileDone(
      moduleOf('suites/auth/auth.test.ts', [
        { requirement: 'P1-5.1-a', state: 'passed' },
        { requirement: 'P1-5.1-a', state: 'passed' },
        { requirement: 'P1-5.1-b', state: 'failed' },
        { requirement: 'P1-5.1-c', state: 'skipped' },
      ]),
    )
    expect(suffix).toBe('[1/3 files, 2/40 requirements, 1m05s, auth]')
  })

  test('a heartbeat comes once 15 s pass without a line, naming what runs, and not before', () => {
    const r = start(2)
    r.onTestModuleStart(moduleOf('suites/tiers/usage.test.ts', []))
    clock += 14_000
    r.heartbeat()
    expect(lines).toEqual([])
    clock += 1_000
    r.heartbeat()
    expect(lines).toEqual([
      '  ... 15s elapsed, 0/2 files done, running: tiers (the tiers family waits out rate-limit minutes)\n',
    ])
    clock += 5_000
    r.heartbeat()
    expect(lines).toHaveLength(1) // the heartbeat itself counts as a line
    clock += 10_000
    r.fileDone(moduleOf('suites/tiers/usage.test.ts', []))
    clock += 14_999
    r.heartbeat()
    expect(lines).toHaveLength(1) // a file's line resets the silence
  })

  test('elapsed time and family names', () => {
    expect(formatElapsed(9_999)).toBe('9s')
    expect(formatElapsed(3_600_000 + 5_000)).toBe('60m05s')
    expect(familyOf('suites/videos/create.test.ts')).toBe('videos')
  })
})
