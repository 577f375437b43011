/** A failed MUST test is tried once more at once (harness/worker/rerun.ts), and the reporter says flaky when that passed. */
import type { TestContext } from 'vitest'
import { describe, expect, test } from 'vitest'
import type { Requirement } from '../../../harness/requirements.ts'
import { aggregate, verdictOf, type Outcome } from '../../../harness/report/results.ts'
import { RERUN_DEFAULTS, rerunFailed, rerunNote, secondTry, wantsRerun } from '../../../harness/worker/rerun.ts'

const MUST = { level: 'MUST', family: 'models' } as const
const failure = (name = 'ConformanceFailure'): Error => Object.assign(new Error('Seen: 500'), { name })
const skip = (): Error => Object.assign(new Error('test is skipped; abort execution'), { code: 'VITEST_PENDING' })

describe('which failures earn a second try', () => {
  test('a conformance failure of a MUST, when the run asks for it', () => {
    expect(wantsRerun(failure(), MUST, true)).toBe(true)
    expect(wantsRerun(failure('AssertionError'), MUST, true)).toBe(true)
  })

  test('not: a SHOULD, the tiers family (it counts every call of a window), a harness error, a skip, or a run that did not ask', () => {
    expect(wantsRerun(failure(), { level: 'SHOULD', family: 'models' }, true)).toBe(false)
    expect(wantsRerun(failure(), { level: 'MUST', family: 'tiers' }, true)).toBe(false)
    expect(wantsRerun(new TypeError('x is undefined'), MUST, true)).toBe(false)
    expect(wantsRerun(skip(), MUST, true)).toBe(false)
    expect(wantsRerun(failure(), MUST, false)).toBe(false)
    expect(wantsRerun(failure(), MUST, undefined)).toBe(false)
  })
})

describe('the second try', () => {
  test.each([
    ['pass', async () => {}],
    [
      'fail',
      async () => {
        throw failure()
      },
    ],
    [
      'skip',
      async () => {
        throw skip()
      },
    ],
    [
      'error',
      async () => {
        throw new TypeError('boom')
      },
    ],
  ] as const)('%s', async (expected, attempt) => {
    expect(await secondTry(attempt, 5_000)).toBe(expected)
  })

  test('too little time left: not made at all', async () => {
    let made = false
    expect(
      await secondTry(async () => {
        made = true
      }, RERUN_DEFAULTS.minAttemptMs - 1),
    ).toBe('no-time')
    expect(made).toBe(false)
  })

  test('a try that outlives its time is abandoned, and its late failure goes nowhere', async () => {
    let late: () => void = () => {}
    const result = await secondTry(
      () =>
        new Promise<void>((_resolve, reject) => {
          late = () => reject(failure())
        }),
      RERUN_DEFAULTS.minAttemptMs,
    )
    expect(result).toBe('no-time')
    late() // an unhandled rejection here would fail this test file
    await new Promise((resolve) => setTimeout(resolve, 10))
  })
})

describe('rerunFailed in a test', () => {
  const req: Requirement = {
    id: 'P1-7-x',
    part: 1,
    section: '7',
    family: 'models',
    level: 'MUST',
    kind: 'shape',
    rule: 'r',
  }

  function fakeContext(timeout = 30_000, startedAgoMs = 0): TestContext {
    return {
      task: { timeout, meta: {}, result: { state: 'run', startTime: Date.now() - startedAgoMs } },
    } as unknown as TestContext
  }

  test('records the second try and how many exchanges the first had made', async () => {
    const ctx = fakeContext()
    let exchanges = 3
    await rerunFailed(
      ctx,
      req,
      true,
      failure(),
      async () => {
        exchanges += 1
      },
      () => exchanges,
    )
    expect(ctx.task.meta.rerun).toEqual({ result: 'pass', exchangesBefore: 3 })
  })

  test('a second try that made no call (the test judges a fixture its file made once) tried nothing again: reused', async () => {
    const passed = fakeContext()
    await rerunFailed(
      passed,
      req,
      true,
      failure(),
      async () => {},
      () => 2,
    )
    expect(passed.task.meta.rerun?.result).toBe('reused')
    const failed = fakeContext()
    await rerunFailed(
      failed,
      req,
      true,
      failure(),
      async () => {
        throw failure()
      },
      () => 2,
    )
    expect(failed.task.meta.rerun?.result).toBe('reused')
  })

  test('a skip in the second try does not leave the test pending (which would turn the failure into a skip)', async () => {
    const ctx = fakeContext()
    await rerunFailed(
      ctx,
      req,
      true,
      failure(),
      async () => {
        ;(ctx.task.result as { pending?: boolean }).pending = true // what ctx.skip() does before it throws
        throw skip()
      },
      () => 1,
    )
    expect(ctx.task.meta.rerun?.result).toBe('skip')
    expect((ctx.task.result as { pending?: boolean }).pending).toBeUndefined()
  })

  test('the time left is the test timeout less what the first try took and a margin', async () => {
    const ctx = fakeContext(10_000, 10_000 - RERUN_DEFAULTS.marginMs - RERUN_DEFAULTS.minAttemptMs + 200)
    let made = false
    await rerunFailed(
      ctx,
      req,
      true,
      failure(),
      async () => {
        made = true
      },
      () => 0,
    )
    expect(ctx.task.meta.rerun?.result).toBe('no-time')
    expect(made).toBe(false)
  })

  test('a second try that would likely outlive the timeout (the first took longer than what is left) is not started', async () => {
    const ctx = fakeContext(20_000, 8_000) // 10 s left after the margin, more than the 8 s the first took: made
    let calls = 0
    await rerunFailed(
      ctx,
      req,
      true,
      failure(),
      async () => {
        calls += 1
      },
      () => calls,
    )
    expect(ctx.task.meta.rerun?.result).toBe('pass')
    const slow = fakeContext(20_000, 10_000) // 8 s left, the first took 10 s
    let made = false
    await rerunFailed(
      slow,
      req,
      true,
      failure(),
      async () => {
        made = true
      },
      () => 0,
    )
    expect(slow.task.meta.rerun?.result).toBe('no-time')
    expect(made).toBe(false)
  })

  test('nothing happens for a failure that earns no second try', async () => {
    const ctx = fakeContext()
    let made = false
    await rerunFailed(
      ctx,
      { ...req, level: 'SHOULD' },
      true,
      failure(),
      async () => {
        made = true
      },
      () => 0,
    )
    expect(made).toBe(false)
    expect(ctx.task.meta.rerun).toBeUndefined()
  })

  test('the note a failure message gains says what the second try gave', () => {
    expect(rerunNote('pass')).toBe('Run again at once: passed: the failure is flaky (still a failure)')
    expect(rerunNote('fail')).toBe('Run again at once: failed again')
  })
})

describe('flaky in the results', () => {
  const requirements: Requirement[] = [
    { id: 'A', part: 1, section: '7', family: 'models', level: 'MUST', kind: 'shape', rule: 'a' },
  ]
  const out = (status: Outcome['status'], rerun?: Outcome['rerun'], source: Outcome['source'] = 'test'): Outcome => ({
    requirement: 'A',
    status,
    test: 't',
    file: 'f',
    source,
    ...(rerun ? { rerun } : {}),
  })
  const judge = (outcomes: Outcome[]) =>
    aggregate({ requirements, outcomes, selectedFamilies: null, filtered: false })[0]!

  test('a failure whose every failing test passed again is flaky, and still fails the run', () => {
    const r = judge([out('fail', 'pass'), out('pass')])
    expect(r).toMatchObject({ status: 'fail', flaky: true })
    expect(r.tests[0]?.rerun).toBe('pass')
    expect(verdictOf([r], 0)).toBe('non-conformant')
  })

  test('not flaky: a test that failed again, one not tried again, or an audit failure beside it', () => {
    expect(judge([out('fail', 'fail')]).flaky).toBeUndefined()
    expect(judge([out('fail', 'pass'), out('fail')]).flaky).toBeUndefined()
    expect(judge([out('fail', 'pass'), out('fail', undefined, 'audit')]).flaky).toBeUndefined()
  })
})
