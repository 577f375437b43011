/**
 * The request options of POST /v1/ocr (Part 2 section 4.6): pages, images, the optional fields, table_format and
 * values outside the stated ones. Every call reads the three-page test PDF (documents.ts).
 */
import { describe } from 'vitest'
import {
  expectRefused,
  expectSetup,
  expectSuccess,
  expectThat,
  notObserved,
  precondition,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, perFile, target } from '../../harness/worker/suite.ts'
import { needDataUrl, ocr, PAGE_WORDS, pagesOf, TABLE, TEST_PDF_IMAGE_PIXELS, testModels } from './documents.ts'
import { namedModel } from '../shared/named-models.ts'

const api = target()
const BBOX_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'image_note',
    schema: {
      type: 'object',
      properties: { description: { type: 'string' } },
      required: ['description'],
      additionalProperties: false,
    },
  },
}

/** The answer to pages [1, 2], once per file: the MUST judges which pages came back, the SHOULD how they are numbered. */
const secondAndThird = perFile(() => memo(async () => ocr(api, await testModels(), { fields: { pages: [1, 2] } })))

function textOf(page: { markdown: unknown }): string {
  return typeof page.markdown === 'string' ? page.markdown.toUpperCase() : ''
}

describe('pages (Part 2 §4.6)', () => {
  check(
    'P2-4.6-ocr-pages',
    'pages [1, 2] answers exactly two pages, holding the second and third pages and not the first',
    async () => {
      await needDataUrl()
      const ex = await secondAndThird()()
      expectSuccess(ex, 'pages [1, 2] of the test PDF')
      const pages = pagesOf(ex)
      const texts = pages.map(textOf)
      const [first, second, third] = PAGE_WORDS
      expectThat(
        pages.length === 2 &&
          texts.some((t) => t.includes(second)) &&
          texts.some((t) => t.includes(third)) &&
          !texts.some((t) => t.includes(first)),
        `two pages (zero-based indices 1 and 2), holding ${second} and ${third} and not ${first}`,
        `${pages.length} pages: ${JSON.stringify(texts.map((t) => t.slice(0, 80)))}`,
        ex,
      )
    },
  )

  check(
    'P2-4.6-ocr-pages-index',
    'asking pages [1, 2], the page holding the second page has index 1 and the one holding the third index 2',
    async () => {
      await needDataUrl()
      const ex = await secondAndThird()()
      expectSetup(ex, '2xx', 'an OCR call with pages [1, 2]')
      const pages = pagesOf(ex)
      const holding = (word: string) => pages.find((p) => textOf(p).includes(word))
      const second = holding(PAGE_WORDS[1])
      const third = holding(PAGE_WORDS[2])
      precondition(
        pages.length === 2 && second !== undefined && third !== undefined,
        'P2-4.6-ocr-pages',
        'the answer to pages [1, 2] is not the second and third pages',
      )
      expectThat(
        second.index === 1 && third.index === 2,
        `index 1 on the page holding ${PAGE_WORDS[1]} and index 2 on the one holding ${PAGE_WORDS[2]} (their indices in the document)`,
        `${PAGE_WORDS[1]} has index ${JSON.stringify(second.index)}, ${PAGE_WORDS[2]} index ${JSON.stringify(third.index)}`,
        ex,
      )
    },
  )
})

describe('images (Part 2 §2.3, §4.6)', () => {
  check(
    'P2-4.6-ocr-include-image-base64',
    'with include_image_base64 true every page carries an images array',
    async () => {
      await needDataUrl()
      const ex = await ocr(api, await testModels(), { fields: { include_image_base64: true } })
      expectSuccess(ex, 'include_image_base64 true')
      const pages = pagesOf(ex)
      const without = pages.filter((p) => !Array.isArray(p.images)).map((p) => `page ${String(p.index)}`)
      expectThat(
        pages.length > 0 && without.length === 0,
        'an images array on every page',
        without.length > 0 ? `no images array on ${without.join(', ')}` : 'no pages',
        ex,
      )
      const first = pages.flatMap((p) => (Array.isArray(p.images) ? p.images : []))[0]
      observe(
        'OCR image item',
        first === undefined
          ? 'no image extracted from the test PDF'
          : `fields ${isObject(first) ? Object.keys(first).sort().join(', ') : typeof first}`,
      )
    },
  )

  check(
    'P2-4.6-ocr-image-limits',
    'image_limit 1 caps the images of the answer at one; image_min_size above every image leaves none',
    async () => {
      await needDataUrl()
      const models = await testModels()
      const count = (pages: ReturnType<typeof pagesOf>) =>
        pages.reduce((sum, p) => sum + (Array.isArray(p.images) ? p.images.length : 0), 0)
      const imagesWith = async (fields: Record<string, unknown>, what: string) => {
        const ex = await ocr(api, models, { fields: { include_image_base64: true, ...fields } })
        expectSetup(ex, '2xx', `an OCR call with ${what}`)
        const pages = pagesOf(ex)
        precondition(
          pages.every((p) => Array.isArray(p.images)),
          'P2-4.6-ocr-include-image-base64',
          'pages without an images array',
        )
        return { ex, images: count(pages) }
      }
      // A limit shows only where there is something to cut: two images of the test PDF without limits.
      const all = await imagesWith({}, 'no image limits')
      if (all.images < 2)
        notObserved(
          `without limits the target extracted ${all.images} image${all.images === 1 ? '' : 's'} of the test PDF's two (${TEST_PDF_IMAGE_PIXELS} pixels a side), too few to show a limit`,
        )
      const zero = await imagesWith({ image_limit: 0 }, 'image_limit 0')
      observe('OCR image_limit 0', `${zero.images} of ${all.images} images (0 may be read as no limit)`)
      const one = await imagesWith({ image_limit: 1 }, 'image_limit 1')
      expectThat(one.images <= 1, 'at most 1 image with image_limit 1', `${one.images} images`, one.ex)
      const big = 100 * TEST_PDF_IMAGE_PIXELS
      const none = await imagesWith({ image_min_size: big }, `image_min_size ${big}`)
      expectThat(
        none.images === 0,
        `no image with image_min_size ${big} (the test images are ${TEST_PDF_IMAGE_PIXELS} pixels, drawn two inches wide)`,
        `${none.images} images`,
        none.ex,
      )
    },
  )
})

describe('optional fields (Part 2 §4.6)', () => {
  check(
    'P2-4.6-ocr-optional-fields',
    'id, include_image_base64 false, image_limit, image_min_size, bbox_annotation_format, extract_header, extract_footer and table_format are accepted',
    async () => {
      await needDataUrl()
      const models = await testModels()
      const cases: Array<[string, Record<string, unknown>]> = [
        ['id', { id: 'gc-ocr-request' }],
        ['include_image_base64 false', { include_image_base64: false }],
        ['image_limit 2', { image_limit: 2 }],
        ['image_min_size 4', { image_min_size: 4 }],
        ['bbox_annotation_format json_schema', { bbox_annotation_format: BBOX_FORMAT }],
        ['extract_header true', { extract_header: true }],
        ['extract_header false', { extract_header: false }],
        ['extract_footer true', { extract_footer: true }],
        ['extract_footer false', { extract_footer: false }],
        ['table_format markdown', { table_format: 'markdown' }],
        ['table_format html', { table_format: 'html' }],
      ]
      for (const [label, fields] of cases) {
        const ex = await ocr(api, models, { fields })
        expectSuccess(ex, `${label} is valid and accepted`)
        if (label.endsWith('true')) {
          const page = pagesOf(ex)[0]
          observe(
            `OCR ${label.split(' ')[0]}`,
            `first page fields with ${label}: ${page ? Object.keys(page).sort().join(', ') : 'no page'}`,
          )
        }
      }
    },
  )

  check(
    'P2-4.6-ocr-invalid-values',
    'unlisted values are refused with a client error: table_format csv, annotation type xml, pages of a string, document type file, a chat model',
    async () => {
      await needDataUrl()
      const models = await testModels()
      const document = { type: 'file', file: 'x' }
      expectRefused(await ocr(api, models, { fields: { table_format: 'csv' } }), 'table_format csv (markdown or html)')
      expectRefused(
        await ocr(api, models, { fields: { document_annotation_format: { type: 'xml' } } }),
        'a response format of type xml (text, json_object or json_schema)',
      )
      expectRefused(await ocr(api, models, { fields: { pages: ['first'] } }), 'pages holding a string (indices)')
      expectRefused(await ocr(api, models, { document }), 'a document of type file (document_url or image_url)')
      const chat = await api.get('/v1/models')
      const body = chat.json
      const items = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.data) ? body.data : []
      const listed = items.find((m) => isObject(m) && m.mode === 'chat' && typeof m.id === 'string') as
        | { id: string }
        | undefined
      const named = namedModel('chat')
      const other = named === undefined ? listed : { id: named }
      if (other) expectRefused(await ocr(api, models, { model: other.id }), `${other.id}, not an OCR model`)
    },
  )
})

describe('table_format (Part 2 §4.6)', () => {
  check(
    'P2-4.6-ocr-table-format',
    'the table of the test PDF is a markdown table by default and with markdown, an HTML table with html',
    async () => {
      await needDataUrl()
      const models = await testModels()
      // All pages, not pages [2]: the table is judged wherever it lands, whatever pages does.
      const page3 = async (fields: Record<string, unknown>) => {
        const ex = await ocr(api, models, { fields })
        // Whether table_format is accepted is P2-4.6-ocr-optional-fields'; this judges where the table lands.
        expectSetup(ex, '2xx', `an OCR call with ${JSON.stringify(fields)}`)
        return { ex, text: JSON.stringify(pagesOf(ex)) }
      }
      const markdownRow = /\|\s*:?-{3,}:?\s*\|/
      for (const [label, fields] of [
        ['default', {}],
        ['markdown', { table_format: 'markdown' }],
      ] as const) {
        const { ex, text } = await page3(fields)
        expectThat(
          markdownRow.test(text) && !/<table/i.test(text),
          `a markdown table (a |---| row, no <table>) with table_format ${label}`,
          text.slice(0, 300),
          ex,
        )
      }
      const { ex, text } = await page3({ table_format: 'html' })
      const cells = TABLE.flat().every((cell) => text.includes(cell))
      expectThat(
        /<table/i.test(text) && cells,
        'an HTML <table> holding the cells with table_format html',
        text.slice(0, 300),
        ex,
      )
    },
  )
})
