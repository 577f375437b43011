/**
 * Assertions for suites. Each failure throws a ConformanceFailure whose message follows the failure contract;
 * preconditions skip a test whose subject another requirement already broke, so that one fault is reported
 * once, by the requirement it breaks.
 */
import { requirement as lookup } from '../requirements.ts'
import type { Exchange } from './http-client.ts'
import { currentExchanges, currentRequirement, inTest, skipTest } from './recorder.ts'
import { routeAbsence } from '../routes.ts'
import { runIdNow } from './run-config.ts'
import { wasServed } from './served-routes.ts'
import { ConformanceFailure } from '../errors.ts'
import { renderFailure } from './failure.ts'
import type { FailureDetails } from '../errors.ts'
import { schemas } from '../schema-registry.ts'
import type { ExchangeExcerpt } from '../exchange.ts'
import { NOT_OBSERVED } from '../report/results.ts'

/** A failure of the running test's requirement, its message rendered by the failure contract. */
export function conformanceFailure(details: FailureDetails): ConformanceFailure {
  const id = currentRequirement()
  return new ConformanceFailure(details, renderFailure(id === undefined ? undefined : lookup(id), details))
}

/** The newest exchange of the running test: the default evidence when a check names none. */
export function lastExchange(): ExchangeExcerpt | undefined {
  const all = currentExchanges()
  return all[all.length - 1]
}

export function fail(expected: string, seen: string | string[], exchange?: Exchange | ExchangeExcerpt): never {
  const excerpt = exchange === undefined ? lastExchange() : 'excerpt' in exchange ? exchange.excerpt : exchange
  throw conformanceFailure({ expected, seen, ...(excerpt === undefined ? {} : { exchange: excerpt }) })
}

export function expectThat(
  condition: boolean,
  expected: string,
  seen: string | string[],
  exchange?: Exchange | ExchangeExcerpt,
): asserts condition {
  if (!condition) fail(expected, seen, exchange)
}

/** Skips the running test when a requirement it builds on does not hold; that requirement's own test reports it. */
export function precondition(condition: boolean, requirementId: string, detail: string): asserts condition {
  lookup(requirementId) // an unknown id is a harness bug, caught here rather than in a report
  if (condition) return
  // Stopped by the answer of a route the target does not serve: that route's requirement is the cause.
  skipIfRouteAbsent(lastExchange())
  skipTest(`needs ${requirementId}, which does not hold here: ${detail}`, { requirement: requirementId })
}

/**
 * A route the target does not serve is one cause (harness/routes.ts). When the answer a test stops on is the
 * signature of a missing route, the test skips naming the requirement that states that route, unless it is that
 * requirement's own test, which judges the answer. A helper that probes one route and falls back on another is
 * never stopped: only the answer a test fails or skips on is read.
 */
export function skipIfRouteAbsent(ex: ExchangeExcerpt | undefined): void {
  if (ex === undefined || !inTest()) return
  const absence = routeAbsence(ex)
  if (absence === undefined || wasServed(runIdNow(), ex, absence.route)) return
  if (currentRequirement() === absence.requirement) return
  skipTest(`needs ${absence.requirement}: the target does not serve ${absence.route} (${absence.answer})`, {
    requirement: absence.requirement,
    route: absence.route,
    exchange: ex,
  })
}

/**
 * Ends the running test as not observed: it judges a rule no client can provoke (a job that fails to start, a batch
 * cancelled by the service), and the run did not meet it. Unlike a skip, it never makes a run incomplete.
 */
export function notObserved(what: string): never {
  skipTest(`${NOT_OBSERVED}${what}`)
}

/**
 * For a call that only sets up what the test judges (a resource to read back, a model to look up): an answer other
 * than `expected` ('2xx': any success, the class §7 states) skips the test, naming the failed precondition, and the requirement that judges that call reports
 * it where it runs. The test's own requirement is not failed by a call it does not judge.
 */
export function expectSetup(ex: Exchange, expected: number | readonly number[] | '2xx', what: string): void {
  const wanted: readonly number[] = expected === '2xx' ? [] : typeof expected === 'number' ? [expected] : expected
  if (expected === '2xx' ? ex.status >= 200 && ex.status < 300 : wanted.includes(ex.status)) return
  skipIfRouteAbsent(ex.excerpt)
  const not = expected === '2xx' ? 'a 2xx' : wanted.join(' or ')
  skipTest(`set-up failed: ${what}: ${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status}, not ${not}`, {
    exchange: ex.excerpt,
  })
}

const AUTH_REQUIREMENT = { bearer: 'P1-5.2-bearer', 'x-api-key': 'P1-5.3-x-api-key' } as const

/**
 * For tests whose subject needs the key accepted but that judge something other than the status: a valid key
 * refused with 401 skips the test, and the auth requirement of that key form reports the refusal.
 */
export function expectKeyAccepted(ex: Exchange): void {
  const auth = ex.excerpt.auth
  const usedRealKey = ex.excerpt.key !== null && ex.excerpt.key !== 'invalid' && ex.excerpt.key !== 'suspended'
  if (ex.status !== 401 || !usedRealKey || auth === 'none') return
  const authRequirement = AUTH_REQUIREMENT[auth]
  if (currentRequirement() !== authRequirement)
    precondition(false, authRequirement, `${ex.excerpt.method} ${ex.excerpt.path} refused the key with 401`)
}

export function expectStatus(ex: Exchange, expected: number | readonly number[], why = ''): void {
  const wanted = typeof expected === 'number' ? [expected] : expected
  if (wanted.includes(ex.status)) return
  if (wanted.every((s) => s < 300)) expectKeyAccepted(ex)
  fail(`status ${wanted.join(' or ')}${why ? ` (${why})` : ''}`, seenStatus(ex), ex)
}

/** Whether an answer is in Part 1 §7's success class ("2xx success"). */
export const is2xx = (ex: Exchange): boolean => ex.status >= 200 && ex.status < 300

/** Part 1 §7's success class ("2xx success"): any 2xx passes, since the words give the class, not one status. */
export function expectSuccess(ex: Exchange, why = ''): void {
  if (ex.status >= 200 && ex.status < 300) return
  expectKeyAccepted(ex)
  fail(`a 2xx status${why ? ` (${why})` : ''}`, seenStatus(ex), ex)
}

const seenStatus = (ex: Exchange): string =>
  ex.status === 429 && ex.excerpt.attempt > 1
    ? `429 after ${ex.excerpt.attempt} attempts with backoff`
    : String(ex.status)

/** A refusal where the words give no status: any 4xx other than 429, which limits the rate and says nothing of the call. */
export function isRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 429
}

/**
 * Before a refusal is judged: a valid key refused with 401 is the auth rule's (expectKeyAccepted), and a 429 that
 * the client's backoff did not outlast skips the test, naming the rate limit, as it says nothing of the call.
 */
export function expectJudgeableRefusal(ex: Exchange): void {
  expectKeyAccepted(ex)
  if (ex.status === 429)
    skipTest(
      `rate limited: ${ex.excerpt.method} ${ex.excerpt.path} answered 429 after ${ex.excerpt.attempt} attempt(s) with backoff, which neither refuses nor serves the call; run when the key's limit has room`,
    )
}

/** What a call a refusal was due of answered instead: served, or a server error, which refuses nothing. */
export function notRefused(ex: Exchange): string {
  if (ex.status >= 500) return `${ex.status}, a server error, which refuses nothing`
  return is2xx(ex) ? `${ex.status}: accepted` : String(ex.status)
}

/**
 * A refusal the words state no status for (a SHOULD): any 4xx other than 429 passes (400, 404, 413, 422); a 2xx is
 * what the SHOULD warns of, and a 5xx refuses nothing either, which the message says. `missingRoute`, given where
 * the caller knows a 404 means the route itself is not served, makes a 404 skip naming that requirement.
 */
export function expectRefused(ex: Exchange, why = '', missingRoute?: string): void {
  expectJudgeableRefusal(ex)
  if (missingRoute !== undefined && ex.status === 404)
    precondition(false, missingRoute, `${ex.excerpt.method} ${ex.excerpt.path} answered 404: the route is not served`)
  if (isRefusal(ex.status)) return
  fail(`a refusal (any 4xx other than 429)${why ? `: ${why}` : ''}`, notRefused(ex), ex)
}

/** The body as JSON, or a failure saying why it is not. */
export function expectJson(ex: Exchange): unknown {
  if (ex.jsonError !== undefined) fail('a JSON body', `not JSON (${ex.jsonError})`, ex)
  return ex.json
}

/**
 * Validates a value (the JSON body when no value is passed) against a schema under schemas/. A member passed as
 * `undefined` is validated as absent, never replaced by the whole body.
 */
export function expectSchema(ex: Exchange, ref: string, ...rest: [value?: unknown, what?: string]): void {
  const value = rest.length === 0 ? expectJson(ex) : rest[0]
  const what = rest[1] ?? 'the body'
  const result = schemas().validate(ref, value)
  if (!result.ok) fail(`${what} to match ${ref}`, result.errors, ex)
}

/** Validates every item; one failure lists the errors of all items, each path prefixed with the item's place. */
export function expectEach(ex: Exchange, ref: string, items: readonly unknown[], basePath: string): void {
  const errors: string[] = []
  items.forEach((item, index) => {
    const result = schemas().validate(ref, item)
    for (const error of result.errors)
      errors.push(`${basePath}/${index}${error.startsWith('/:') ? error.slice(1) : error}`)
  })
  if (errors.length > 0) fail(`every item of ${basePath} to match ${ref}`, errors, ex)
}
