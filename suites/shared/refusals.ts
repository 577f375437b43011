/**
 * Refusals the words do not state: where the reference gives a range, a list, a limit or a format and not what lies
 * past it, the refusal is a SHOULD, and any 4xx refuses (400, 404, 413, 422 ...) but a 429, which limits the rate
 * and says nothing of the value. A 2xx is what the SHOULD warns of; a 5xx refuses nothing, and the message says so.
 */
import { expectKeyAccepted, expectThat } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'

export function isRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 429
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300
}

function seen(ex: Exchange): string {
  if (ex.status >= 500) return `${ex.status}, a server error, which refuses nothing`
  if (isSuccess(ex.status)) return `${ex.status}: accepted`
  return String(ex.status)
}

/** Each labelled exchange a refusal; one failure lists every one that was not, with the first as its evidence. */
export function expectRefusals(cases: ReadonlyArray<readonly [what: string, ex: Exchange]>, why: string): void {
  for (const [, ex] of cases) expectKeyAccepted(ex)
  const wrong = cases.filter(([, ex]) => !isRefusal(ex.status))
  expectThat(
    wrong.length === 0,
    `a refusal (a 4xx other than 429) of each: ${why}`,
    wrong.map(([what, ex]) => `${what}: ${ex.excerpt.method} ${ex.excerpt.path} answered ${seen(ex)}`),
    wrong[0]?.[1],
  )
}

/** Each labelled exchange a success (§7: "2xx success"); one failure lists every one that was not. */
export function expectAccepted(cases: ReadonlyArray<readonly [what: string, ex: Exchange]>, why: string): void {
  const wrong = cases.filter(([, ex]) => !isSuccess(ex.status))
  if (wrong[0]) expectKeyAccepted(wrong[0][1])
  expectThat(
    wrong.length === 0,
    `a 2xx for each: ${why}`,
    wrong.map(([what, ex]) => `${what}: ${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status}`),
    wrong[0]?.[1],
  )
}
