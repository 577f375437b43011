/**
 * Assertions for suites. Each failure throws a ConformanceFailure whose message follows the failure contract;
 * preconditions skip a test whose subject another requirement already broke, so that one fault is reported
 * once, by the requirement it breaks.
 */
import { requirement as lookup } from '../requirements.ts'
import type { Exchange } from './http-client.ts'
import { currentExchanges, currentRequirement, skipTest } from './recorder.ts'
import { ConformanceFailure } from '../errors.ts'
import { renderFailure, type FailureDetails } from './failure.ts'
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
  if (!condition) skipTest(`needs ${requirementId}, which does not hold here: ${detail}`)
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
  const not = expected === '2xx' ? 'a 2xx' : wanted.join(' or ')
  skipTest(`set-up failed: ${what}: ${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status}, not ${not}`)
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
  const seen =
    ex.status === 429 && ex.excerpt.attempt > 1
      ? `429 after ${ex.excerpt.attempt} attempts with backoff`
      : String(ex.status)
  fail(`status ${wanted.join(' or ')}${why ? ` (${why})` : ''}`, seen, ex)
}

/** Part 1 §7 states the success class ("2xx success"), not one status: any 2xx passes. */
export function expectSuccess(ex: Exchange, why = ''): void {
  if (ex.status >= 200 && ex.status < 300) return
  expectKeyAccepted(ex)
  fail(`a 2xx status${why ? ` (${why})` : ''}`, String(ex.status), ex)
}

/**
 * Where the words give a range, a list or a type but not what happens past it (a SHOULD): any client error refuses
 * the value, but 401, 403 and 429 answer the key, its tier or a rate limit, never the value; a 5xx refused nothing
 * either, which the failure says. A valid key refused with 401 is the auth rule's to report.
 */
export function expectRefused(ex: Exchange, why = ''): void {
  if (ex.status >= 400 && ex.status < 500 && ![401, 403, 429].includes(ex.status)) return
  expectKeyAccepted(ex)
  const seen =
    ex.status >= 500
      ? `${ex.status}: a server error, not a refusal of the request`
      : ex.status === 429
        ? `429 after ${ex.excerpt.attempt} attempts: a rate limit, not a refusal of the value`
        : ex.status === 401 || ex.status === 403
          ? `${ex.status}: an answer to the key, not a refusal of the value`
          : `${ex.status}: ${ex.status < 300 ? 'served' : 'not a client error'}`
  fail(`a client error (4xx other than 401, 403, 429) refusing ${why || 'the value'}`, seen, ex)
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
