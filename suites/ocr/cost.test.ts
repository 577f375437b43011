/**
 * The price of OCR (Part 2 section 4.6): 0.004 USD per extracted page. The credit record (Part 1 section 2.1) is
 * read before and after, with the tier-4 key, which the other OCR tests do not use; only a lower bound is judged,
 * since a run may charge other calls to the same account meanwhile.
 */
import { describe } from 'vitest'
import { expectSetup, expectThat } from '../../harness/worker/assert.ts'
import { pollUntil } from '../../harness/worker/helpers.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { CREDIT_SETTLE, remainingCredit } from '../shared/credit.ts'
import { needDataUrl, ocr, pagesOf, PRICES, testModels } from './documents.ts'

const api = target()
const KEY = 'tier4' as const
const SETTLE = CREDIT_SETTLE
const remaining = () => remainingCredit(api, KEY)

describe('cost per page (Part 2 §4.6)', () => {
  check(
    'P2-4.6-ocr-cost',
    'reading the three-page test PDF lowers remaining_unit by at least 3 x 0.004 USD',
    async () => {
      api.keyOrSkip(KEY)
      await needDataUrl()
      const before = await remaining()
      const ex = await ocr(api, await testModels(), { key: KEY })
      expectSetup(ex, '2xx', 'an OCR call of the test PDF')
      const pages = pagesOf(ex).length
      const expected = pages * PRICES.page
      const settled = await pollUntil(async () => {
        const after = await remaining()
        return before.usd - after.usd >= expected - 0.000001 ? after : undefined
      }, SETTLE)
      const after = settled ?? (await remaining())
      expectThat(
        settled !== undefined,
        `remaining_unit to drop by at least ${expected.toFixed(6)} USD (${pages} pages x 0.004) within ${SETTLE.timeoutMs / 1000} s`,
        `it dropped by ${(before.usd - after.usd).toFixed(6)} USD (${before.usd} -> ${after.usd})`,
        after.ex,
      )
    },
  )
})
