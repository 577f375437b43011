/**
 * Provider parameters (Part 2 sections 4.5, 8). The reference ties group A to p1-search, processor and
 * max_chars_per_result to the p3 tools, and a full-name country to the p5 tools: those are judged on those tools.
 * The tools of groups B and C are not shown (one may be the tenth tool, also not shown), so no tool is assumed:
 * each of the nine is asked with group B and group C parameters and its answers are recorded, and the depth limit
 * of section 8 is judged (as a SHOULD) only on a tool that shows it validates group B.
 */
import { expectRefused } from '../../harness/worker/assert.ts'
import { describe } from 'vitest'
import { mapLimit, memo } from '../../harness/worker/helpers.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { isClientError } from '../shared/status.ts'
import { expectAccepted, needForm, needTool, NINE_TOOLS, search } from './client.ts'
import { targetName } from '../shared/names.ts'
import { limitOf, valuesOf } from '../../common/request-schemas.ts'

const api = target()

/** The listed values and depth's edge, read from the request schema the reference gateway enforces too. */
const SEARCH = 'POST /v1/search'
const TBS = valuesOf(SEARCH, 'body', 'tbs', { search_tool_name: 'p1-search' })
const DEVICES = valuesOf(SEARCH, 'body', 'device')
const SYSTEMS = valuesOf(SEARCH, 'body', 'os')
const PROCESSORS = valuesOf(SEARCH, 'body', 'processor')
const CATEGORIES = valuesOf(SEARCH, 'body', 'categories[].type')
const DEPTH_MAX = limitOf(SEARCH, 'body', 'depth', 'maximum')

describe('group A on p1-search (Part 2 §4.5)', () => {
  check(
    'P2-4.5-search-p1-group-a',
    'p1-search accepts gl, hl, autocorrect, each tbs value, page, location and a country code',
    async () => {
      await needForm('body')
      const cases: Array<[string, Record<string, unknown>]> = [
        ['gl us, hl en', { gl: 'us', hl: 'en' }],
        ['autocorrect false', { autocorrect: false }],
        ...TBS.map((tbs): [string, Record<string, unknown>] => [`tbs ${tbs}`, { tbs }]),
        ['page 2', { page: 2 }],
        ['location Berlin, Germany', { location: 'Berlin, Germany' }],
        ['country de', { country: 'de' }],
      ]
      for (const [label, body] of cases)
        expectAccepted(
          await search(api, { tool: 'p1-search', body: { ...body, max_results: 1 } }),
          `${label} on p1-search`,
        )
    },
  )
})

describe('p3 and p5 tools (Part 2 §4.5)', () => {
  check(
    'P2-4.5-search-p3-parameters',
    'p3-search and p3-search-pro accept processor base and pro and max_chars_per_result',
    async () => {
      await needForm('body')
      for (const tool of ['p3-search', 'p3-search-pro']) {
        await needTool(tool)
        for (const processor of PROCESSORS)
          expectAccepted(
            await search(api, { tool, body: { processor, max_results: 1 } }),
            `processor ${processor} on ${targetName(tool)}`,
          )
        expectAccepted(
          await search(api, { tool, body: { max_chars_per_result: 500, max_results: 1 } }),
          `max_chars_per_result 500 on ${targetName(tool)}`,
        )
      }
    },
  )

  check(
    'P2-4.5-search-p5-country',
    'p5-search and p5-search-advanced accept country as a full lowercase name',
    async () => {
      await needForm('body')
      for (const tool of ['p5-search', 'p5-search-advanced']) {
        await needTool(tool)
        expectAccepted(
          await search(api, { tool, body: { country: 'germany', max_results: 1 } }),
          `country germany on ${targetName(tool)}`,
        )
      }
    },
  )

  check(
    'P2-4.5-search-provider-values',
    'tbs qdr:x on p1, processor ultra on p3 and country de on p5 are refused with a client error',
    async () => {
      await needForm('body')
      await needTool('p3-search')
      await needTool('p5-search')
      expectRefused(
        await search(api, { tool: 'p1-search', body: { tbs: 'qdr:x', max_results: 1 } }),
        'tbs qdr:x (tbs takes qdr:h, qdr:d, qdr:w, qdr:m or qdr:y)',
      )
      expectRefused(
        await search(api, { tool: 'p3-search', body: { processor: 'ultra', max_results: 1 } }),
        'processor ultra (processor is base or pro)',
      )
      expectRefused(
        await search(api, { tool: 'p5-search', body: { country: 'de', max_results: 1 } }),
        'country de (p5 tools take a full lowercase country name)',
      )
    },
  )
})

/**
 * Each tool's answer to invalid group B values, and for those that refuse them, to a plain query: a tool that
 * refuses only the former shows that it validates group B.
 */
const groupB = memo(async () => {
  await needForm('body')
  return mapLimit(NINE_TOOLS, 3, async (tool) => {
    const invalid = await search(api, {
      tool,
      body: { depth: DEPTH_MAX + 1, device: 'phone', os: 'linux', max_results: 1 },
    })
    const plain = isClientError(invalid.status)
      ? (await search(api, { tool, body: { max_results: 1 } })).status
      : undefined
    return { tool, plain, invalid: invalid.status }
  })
})

describe('groups B and C (Part 2 §4.5, §8: tools not shown)', () => {
  check(
    'P2-8-search-depth-limit',
    `a tool that validates group B accepts depth ${DEPTH_MAX} and the listed device and os values, and refuses depth ${DEPTH_MAX + 1}`,
    async () => {
      await needForm('body')
      // Group C first: its answers are recorded whatever group B shows.
      const groupC = {
        sources: ['web', 'news', 'images'],
        categories: CATEGORIES.map((type) => ({ type })),
        ignoreInvalidURLs: true,
        scrapeOptions: {},
        max_results: 1,
      }
      const listedC = await mapLimit(
        NINE_TOOLS,
        3,
        async (tool) => `${targetName(tool)} ${(await search(api, { tool, body: groupC })).status}`,
      )
      observe(
        'group C by tool',
        `sources web, news, images and categories ${CATEGORIES.join(', ')}: ${listedC.join('; ')}`,
      )
      const probes = await groupB()
      observe(
        'group B by tool',
        `depth ${DEPTH_MAX + 1}, device phone, os linux: ${probes.map((p) => `${targetName(p.tool)} ${p.invalid}`).join('; ')}`,
      )
      const takers = probes.filter((p) => p.plain === 200 && isClientError(p.invalid)).map((p) => p.tool)
      if (takers.length === 0)
        skipTest(
          'no listed tool refused invalid group B values, so none shows that it takes group B (the reference does not say which tool does)',
        )
      for (const tool of takers) {
        const pairs = DEVICES.map((device, i) => [device, SYSTEMS[i]] as const).concat([['desktop', 'ios']])
        for (const [i, [device, os]] of pairs.entries()) {
          const body = { device, os, ...(i === 0 ? { depth: DEPTH_MAX } : {}), max_results: 1 }
          expectAccepted(
            await search(api, { tool, body }),
            `${i === 0 ? `depth ${DEPTH_MAX}, ` : ''}device ${device}, os ${os} on ${targetName(tool)}`,
          )
        }
        expectRefused(
          await search(api, { tool, body: { depth: DEPTH_MAX + 1, max_results: 1 } }),
          `depth ${DEPTH_MAX + 1}, above ${DEPTH_MAX} (section 8), on ${targetName(tool)}`,
        )
      }
    },
  )
})
