/** x-ratelimit-* headers on authenticated calls, errors included (Part 1 §4.1). */
import { describe } from 'vitest'
import { expectKeyAccepted, expectThat } from '../../harness/worker/assert.ts'
import { projectTokenHeaderProblems, rateLimitHeaderProblems } from '../../harness/report/audit.ts'
import { parseReset } from '../../harness/duration.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { catalogueFixture, modelFor } from '../chat/fixtures.ts'
import { SAMPLE_CALLS } from './calls.ts'

const api = target()

describe('rate-limit headers (Part 1 §4.1)', () => {
  for (const call of SAMPLE_CALLS.filter((c) => c.authenticated)) {
    check('P1-4.1-ratelimit-headers', `requests and tokens rate-limit headers on ${call.title}`, async () => {
      const ex = await call.run(api)
      expectKeyAccepted(ex)
      const problems = rateLimitHeaderProblems(ex.excerpt.responseHeaders ?? {})
      expectThat(
        problems.length === 0,
        'x-ratelimit-limit-, -remaining- and -reset- for requests and tokens, well-formed',
        problems,
        ex,
      )
      // §4.1 gives "a number followed by s" as a sample form only: which form the target writes is recorded.
      const headers = ex.excerpt.responseHeaders ?? {}
      observe(
        'rate-limit reset form',
        ['requests', 'tokens']
          .map((bucket) => {
            const text = headers[`x-ratelimit-reset-${bucket}`] ?? ''
            return `${bucket}: ${parseReset(text)?.form ?? 'unparsed'} (${text.replace(/[\d.]+/g, 'N')})`
          })
          .join('; '),
      )
    })
  }
})

/**
 * The project-scoped token bucket (§4.1) is "present only on some routes when a project-scoped bucket applies":
 * where a target sends any of its headers, all three must be there in the token bucket's form. The audit judges
 * every response of the run this way; this test makes sure the two routes most likely to carry it are seen.
 */
const catalogue = catalogueFixture(api)

describe('project-token headers (Part 1 §4.1)', () => {
  check(
    'P1-4.1-project-token-headers',
    'where project-token headers appear, limit, remaining and reset all do, well-formed',
    async () => {
      const model = await modelFor(catalogue, 'chat')
      const calls = [
        await api.post('/v1/chat/completions', {
          model: model.id,
          messages: [{ role: 'user', content: 'Say hi.' }],
          max_tokens: 8,
        }),
        await api.post('/v1/responses', { model: model.id, input: 'Say hi.', max_output_tokens: 16, store: false }),
      ]
      const seen = calls.filter((ex) => projectTokenHeaderProblems(ex.excerpt.responseHeaders ?? {}) !== undefined)
      if (seen.length === 0)
        skipTest(
          'the target sent no x-ratelimit-*-project-tokens header on chat completions or responses; §4.1 makes them route-dependent',
        )
      for (const ex of seen) {
        const problems = projectTokenHeaderProblems(ex.excerpt.responseHeaders ?? {}) ?? []
        expectThat(
          problems.length === 0,
          'x-ratelimit-limit-, -remaining- and -reset-project-tokens together, well-formed',
          problems,
          ex,
        )
      }
    },
  )
})
