/** The credit record, GET /user/v1/credit (Part 1 §2.1, §4.2). */
import { describe } from 'vitest'
import { expectSchema, precondition, is2xx } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { expectAccepted } from '../shared/refusals.ts'

const api = target()
const credit = memo(() => api.get('/user/v1/credit'))

describe('credit record (Part 1 §2.1)', () => {
  check('P1-2.1-credit-record', 'GET /user/v1/credit returns the fields of the credit record', async () => {
    const ex = await credit()
    expectAccepted([['GET /user/v1/credit', ex]], 'the credit record (§7: 2xx success)')
    expectSchema(ex, 'account/credit.json')
  })

  check('P1-2.1-credit-sources', 'grants and packages have the fields of §2.1', async () => {
    const ex = await credit()
    // The credit record's own failure (a route not served, a refused key) is P1-2.1-credit-record's to report.
    precondition(is2xx(ex), 'P1-2.1-credit-record', `${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status}`)
    const body = ex.json
    const sources = isObject(body) && isObject(body.credit_sources) ? body.credit_sources : undefined
    const count = (name: string): number =>
      sources && Array.isArray(sources[name]) ? (sources[name] as unknown[]).length : 0
    precondition(sources !== undefined, 'P1-2.1-credit-record', 'the credit record has no credit_sources object')
    if (count('grants') + count('packages') === 0) skipTest('the account has no grants or packages to check')
    expectSchema(ex, 'account/credit-sources.json', sources, 'credit_sources')
  })
})
