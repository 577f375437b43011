/**
 * A failed MUST test is run once more, at once, inside the same vitest test, and both results are kept: the test
 * still fails with its first error, and its meta says what the second try gave. When that try passed, the
 * reporter labels the requirement flaky: a failure still, never a pass.
 *
 * Why not vitest's `retry`: a retry that passes turns the test into a pass (the first error survives only in
 * `result().errors` and `diagnostic().flaky`), and a retry that skips (a precondition, the budget) replaces the
 * failure with a skip. Running the second try ourselves keeps the verdict the first try earned.
 */
import type { TestContext } from 'vitest'
import { FAILURE_NAMES } from '../errors.ts'
import type { Requirement } from '../requirements.ts'
import type { RerunResult } from '../report/results.ts'

interface RerunRecord {
  result: RerunResult
  /** How many exchanges the test had made when it first failed: the failure's evidence is the last of those. */
  exchangesBefore: number
}

declare module 'vitest' {
  interface TaskMeta {
    rerun?: RerunRecord
  }
}

export const RERUN_DEFAULTS = {
  // The tiers family counts every call in a rate-limit window: a second try would spend the window that the
  // first one measured, and judge a different thing.
  excludedFamilies: ['tiers'] as readonly string[],
  marginMs: 2_000, // left of the test's timeout after the second try, for afterEach hooks, so vitest's timeout never cuts it
  // A second try is made only when the time left is at least what the first try took, and at least this:
  minAttemptMs: 1_000, // less than this left: the second try is not made ("no-time")
}

/** vitest's skip (ctx.skip, precondition, budget) travels as a thrown error with this code. */
export function isSkip(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'VITEST_PENDING'
}

/** Whether a test's first failure earns a second try: only a conformance failure of a MUST, and only when asked. */
export function wantsRerun(
  failure: unknown,
  req: Pick<Requirement, 'level' | 'family'>,
  enabled: boolean | undefined,
): boolean {
  if (enabled !== true || req.level !== 'MUST' || RERUN_DEFAULTS.excludedFamilies.includes(req.family)) return false
  return failure instanceof Error && FAILURE_NAMES.has(failure.name)
}

/**
 * Runs `attempt` once more within `timeLeftMs` and says how it ended. `attempt` throws what the test would throw
 * (already classified). A try that outlives its time is abandoned, not awaited: its late rejection is swallowed.
 */
export async function secondTry(attempt: () => Promise<void>, timeLeftMs: number): Promise<RerunResult> {
  if (timeLeftMs < RERUN_DEFAULTS.minAttemptMs) return 'no-time'
  const run = Promise.resolve()
    .then(attempt)
    .then(
      (): RerunResult => 'pass',
      (error: unknown): RerunResult =>
        isSkip(error) ? 'skip' : error instanceof Error && FAILURE_NAMES.has(error.name) ? 'fail' : 'error',
    )
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<RerunResult>((resolve) => {
    timer = setTimeout(() => resolve('no-time'), timeLeftMs)
  })
  try {
    return await Promise.race([run, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Called by check() when a test failed: makes the second try if the failure earns one and records it in the
 * test's meta. The caller then throws the first failure whatever the second try gave.
 */
export async function rerunFailed(
  ctx: TestContext,
  req: Requirement,
  enabled: boolean | undefined,
  failure: unknown,
  attempt: () => Promise<void>,
  exchanges: () => number,
): Promise<void> {
  if (!wantsRerun(failure, req, enabled)) return
  const exchangesBefore = exchanges()
  const startedAt = ctx.task.result?.startTime ?? Date.now()
  const firstTookMs = Date.now() - startedAt
  const timeLeftMs = ctx.task.timeout - firstTookMs - RERUN_DEFAULTS.marginMs
  // A second try is likely to take as long as the first: one that could not is not started, rather than abandoned
  // half-way (an abandoned try runs on in the background until its own deadlines).
  let result = timeLeftMs < firstTookMs ? 'no-time' : await secondTry(attempt, timeLeftMs)
  // A test whose calls are fixtures its file made once (helpers.ts memo) only judged them again: no new call, so
  // no second try of the target, and neither "failed again" nor "flaky" would be true.
  if ((result === 'pass' || result === 'fail') && exchanges() === exchangesBefore) result = 'reused'
  // ctx.skip() in the second try marked the task pending, which would turn the first failure into a skip.
  if (ctx.task.result) delete (ctx.task.result as { pending?: boolean }).pending
  ctx.task.meta.rerun = { result, exchangesBefore }
}

const NOTES: Record<RerunResult, string> = {
  pass: 'passed: the failure is flaky (still a failure)',
  fail: 'failed again',
  skip: 'skipped (its precondition or the budget did not allow it)',
  error: 'broke with a harness error',
  'no-time': 'not made: too little of the test timeout was left',
  reused:
    'not made: the test judges calls its file made once for several tests, and calling again would not repeat them',
}

/** The line a failure message gains: what the second try gave. */
export function rerunNote(result: RerunResult): string {
  return `Run again at once: ${NOTES[result]}`
}
