/** x-ratelimit-* headers on authenticated calls, errors included (Part 1 §4.1). */
import { describe } from 'vitest'
import { expectKeyAccepted, expectThat } from '../../harness/assert.ts'
import { rateLimitHeaderProblems } from '../../harness/audit.ts'
import { check, gateway } from '../../harness/suite.ts'
import { SAMPLE_CALLS } from './calls.ts'

const gw = gateway()

describe('rate-limit headers (Part 1 §4.1)', () => {
  for (const call of SAMPLE_CALLS.filter((c) => c.authenticated)) {
    check('P1-4.1-ratelimit-headers', `requests and tokens rate-limit headers on ${call.title}`, async () => {
      const ex = await call.run(gw)
      expectKeyAccepted(ex)
      const problems = rateLimitHeaderProblems(ex.record.responseHeaders ?? {})
      expectThat(problems.length === 0, 'x-ratelimit-limit-, -remaining- and -reset- for requests and tokens, well-formed', problems, ex)
    })
  }
})
