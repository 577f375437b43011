/**
 * Refusals the words do not state: where the reference gives a range, a list, a limit or a format and not what lies
 * past it, the refusal is a SHOULD, and any 4xx other than 429 refuses (harness/worker/assert.ts `expectRefused`).
 * Here, several labelled calls judged at once, so that one failure lists every call that was not refused.
 */
import {
  expectJudgeableRefusal,
  expectKeyAccepted,
  expectThat,
  isRefusal,
  notRefused,
  is2xx,
} from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'

export { isRefusal }

/** Each labelled exchange a refusal; one failure lists every one that was not, with the first as its evidence. */
export function expectRefusals(cases: ReadonlyArray<readonly [what: string, ex: Exchange]>, why: string): void {
  for (const [, ex] of cases) expectJudgeableRefusal(ex)
  const wrong = cases.filter(([, ex]) => !isRefusal(ex.status))
  expectThat(
    wrong.length === 0,
    `a refusal (any 4xx other than 429) of each: ${why}`,
    wrong.map(([what, ex]) => `${what}: ${ex.excerpt.method} ${ex.excerpt.path} answered ${notRefused(ex)}`),
    wrong[0]?.[1],
  )
}

/** Each labelled exchange a success (§7: "2xx success"); one failure lists every one that was not. */
export function expectAccepted(cases: ReadonlyArray<readonly [what: string, ex: Exchange]>, why: string): void {
  const wrong = cases.filter(([, ex]) => !is2xx(ex))
  if (wrong[0]) expectKeyAccepted(wrong[0][1])
  expectThat(
    wrong.length === 0,
    `a 2xx for each: ${why}`,
    wrong.map(([what, ex]) => `${what}: ${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status}`),
    wrong[0]?.[1],
  )
}
