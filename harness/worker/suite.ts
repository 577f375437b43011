/**
 * What a suite file uses: `check()` declares a test of one requirement, `target()` is the client bound to the
 * run's target. The requirement id is in the test's name (so `--grep P1-4.1` selects by id) and in its meta
 * (so the reporter needs no parsing). An unknown id fails when the file is collected.
 */
import { expect, test } from 'vitest'
import { attachFailure, describeTest, tagTest } from './allure.ts'
import { conformanceFailure, lastExchange, skipIfRouteAbsent } from './assert.ts'
import { reserveSpend } from './budget.ts'
import { requirement } from '../requirements.ts'
import { ConformanceFailure, TargetFailure } from '../errors.ts'
import { TargetClient } from './http-client.ts'
import { currentExchanges, dropHeld } from './recorder.ts'
import { isSkip, rerunFailed } from './rerun.ts'
import { NOT_OBSERVED } from '../report/results.ts'
import { runConfig } from './run-config.ts'

export { runConfig }

export const SUITE_DEFAULTS = {
  testTimeoutMs: 120_000, // above the client's own deadlines and one rate-limit wait, so those fire first
  callsPerTimeout: 4, // a test may wait this many whole request timeouts (GATEWAY_TIMEOUT_MS) before it is cut
}

/** Every perFile map, emptied as each suite file starts (beginFile). */
const fileStates: Array<Map<string, unknown>> = []

/**
 * State that lives for one test file. Suite files share their worker, and so the modules they import, with the files
 * that ran there before them, in this run and, for a thread kept between runs, in earlier ones
 * (harness/setup/kept-threads.ts): a helper module keeps what it learns of the target here.
 */
export function perFile<T>(make: () => T): () => T {
  const byFile = new Map<string, T>()
  fileStates.push(byFile as Map<string, unknown>)
  return () => {
    const file = expect.getState().testPath ?? ''
    if (!byFile.has(file)) byFile.set(file, make())
    return byFile.get(file) as T
  }
}

/**
 * A suite file starts (suites/setup.ts, evaluated before each file): nothing an earlier file, or an earlier run's,
 * learned or left unrecorded carries into it. A worker runs one file at a time.
 */
export function beginFile(): void {
  for (const states of fileStates) states.clear()
  dropHeld()
}

const client = perFile(() => new TargetClient(runConfig()))

export function target(): TargetClient {
  return client()
}

/**
 * Call before a billable request with its estimated cost in US dollars (from the reference's prices,
 * rounded up): reserves it against GATEWAY_BUDGET_USD, or skips the test with the budget as reason.
 */
export function spend(usd: number, what: string): void {
  reserveSpend(runConfig(), usd, what)
}

/** Turns what a test threw into what the report should say: a transport problem is the target's failure. */
function classify(error: unknown): unknown {
  if (error instanceof TargetFailure)
    return conformanceFailure({ expected: 'a complete HTTP response', seen: error.message, exchange: error.excerpt })
  if (error instanceof Error && error.name === 'AssertionError') {
    // A plain vitest expect(): keep its message, add the requirement and the evidence.
    const exchange = lastExchange()
    return conformanceFailure({
      expected: 'the assertion to hold',
      seen: error.message,
      ...(exchange ? { exchange } : {}),
    })
  }
  return error
}

export function check(
  id: string,
  title: string,
  fn: () => Promise<void> | void,
  options: { timeout?: number } = {},
): void {
  const req = requirement(id)
  // A raised GATEWAY_TIMEOUT_MS raises the test's time with it: a slow target's calls must time out as the
  // target's failure, not cut the test as a harness error.
  const timeout =
    options.timeout ?? Math.max(SUITE_DEFAULTS.testTimeoutMs, SUITE_DEFAULTS.callsPerTimeout * runConfig().timeoutMs)
  test(`[${id}] ${title}`, { meta: { requirement: id }, timeout }, async (ctx) => {
    const config = runConfig()
    await describeTest(req, ctx.task)
    try {
      await fn()
    } catch (error) {
      const failure = classify(error)
      // A test stopped by the answer of a route the target does not serve skips naming that route's requirement:
      // a failure on that answer, or a skip right after it, whose reason would point at another fix.
      if (!isSkip(failure))
        skipIfRouteAbsent(failure instanceof ConformanceFailure ? failure.details.exchange : lastExchange())
      else if (!String((failure as { note?: unknown }).note ?? '').startsWith(NOT_OBSERVED))
        skipIfRouteAbsent(lastExchange())
      if (!isSkip(failure)) {
        const cited = failure instanceof ConformanceFailure ? failure.details.exchange : undefined
        // The call a failure cites is the one the report shows, though other calls came after it (a cleanup) or
        // another test made it (a fixture the file made once).
        if (cited !== undefined && currentExchanges().at(-1) !== cited) ctx.task.meta.failureExchange = cited
        await attachFailure(config, cited ?? lastExchange())
      }
      // A failed MUST is tried once more and both results are reported; the first failure stands (harness/worker/rerun.ts).
      await rerunFailed(
        ctx,
        req,
        config.rerunFailures,
        failure,
        async () => {
          try {
            await fn()
          } catch (again) {
            throw classify(again)
          }
        },
        () => currentExchanges().length,
      )
      throw failure
    } finally {
      await tagTest(config, currentExchanges())
    }
  })
}
