/**
 * allure-vitest's reporter as a conformance run uses it: results in `<run dir>/allure-results/`, and every test
 * result redacted on its way to disk. The tests redact what they attach (harness/worker/allure.ts) and the exchanges are
 * recorded redacted; this catches what neither controls, such as a key that a target echoed into an error
 * message, before it reaches allure-results and, through Allure's history file, every later report.
 */
import AllureReporter from 'allure-vitest/reporter'
import type { LifecycleListener } from 'allure-js-commons/sdk/reporter'
import { Status, type TestResult } from 'allure-js-commons'
import type { TargetConfig } from '../setup/config.ts'
import { Redactor } from '../redact.ts'

/**
 * A ConformanceFailure is the target breaking a rule, which Allure calls "failed"; allure-vitest only recognizes
 * assertion errors by name and files the rest as "broken", which Allure keeps for errors of the test itself
 * (a harness error, as the conformance reporter calls it).
 */
export const conformanceStatus: LifecycleListener = {
  beforeTestResultWrite: (result: TestResult) => {
    if (result.status === Status.BROKEN && /^ConformanceFailure\b/.test(result.statusDetails?.trace ?? ''))
      result.status = Status.FAILED
  },
}

/** Replaces every known key in every string of a test result (name, message, trace, steps, parameters, links). */
export function redactingListener(redactor: Redactor): LifecycleListener {
  return {
    beforeTestResultWrite: (result: TestResult) => {
      const text = JSON.stringify(result)
      const redacted = redactor.text(text)
      if (redacted !== text) Object.assign(result, JSON.parse(redacted) as TestResult)
    },
  }
}

/** `environment`: the run's attribution (harness/report/attribution.ts), shown on the report's Environment panel. */
export function allureReporter(
  resultsDir: string,
  keys: TargetConfig['keys'],
  environment: Record<string, string> = {},
): AllureReporter {
  return new AllureReporter({
    resultsDir,
    listeners: [conformanceStatus, redactingListener(new Redactor(keys))],
    ...(Object.keys(environment).length > 0 ? { environmentInfo: environment } : {}),
  })
}
