/** The alternate format, selected by x-api-key (Part 1 §2.3, §4.3, §5.3): list, retrieve, limit and cursors. */
import { describe } from 'vitest'
import { expectSchema, expectSetup, expectSuccess, expectThat, precondition } from '../../harness/worker/assert.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { listedItems, modelIds } from './model-list.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/worker/suite.ts'

const api = target()

interface AlternatePage {
  ex: Exchange
  ids: string[]
  firstId: unknown
  lastId: unknown
  hasMore: unknown
}

const PAGE_LIMIT = 1000 // the whole catalogue in one page, as the reference sets no maximum

async function page(query: Record<string, string | number>): Promise<AlternatePage> {
  return pageOf(await api.get('/v1/models', { auth: 'x-api-key', query }))
}

function pageOf(ex: Exchange): AlternatePage {
  expectSuccess(ex)
  const body = ex.json
  precondition(
    isObject(body) && Array.isArray(body.data),
    'P1-2.3-alternate-list',
    `${ex.excerpt.path} did not answer an object with a data array`,
  )
  const ids = body.data.flatMap((item) => (isObject(item) && typeof item.id === 'string' ? [item.id] : []))
  return { ex, ids, firstId: body.first_id, lastId: body.last_id, hasMore: body.has_more }
}

/** The whole list, fetched once; each test judges it (or, for retrieve, only uses it) in its own body. */
const fullListEx = memo(() => api.get('/v1/models', { auth: 'x-api-key', query: { limit: PAGE_LIMIT } }))

describe('alternate format with x-api-key (Part 1 §2.3, §4.3)', () => {
  check(
    'P1-2.3-alternate-list',
    'GET /v1/models with x-api-key answers data, first_id, last_id and has_more, items without extra',
    async () => {
      const ex = await api.get('/v1/models', { auth: 'x-api-key' })
      expectSuccess(ex)
      expectSchema(ex, 'models/alternate-list.json')
      const data = (ex.json as { data: unknown[] }).data
      const withExtra = data.flatMap((item, i) => (isObject(item) && 'extra' in item ? [`/data/${i} has extra`] : []))
      expectThat(withExtra.length === 0, 'no extra on list items (extra appears only on retrieve)', withExtra, ex)
    },
  )

  check(
    'P1-2.3-alternate-retrieve',
    'GET /v1/models/{model_id} with x-api-key answers the alternate object with extra',
    async () => {
      const listEx = await fullListEx()
      expectSetup(listEx, 200, 'the alternate list that names a model to retrieve')
      const ids = modelIds(listedItems(listEx) ?? [])
      if (ids.length === 0) skipTest('set-up failed: the alternate list named no model to retrieve')
      const ex = await api.get(`/v1/models/${encodeURIComponent(ids[0] as string)}`, { auth: 'x-api-key' })
      expectSuccess(ex)
      expectSchema(ex, 'models/alternate-retrieve.json')
    },
  )

  check('P1-4.3-alternate-limit', 'limit caps the number of items', async () => {
    for (const limit of [1, 2]) {
      const { ex, ids } = await page({ limit })
      precondition(
        schemas().validate('models/alternate-list.json', ex.json).ok,
        'P1-2.3-alternate-list',
        'the list does not have the alternate shape',
      )
      expectThat(ids.length <= limit, `at most ${limit} item(s) with limit=${limit}`, `${ids.length} items`, ex)
    }
  })

  check(
    'P1-4.3-alternate-cursors',
    'after_id and before_id page through the list without repeats or gaps',
    async () => {
      const fullEx = await fullListEx()
      // The whole list is what the pages are compared with; a target whose limit stops below 1000 may refuse it.
      expectSetup(fullEx, 200, 'the whole alternate list (limit 1000) that the pages are compared with')
      const full = pageOf(fullEx)
      // A target may stop a page below 1000 (the reference gives limit no range): where more models truly follow,
      // the whole list is not at hand to compare pages with. A has_more true with nothing after it is judged below.
      if (full.hasMore === true && typeof full.lastId === 'string') {
        const next = await page({ limit: PAGE_LIMIT, after_id: full.lastId })
        if (next.ids.length > 0 && !next.ids.some((id) => full.ids.includes(id)))
          skipTest(
            `limit=${PAGE_LIMIT} answered ${full.ids.length} models and more follow: the target pages below that, so there is no whole list to compare pages with`,
          )
      }
      precondition(
        schemas().validate('models/alternate-list.json', full.ex.json).ok,
        'P1-2.3-alternate-list',
        'the list does not have the alternate shape',
      )
      expectThat(
        full.hasMore === false,
        `has_more false when all ${full.ids.length} models fit in limit=${PAGE_LIMIT}`,
        `has_more ${String(full.hasMore)}`,
        full.ex,
      )
      expectThat(
        full.firstId === full.ids[0] && full.lastId === full.ids[full.ids.length - 1],
        'first_id and last_id naming the first and last item',
        `first_id ${String(full.firstId)}, last_id ${String(full.lastId)}`,
        full.ex,
      )
      // Forward with after_id, two at a time.
      const seen: string[] = []
      let after: string | undefined
      for (let pages = 0; pages <= full.ids.length; pages += 1) {
        const p = await page(after === undefined ? { limit: 2 } : { limit: 2, after_id: after })
        precondition(p.ids.length <= 2, 'P1-4.3-alternate-limit', 'limit=2 returned more than two items')
        seen.push(...p.ids)
        const expectedMore = seen.length < full.ids.length
        expectThat(
          p.hasMore === expectedMore,
          `has_more ${expectedMore} after ${seen.length} of ${full.ids.length} models`,
          `has_more ${String(p.hasMore)}`,
          p.ex,
        )
        if (!expectedMore || p.ids.length === 0) break
        after = p.ids[p.ids.length - 1]
      }
      expectThat(
        JSON.stringify(seen) === JSON.stringify(full.ids),
        'pages in order, each model once',
        `paged ${seen.length} ids: ${seen.join(', ')}; full list ${full.ids.join(', ')}`,
      )
      // Backward with before_id: the two models just before the last one.
      if (full.ids.length >= 3) {
        const lastId = full.ids[full.ids.length - 1] as string
        const p = await page({ limit: 2, before_id: lastId })
        const expected = full.ids.slice(-3, -1)
        expectThat(
          JSON.stringify(p.ids) === JSON.stringify(expected),
          `before_id=${lastId} limit=2 gives ${expected.join(', ')}`,
          p.ids.join(', ') || 'no items',
          p.ex,
        )
      }
    },
  )
})
