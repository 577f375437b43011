/**
 * The legacy x-request-id, judged at the as-of date (Part 1 §9.4, §4.1): no rule before 2026-08-16; equal to
 * svc-request-id through 2026-10-15; afterwards not returned by the service (an unrelated value from an
 * intermediary is allowed).
 */
import { describe } from 'vitest'
import { expectThat, precondition } from '../../harness/worker/assert.ts'
import { xRequestIdFinding, xRequestIdPhase } from '../../harness/report/audit.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, target, runConfig } from '../../harness/worker/suite.ts'
import { SAMPLE_CALLS } from './calls.ts'

const api = target()
const asOf = runConfig().asOf

describe(`x-request-id at ${asOf} (${xRequestIdPhase(asOf)} the migration window, Part 1 §9.4)`, () => {
  for (const call of SAMPLE_CALLS) {
    check('P1-9.4-x-request-id', `x-request-id follows the migration rule on ${call.title}`, async () => {
      const ex = await call.run(api)
      const finding = xRequestIdFinding(ex.svcRequestId, ex.header('x-request-id'), asOf)
      precondition(finding !== undefined, 'P1-4.1-svc-request-id', 'no svc-request-id to compare x-request-id with')
      if (xRequestIdPhase(asOf) === 'before')
        observe('x-request-id before 2026-08-16', `${call.title}: ${finding.detail}`)
      expectThat(finding.ok, `x-request-id as the rule stands at ${asOf}`, finding.detail, ex)
    })
  }
})
