/** The credit record, GET /user/v1/credit (Part 1 §2.1, §4.2). */
import { describe } from 'vitest'
import { expectSchema, expectStatus, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'

const api = target()
const credit = memo(async () => {
  const ex = await api.get('/user/v1/credit')
  expectStatus(ex, 200)
  return ex
})

describe('credit record (Part 1 §2.1)', () => {
  check('P1-2.1-credit-record', 'GET /user/v1/credit returns the fields of the credit record', async () => {
    expectSchema(await credit(), 'account/credit.json')
  })

  check('P1-2.1-credit-sources', 'grants and packages have the fields of §2.1', async () => {
    const ex = await credit()
    const body = ex.json
    const sources = isObject(body) && isObject(body.credit_sources) ? body.credit_sources : undefined
    const count = (name: string): number =>
      sources && Array.isArray(sources[name]) ? (sources[name] as unknown[]).length : 0
    precondition(sources !== undefined, 'P1-2.1-credit-record', 'the credit record has no credit_sources object')
    if (count('grants') + count('packages') === 0) skipTest('the account has no grants or packages to check')
    expectSchema(ex, 'account/credit-sources.json', sources, 'credit_sources')
  })
})
