/** The two forms of search, the nine tools, the result shape and the errors (Part 2 sections 2.2, 4.5, 5, 7). */
import { describe } from 'vitest'
import { expectRefused, expectSchema, expectStatus, expectThat } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target, spend } from '../../harness/worker/suite.ts'
import {
  estimateUsd,
  isSearchResult,
  judgeRoute,
  listedTools,
  missingRoute,
  needForm,
  needSomeRoute,
  needTool,
  NINE_TOOLS,
  QUERY,
  search,
  toolAccess,
  type Form,
} from './client.ts'
import { howToNameId, targetName } from '../shared/names.ts'

const api = target()

describe('the search result (Part 2 §2.2)', () => {
  check(
    'P2-2.2-search-result',
    'a search answers object "search" and results of title, url, snippet and an optional date',
    async () => {
      await needSomeRoute()
      await needTool('p1-search')
      let judged = 0
      for (const form of ['body', 'url'] as const) {
        const ex = await search(api, { tool: 'p1-search', form, body: { max_results: 5 } })
        if (ex.status !== 200) continue // the form's own requirement reports it
        expectSchema(ex, 'search/result.json')
        judged += 1
        const results = (ex.json as { results: Array<Record<string, unknown>> }).results
        observe(
          'search result dates',
          `${form} form: ${results.filter((r) => 'date' in r).length} of ${results.length} results carry date`,
        )
      }
      expectThat(
        judged > 0,
        'at least one form of search to answer 200, so that its result can be judged',
        'neither form answered 200',
      )
    },
  )
})

describe('the two forms (Part 2 §4.5)', () => {
  check(
    'P2-4.5-search-body-form',
    'POST /v1/search with search_tool_name answers 200 with a search result',
    async () => {
      await judgeRoute('body')
      await needTool('p1-search')
      const ex = await search(api, { tool: 'p1-search', form: 'body' })
      expectStatus(ex, 200)
      expectThat(
        isObject(ex.json) && Array.isArray(ex.json.results),
        'an object with a results array',
        'another body',
        ex,
      )
    },
  )

  check(
    'P2-4.5-search-url-form',
    'POST /v1/search/{search_tool_name} without search_tool_name answers 200 with a search result',
    async () => {
      await judgeRoute('url')
      await needTool('p1-search')
      const ex = await search(api, { tool: 'p1-search', form: 'url' })
      expectStatus(ex, 200)
      expectThat(
        isObject(ex.json) && Array.isArray(ex.json.results),
        'an object with a results array',
        'another body',
        ex,
      )
      // "absent in the URL form": what a target does when it is present anyway is not shown.
      const other = targetName('p2-search')
      const both = await search(api, { tool: 'p1-search', form: 'url', body: { search_tool_name: other } })
      observe(
        'search_tool_name in the URL form',
        `POST /v1/search/${targetName('p1-search')} with search_tool_name ${other} in the body answered ${both.status}`,
      )
    },
  )

  check('P2-4.5-search-tool-required', 'POST /v1/search without search_tool_name is refused with 400', async () => {
    await needForm('body')
    spend(estimateUsd('p7-search', QUERY), 'a search without a tool, should a target serve it with any tool')
    expectStatus(await api.post('/v1/search', { query: QUERY }), 400, 'search_tool_name is required on /v1/search')
  })
})

describe('the nine tools (Part 2 §4.5)', () => {
  check(
    'P2-4.5-search-nine-tools',
    'each of the nine listed tools answers a search result by body and by URL',
    async () => {
      await needForm('body')
      await needForm('url')
      const refused: string[] = []
      const absent: string[] = []
      const forbidden: string[] = []
      for (const tool of NINE_TOOLS) {
        const access = await toolAccess(tool)
        // Under a name the target does not know, a tool is not judged: the reference neutralised its name.
        if (!access.present) {
          absent.push(tool)
          continue
        }
        // Not usable with the keys given (403 to each): a tool above their tier, not a tool refused.
        if (access.refused !== undefined) {
          forbidden.push(access.refused)
          continue
        }
        const answers = await Promise.all(
          (['body', 'url'] as Form[]).map((form) => search(api, { tool, form, body: { max_results: 1 } })),
        )
        answers.forEach((ex, i) => {
          if (!isSearchResult(ex)) refused.push(`${targetName(tool)} by ${i === 0 ? 'body' : 'URL'}: ${ex.status}`)
        })
      }
      // The reference states ten tools but lists nine: record what else the catalogue offers, without judging.
      const models = await api.get('/v1/models')
      const body = models.json
      const items = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.data) ? body.data : []
      const names = NINE_TOOLS.map(targetName)
      const others = items
        .filter((m) => isObject(m) && m.mode === 'search' && !names.includes(String(m.id)))
        .map((m) => String((m as { id: unknown }).id))
      const listed = await listedTools()
      observe(
        'search tools in the catalogue',
        `${names.filter((n) => listed.has(n)).length} of the nine listed tools are in GET /v1/models; other search-mode models: ${others.length > 0 ? others.join(', ') : 'none'}`,
      )
      expectThat(
        refused.length === 0,
        'every listed tool the target has to answer 200 with a search result, by body and by URL',
        refused,
      )
      const skipped = [
        ...(absent.length > 0
          ? [
              `the target neither lists nor serves ${absent.map(targetName).join(', ')}: ${absent.map(howToNameId).join('; ')}`,
            ]
          : []),
        ...forbidden,
      ]
      if (skipped.length > 0) skipTest(skipped.join('; '))
    },
  )
})

describe('errors (Part 2 §7)', () => {
  check(
    'P2-7-search-401',
    'a search with no key or an unknown key is refused with 401, by body and by URL',
    async () => {
      // A keyless call needs the route, not the tool's name: a tool the target names otherwise is judged when the
      // target answers 401 anyway, and skipped only when it refused the name first (the words fix no order).
      await needSomeRoute()
      const tool = 'p1-search'
      for (const form of ['body', 'url'] as Form[]) {
        if ((await missingRoute(form)) !== undefined) continue
        for (const key of [null, 'invalid'] as const) {
          const ex = await search(api, { tool, form, key })
          if ([400, 404].includes(ex.status) && !(await toolAccess(tool)).present)
            skipTest(
              `${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status} without a valid key, naming ${targetName(tool)}, which the target does not have under that name; the words fix no order between the key and the tool, so 401 is judged on a tool it has: ${howToNameId(tool)}`,
            )
          expectStatus(ex, 401, `${key === null ? 'no key' : 'an unknown key'} on the ${form} form`)
        }
      }
    },
  )

  check(
    'P2-7-search-unknown-tool',
    'a tool that does not exist is refused with a client error, by body and by URL',
    async () => {
      const tool = 'gc-no-such-search-tool'
      await needForm('body')
      expectRefused(await search(api, { tool, form: 'body' }), 'an unknown search_tool_name')
      await needForm('url')
      expectRefused(await search(api, { tool, form: 'url' }), 'an unknown tool in the URL')
    },
  )
})
