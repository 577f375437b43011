/** The OCR endpoint of the reference gateway (Part 2 sections 2.3, 4.6). */
import { describe, expect, it } from 'vitest'
import { EXCHANGE_RATE } from '../../../gateway/account/accounts.ts'
import { readPdf } from '../../../gateway/ocr/pdf.ts'
import { REAL_NAMES } from '../../../gateway/variations.ts'
import { buildPdf, pdfDataUrl } from '../../../suites/ocr/pdf.ts'
import { testGateway } from './helpers.ts'

const gw = testGateway()
const post = (body: unknown, options: Parameters<typeof gw.call>[1] = {}) =>
  gw.call('/v1/ocr', { method: 'POST', body, ...options })

const PDF = buildPdf([
  {
    texts: [
      { x: 72, y: 760, text: 'HEAD' },
      { x: 72, y: 700, text: 'ONE (1)' },
      { x: 72, y: 30, text: 'FOOT' },
    ],
    imagePixels: 8,
  },
  { texts: [{ x: 72, y: 700, text: 'TWO' }], imagePixels: 32 },
  {
    texts: [
      { x: 72, y: 700, text: 'THREE' },
      { x: 72, y: 600, text: 'a' },
      { x: 272, y: 600, text: 'b' },
      { x: 72, y: 580, text: 'c' },
      { x: 272, y: 580, text: 'd' },
    ],
  },
])
const DOCUMENT = { type: 'document_url', document_url: pdfDataUrl(PDF) }

describe('reading PDFs', () => {
  it('finds the pages, their positioned text and their images', () => {
    const pages = readPdf(PDF)
    expect(pages).toHaveLength(3)
    expect(pages![0]!.text.map((t) => t.text)).toEqual(['HEAD', 'ONE (1)', 'FOOT'])
    expect(pages![1]!.images).toEqual([{ width: 32, height: 32 }])
    expect(readPdf(Buffer.from('not a pdf'))).toBeUndefined()
  })

  it('builds a cross-reference table whose offsets point at the objects', () => {
    const text = PDF.toString('latin1')
    const start = Number(/startxref\n(\d+)/.exec(text)![1])
    expect(text.slice(start, start + 4)).toBe('xref')
    const offsets = [...text.slice(start).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]))
    offsets.forEach((offset, i) => {
      expect(text.slice(offset, offset + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`)
    })
  })
})

describe('POST /v1/ocr', () => {
  it('answers pages with zero-based indices, the resolved model and object ocr', async () => {
    const response = await post({ model: 'gw-ocr-latest', document: DOCUMENT })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({
      model: 'gw-ocr-1',
      object: 'ocr',
      document_annotation: null,
      usage_info: { pages_processed: 3 },
    })
    expect(response.body.pages.map((p: { index: number }) => p.index)).toEqual([0, 1, 2])
    expect(response.body.pages[0].markdown).toBe('HEAD\n\nONE (1)\n\nFOOT')
    expect(gw.state.transactions.findById(response.id)?.record.model).toBe('gw-ocr-1')
    const some = await post({ model: 'gw-ocr-1', document: DOCUMENT, pages: [2, 1] })
    expect(
      some.body.pages.map((p: { index: number; markdown: string }) => [p.index, p.markdown.split('\n')[0]]),
    ).toEqual([
      [1, 'TWO'],
      [2, 'THREE'],
    ])
    expect((await post({ model: 'gw-ocr-1', document: DOCUMENT, pages: [3] })).status).toBe(400)
  })

  it('renders tables as markdown or html, and moves headers and footers out when asked', async () => {
    const markdown = await post({ model: 'gw-ocr-1', document: DOCUMENT, pages: [2] })
    expect(markdown.body.pages[0].markdown).toBe('THREE\n\n| a | b |\n| --- | --- |\n| c | d |')
    const html = await post({ model: 'gw-ocr-1', document: DOCUMENT, pages: [2], table_format: 'html' })
    expect(html.body.pages[0].markdown).toBe(
      'THREE\n\n<table><tr><th>a</th><th>b</th></tr><tr><td>c</td><td>d</td></tr></table>',
    )
    const split = await post({
      model: 'gw-ocr-1',
      document: DOCUMENT,
      pages: [0],
      extract_header: true,
      extract_footer: true,
    })
    expect(split.body.pages[0]).toMatchObject({ header: 'HEAD', footer: 'FOOT', markdown: 'ONE (1)' })
    expect((await post({ model: 'gw-ocr-1', document: DOCUMENT, table_format: 'csv' })).status).toBe(400)
  })

  it('answers images only when asked, within image_limit and image_min_size', async () => {
    const images = async (extra: Record<string, unknown>) => {
      const response = await post({ model: 'gw-ocr-1', document: DOCUMENT, include_image_base64: true, ...extra })
      return response.body.pages.flatMap((p: { images: Array<{ id: string; image_base64: string }> }) => p.images)
    }
    expect((await post({ model: 'gw-ocr-1', document: DOCUMENT })).body.pages[0].images).toBeUndefined()
    const all = await images({})
    expect(all.map((i: { id: string }) => i.id)).toEqual(['img-0.png', 'img-1.png'])
    expect(all[0].image_base64).toMatch(/^data:image\/png;base64,/)
    expect(await images({ image_limit: 1 })).toHaveLength(1)
    expect((await images({ image_min_size: 16 })).map((i: { id: string }) => i.id)).toEqual(['img-0.png'])
  })

  it('returns document_annotation as JSON text that fits the schema sent', async () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, n: { type: 'integer' } },
      required: ['title', 'n'],
      additionalProperties: false,
    }
    const response = await post({
      model: 'gw-ocr-1',
      document: DOCUMENT,
      document_annotation_format: { type: 'json_schema', json_schema: { name: 'facts', schema } },
    })
    const parsed = JSON.parse(response.body.document_annotation)
    expect(Object.keys(parsed).sort()).toEqual(['n', 'title'])
    expect(Number.isInteger(parsed.n)).toBe(true)
    const object = await post({
      model: 'gw-ocr-1',
      document: DOCUMENT,
      document_annotation_format: { type: 'json_object' },
    })
    expect(typeof JSON.parse(object.body.document_annotation)).toBe('object')
    expect(
      (await post({ model: 'gw-ocr-1', document: DOCUMENT, document_annotation_format: { type: 'xml' } })).status,
    ).toBe(400)
  })

  it('simulates URL documents (three pages) and images (one page), and refuses what it cannot read', async () => {
    const url = await post({
      model: 'gw-ocr-1',
      document: { type: 'document_url', document_url: 'https://docs.example.com/report.pdf' },
    })
    expect(url.body.pages).toHaveLength(3)
    const image = await post({
      model: 'gw-ocr-1',
      document: { type: 'image_url', image_url: 'https://docs.example.com/scan.png' },
    })
    expect(image.body.pages).toHaveLength(1)
    expect(
      (
        await post({
          model: 'gw-ocr-1',
          document: { type: 'document_url', document_url: 'data:application/pdf;base64,aGVsbG8=' },
        })
      ).status,
    ).toBe(400)
    expect((await post({ model: 'gw-ocr-1', document: { type: 'file', file: 'x' } })).status).toBe(400)
    expect((await post({ document: DOCUMENT })).status).toBe(400)
    expect((await post({ model: 'gw-chat-mini', document: DOCUMENT })).status).toBe(400)
    expect((await post({ model: 'gw-ocr-1', document: DOCUMENT }, { key: null })).status).toBe(401)
  })

  it('charges 0.004 USD a page, 0.005 an annotated page', async () => {
    const remaining = async () => (await gw.call('/user/v1/credit', { key: 'tier3' })).body.remaining_irt as number
    let before = await remaining()
    await post({ model: 'gw-ocr-1', document: DOCUMENT, pages: [0, 1] }, { key: 'tier3' })
    expect(before - (await remaining())).toBeCloseTo(2 * 0.004 * EXCHANGE_RATE, 3)
    before = await remaining()
    await post(
      { model: 'gw-ocr-1', document: DOCUMENT, document_annotation_format: { type: 'text' } },
      { key: 'tier3' },
    )
    expect(before - (await remaining())).toBeCloseTo(3 * 0.005 * EXCHANGE_RATE, 3)
  })
})

describe('OCR choices real providers make (gateway/variations.ts)', () => {
  const real = testGateway({ variations: ['real-names', 'ocr-provider-shape', 'ocr-tables-apart'] })
  const ocr = (body: unknown) => real.call('/v1/ocr', { method: 'POST', body })
  const maker = REAL_NAMES['<ocr_model>'] as string

  it("answers the OCR model under its maker's name only, and names it so, also for the latest alias", async () => {
    const byMaker = await ocr({ model: maker, document: DOCUMENT })
    expect(byMaker.status).toBe(200)
    expect(byMaker.body.model).toBe(maker)
    expect(real.state.transactions.findById(byMaker.id)?.record.model).toBe(maker)
    expect((await ocr({ model: 'gw-ocr-latest', document: DOCUMENT })).body.model).toBe(maker)
    const makerAlias = REAL_NAMES['<ocr_model>-latest'] as string
    expect((await ocr({ model: makerAlias, document: DOCUMENT })).body.model).toBe(maker)
    const neutral = await ocr({ model: 'gw-ocr-1', document: DOCUMENT })
    expect(neutral.status).toBe(404)
    expect(neutral.body.error.param).toBe('model')
  })

  it('ocr-alias-echoed: names the alias as asked; search-ocr-min-tier-3: refuses keys below tier 3 with 403', async () => {
    const gw = testGateway({ variations: ['ocr-alias-echoed', 'search-ocr-min-tier-3'] })
    const call = (body: unknown, key: 'tier3' | 'tier2') => gw.call('/v1/ocr', { method: 'POST', body, key })
    const viaAlias = await call({ model: 'gw-ocr-latest', document: DOCUMENT }, 'tier3')
    expect(viaAlias.status).toBe(200)
    expect(viaAlias.body.model).toBe('gw-ocr-latest')
    expect((await call({ model: 'gw-ocr-1', document: DOCUMENT }, 'tier3')).body.model).toBe('gw-ocr-1')
    expect((await call({ model: 'gw-ocr-1', document: DOCUMENT }, 'tier2')).status).toBe(403)
  })

  it('adds boxes, block classes and confidence, leaves document_annotation out without a format, and keeps tables apart', async () => {
    const plain = await ocr({ model: maker, document: DOCUMENT })
    expect('document_annotation' in plain.body).toBe(false)
    expect(plain.body.pages[0].blocks.length).toBeGreaterThan(0)
    const html = await ocr({ model: maker, document: DOCUMENT, table_format: 'html' })
    const withTable = html.body.pages.find((p: { tables?: unknown[] }) => p.tables !== undefined)
    expect(withTable.tables[0].content).toMatch(/^<table>/)
    expect(withTable.markdown).not.toMatch(/<table>/)
    expect(withTable.markdown).toContain(`[${withTable.tables[0].id}](${withTable.tables[0].id})`)
  })
})

describe('OCR faults', () => {
  it('ocr-pages-renumbered: the pages asked for, numbered by their place in the answer', async () => {
    const gw = testGateway({ faults: ['ocr-pages-renumbered'] })
    const answer = await gw.call('/v1/ocr', {
      method: 'POST',
      body: { model: 'gw-ocr-1', document: DOCUMENT, pages: [1, 2] },
    })
    expect(answer.body.pages.map((p: { index: number }) => p.index)).toEqual([0, 1])
    expect(answer.body.pages[0].markdown).toContain('TWO')
  })
})
