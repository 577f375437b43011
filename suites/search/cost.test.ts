/**
 * The price of a search (Part 2 section 4.5): an array of N queries costs N times the tool's price per query. The
 * credit record (Part 1 section 2.1) is read before and after, with the tier-5 key, which the other search tests do
 * not use; only a lower bound is judged, since a run may charge other calls to the same account meanwhile. The tool
 * is the first of the nine that searches an array ("on tools that support it"); a refused call costs nothing, so
 * the tools tried before it do not lower the bound.
 */
import { describe } from 'vitest'
import { expectThat, precondition } from '../../harness/worker/assert.ts'
import { pollUntil } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { CREDIT_SETTLE, remainingCredit } from '../shared/credit.ts'
import { targetName } from '../shared/names.ts'
import { estimateUsd, isSearchResult, needForm, NINE_TOOLS, pricePerQuery, search } from './client.ts'

const api = target()
const KEY = 'tier5' as const
const SETTLE = CREDIT_SETTLE
const remaining = () => remainingCredit(api, KEY)

describe('cost per query (Part 2 §4.5)', () => {
  check(
    'P2-4.5-search-cost',
    'a search of three queries lowers remaining_unit by at least 3 x the tool price',
    async () => {
      api.keyOrSkip(KEY)
      await needForm('body')
      const query = ['conformance testing', 'gateway pricing', 'search tools']
      const before = await remaining()
      let served: { tool: string; ex: Exchange } | undefined
      const tried: string[] = []
      for (const tool of NINE_TOOLS) {
        const ex = await search(api, { tool, key: KEY, body: { query, max_results: 1 } })
        tried.push(`${targetName(tool)}: ${ex.status}`)
        if (isSearchResult(ex)) {
          served = { tool, ex }
          break
        }
      }
      precondition(
        served !== undefined,
        'P2-4.5-search-query-array',
        `no listed tool answered an array of queries with a search result (${tried.join('; ')})`,
      )
      const expected = estimateUsd(served.tool, query)
      // remaining_unit has six decimals: allow half a micro-dollar of rounding.
      const settled = await pollUntil(async () => {
        const after = await remaining()
        return before.usd - after.usd >= expected - 0.000001 ? after : undefined
      }, SETTLE)
      const after = settled ?? (await remaining())
      const charged = before.usd - after.usd
      expectThat(
        settled !== undefined,
        `remaining_unit to drop by at least ${expected.toFixed(6)} USD (3 queries x ${pricePerQuery(served.tool)} on ${targetName(served.tool)}) within ${SETTLE.timeoutMs / 1000} s`,
        `it dropped by ${charged.toFixed(6)} USD (${before.usd} -> ${after.usd})`,
        after.ex,
      )
    },
  )
})
