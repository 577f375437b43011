/**
 * What the OCR tests share (Part 2 sections 2.3, 4.6): the test document, the OCR model and its latest alias from
 * the catalogue, one way to call POST /v1/ocr with its cost reserved first, and the basic call that tests of
 * other rules build on (precondition), so that a document form that fails is reported once, by its own rule.
 *
 * The test document is a three-page PDF built in code (pdf.ts) and sent as a Base64 data URL, which any target
 * can read without fetching: page 1 has a header line, ALPHA, an 8-pixel image and a footer line; page 2 has
 * BRAVO and another 8-pixel image; page 3 has CHARLIE and a two-column table (Fruit, Count; Apple, 3; Pear, 5).
 * Two public URLs (a one-page PDF and a PNG) serve the URL forms; a remote target fetches them, the reference
 * gateway simulates them.
 */
import { expectSetup, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/http-client.ts'
import type { KeyUse } from '../../harness/exchange.ts'
import { skipTest } from '../../harness/recorder.ts'
import { perFile, target, spend } from '../../harness/suite.ts'
import { buildPdf, pdfDataUrl } from './pdf.ts'
import { howToName, namedModel } from '../shared/named-models.ts'
import { howToNameId, isNamed, targetName } from '../shared/names.ts'

/** Section 4.6: 0.004 USD per extracted page, 0.005 per annotated page; an estimate counts both, to stay high. */
export const PRICES = { page: 0.004, annotatedPage: 0.005 }

export const PAGE_WORDS = ['ALPHA', 'BRAVO', 'CHARLIE'] as const
export const TABLE = [
  ['Fruit', 'Count'],
  ['Apple', '3'],
  ['Pear', '5'],
]

const TEST_PDF = buildPdf([
  {
    texts: [
      { x: 72, y: 760, text: 'GC CONFORMANCE HEADER' },
      { x: 72, y: 700, text: PAGE_WORDS[0] },
      { x: 72, y: 30, text: 'GC FOOTER 1' },
    ],
    imagePixels: 8,
  },
  { texts: [{ x: 72, y: 700, text: PAGE_WORDS[1] }], imagePixels: 8 },
  {
    texts: [
      { x: 72, y: 700, text: PAGE_WORDS[2] },
      ...TABLE.flatMap((row, r) => row.map((text, c) => ({ x: 72 + c * 200, y: 600 - r * 24, text }))),
    ],
  },
])
const TEST_PDF_PAGES = 3
/** The largest image of the test PDF, in pixels a side: image_min_size above it leaves no image to extract. */
export const TEST_PDF_IMAGE_PIXELS = 8

const PDF_DOCUMENT = { type: 'document_url', document_url: pdfDataUrl(TEST_PDF) }
export const URL_DOCUMENT = {
  type: 'document_url',
  document_url: 'https://www.w3.org/WAI/ER/tests/xhtml/testfiles/resources/pdf/dummy.pdf',
}
export const IMAGE_DOCUMENT = { type: 'image_url', image_url: 'https://www.w3.org/Icons/w3c_home.png' }

/** How the reference writes the OCR model's id (neutralised: it holds a maker name). */
const OCR_MODEL = '<ocr_model>'

/** A document of unknown length (a URL) is estimated at this many pages. */
const URL_PAGES_ESTIMATE = 5

interface OcrModels {
  /** <ocr_model>: an OCR model of the catalogue whose id does not say latest (else the alias itself). */
  model: string
  /** The latest alias, when the catalogue lists an OCR model id containing "latest". */
  alias: string | undefined
}

/**
 * The OCR models of GET /v1/models; the reference names them only as <ocr_model> and "a latest alias". A model the
 * user names (GATEWAY_NAMES <ocr_model>=…, or GATEWAY_MODELS ocr=…) comes first.
 */
function ocrModels(api: TargetClient): () => Promise<OcrModels> {
  return memo(async () => {
    const ex = await api.get('/v1/models')
    expectSetup(ex, 200, 'the model list, to find the OCR model')
    const body = ex.json
    const items = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.data) ? body.data : []
    const named = isNamed(OCR_MODEL) ? targetName(OCR_MODEL) : namedModel('ocr')
    const listed = items
      .filter((m): m is Record<string, unknown> => isObject(m) && m.mode === 'ocr' && typeof m.id === 'string')
      .map((m) => m.id as string)
    const ids = named === undefined ? listed : [named, ...listed.filter((id) => id !== named)]
    if (ids.length === 0)
      skipTest(`the catalogue lists no model of mode ocr; ${howToName('ocr')}, or ${howToNameId(OCR_MODEL)}`)
    if (named !== undefined) return { model: named, alias: listed.find((id) => /latest/i.test(id)) }
    const alias = ids.find((id) => /latest/i.test(id))
    return { model: ids.find((id) => !/latest/i.test(id)) ?? (alias as string), alias }
  })
}

interface OcrCall {
  model?: string | null
  document?: unknown
  /** Other fields of the body. */
  fields?: Record<string, unknown>
  key?: KeyUse
  /** Pages the answer may hold, for the estimate (default: the test PDF's, or those asked). */
  pages?: number
}

/** POST /v1/ocr with the cost reserved first: pages times the price, annotated ones at both prices. */
export async function ocr(api: TargetClient, models: OcrModels, call: OcrCall): Promise<Exchange> {
  const document = call.document === undefined ? PDF_DOCUMENT : call.document
  const fields = call.fields ?? {}
  const asked = Array.isArray(fields.pages) ? fields.pages.length : undefined
  const pages =
    call.pages ??
    asked ??
    (document === PDF_DOCUMENT ? TEST_PDF_PAGES : document === IMAGE_DOCUMENT ? 1 : URL_PAGES_ESTIMATE)
  const annotated = fields.document_annotation_format !== undefined || fields.bbox_annotation_format !== undefined
  if (call.key !== null && call.key !== 'invalid')
    spend(
      pages * (PRICES.page + (annotated ? PRICES.annotatedPage : 0)),
      `OCR of ${pages} page${pages === 1 ? '' : 's'}${annotated ? ', annotated' : ''}`,
    )
  const body: Record<string, unknown> = {
    ...(call.model === null ? {} : { model: call.model ?? models.model }),
    ...(call.document === null ? {} : { document }),
    ...fields,
  }
  return api.post('/v1/ocr', body, call.key === undefined ? {} : { key: call.key })
}

const fixtures = perFile(() => {
  const models = memo(() => ocrModels(target())())
  return { models, basic: memo(async () => ocr(target(), await models(), {})) }
})

/** The OCR models the target lists, read once per file. */
export const testModels = () => fixtures().models()

/** The test PDF read by the OCR model, once per file: what tests of other rules need to work first. */
export const basic = () => fixtures().basic()

export async function needDataUrl(): Promise<void> {
  const ex = await basic()
  precondition(ex.status === 200, 'P2-4.6-ocr-data-url', `the test PDF as a data URL answered ${ex.status}`)
}

export type Page = { index: unknown; markdown: unknown; images?: unknown } & Record<string, unknown>

/** The pages of an answer; a test that reads them is skipped when the answer has no pages array of objects. */
export function pagesOf(ex: Exchange): Page[] {
  const body = ex.json
  const ok = isObject(body) && Array.isArray(body.pages) && body.pages.every(isObject)
  precondition(
    ok,
    'P2-2.3-ocr-result',
    `${ex.record.method} ${ex.record.path} did not answer an object with a pages array of objects`,
  )
  return (body as { pages: Page[] }).pages
}

export function isOcrAnswer(ex: Exchange): boolean {
  const body = ex.json
  return ex.status === 200 && isObject(body) && Array.isArray(body.pages)
}
