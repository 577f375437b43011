/**
 * What the OCR tests share (Part 2 sections 2.3, 4.6): the test document, the OCR model and its latest alias from
 * the catalogue, one way to call POST /v1/ocr with its cost reserved first, and the basic call that tests of
 * other rules build on (precondition), so that a document form that fails is reported once, by its own rule.
 *
 * The test document is a three-page PDF built in code (pdf.ts) and sent as a Base64 data URL, which any target
 * can read without fetching: page 1 has a header line, ALPHA, a 128-pixel image and a footer line; page 2 has
 * BRAVO and another 128-pixel image; page 3 has CHARLIE and a two-column table (Fruit, Count; Apple, 3; Pear, 5).
 * Two public URLs (a one-page PDF and a PNG) serve the URL forms; a remote target fetches them, the reference
 * gateway simulates them. A target that says it could not fetch one is not judged on it (fetchFailure).
 */
import { expectSetup, is2xx, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import type { KeyUse } from '../../harness/exchange.ts'
import { KEY_ENV, type KeySlot } from '../../harness/keys.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { perFile, target, spend } from '../../harness/worker/suite.ts'
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

/** The largest image of the test PDF, in pixels a side: image_min_size above it leaves no image to extract. */
export const TEST_PDF_IMAGE_PIXELS = 128

const TEST_PDF = buildPdf([
  {
    texts: [
      { x: 72, y: 760, text: 'GC CONFORMANCE HEADER' },
      { x: 72, y: 700, text: PAGE_WORDS[0] },
      { x: 72, y: 30, text: 'GC FOOTER 1' },
    ],
    imagePixels: TEST_PDF_IMAGE_PIXELS,
  },
  { texts: [{ x: 72, y: 700, text: PAGE_WORDS[1] }], imagePixels: TEST_PDF_IMAGE_PIXELS },
  {
    texts: [
      { x: 72, y: 700, text: PAGE_WORDS[2] },
      ...TABLE.flatMap((row, r) => row.map((text, c) => ({ x: 72 + c * 200, y: 600 - r * 24, text }))),
    ],
  },
])
const TEST_PDF_PAGES = 3

const PDF_DOCUMENT = { type: 'document_url', document_url: pdfDataUrl(TEST_PDF) }
export const URL_DOCUMENT = {
  type: 'document_url',
  document_url: 'https://www.w3.org/WAI/ER/tests/xhtml/testfiles/resources/pdf/dummy.pdf',
}
export const IMAGE_DOCUMENT = { type: 'image_url', image_url: 'https://www.w3.org/Icons/w3c_home.png' }

/** How the reference writes the OCR model's id (neutralised: it holds a maker name), and the name its alias is given by. */
const OCR_MODEL = '<ocr_model>'
const OCR_ALIAS = '<ocr_model>-latest'

/** A document of unknown length (a URL) is estimated at this many pages. */
const URL_PAGES_ESTIMATE = 5

export interface OcrModels {
  /** <ocr_model>: the one the user named, else an OCR model of the catalogue whose id does not say latest. */
  model: string
  /** Whether the user named the model (GATEWAY_NAMES <ocr_model>=…, or GATEWAY_MODELS ocr=…). */
  named: boolean
  /** The latest alias: the one the user named (GATEWAY_NAMES <ocr_model>-latest=…), else a listed id with "latest". */
  alias: string | undefined
  /** The key the model is called with when it refused the main key with 403 (a model above its tier). */
  key?: KeySlot
}

/**
 * The OCR models of GET /v1/models; the reference names them only as <ocr_model> and "a latest alias". A model the
 * user names (GATEWAY_NAMES <ocr_model>=…, or GATEWAY_MODELS ocr=…) comes first, and so does a named alias.
 */
function ocrModels(api: TargetClient): () => Promise<OcrModels> {
  return memo(async () => {
    const ex = await api.get('/v1/models')
    expectSetup(ex, 200, 'the model list, to find the OCR model')
    const found = pickOcrModels(ex)
    if (typeof found === 'string') skipTest(found)
    return found
  })
}

/** The OCR model named by the user or listed in a GET /v1/models answer, or why there is none. */
function pickOcrModels(list: Exchange): OcrModels | string {
  const body = list.json
  const items = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.data) ? body.data : []
  const named = isNamed(OCR_MODEL) ? targetName(OCR_MODEL) : namedModel('ocr')
  const listed = items
    .filter((m): m is Record<string, unknown> => isObject(m) && m.mode === 'ocr' && typeof m.id === 'string')
    .map((m) => m.id as string)
  const listedAlias = listed.find((id) => /latest/i.test(id))
  const alias = isNamed(OCR_ALIAS) ? targetName(OCR_ALIAS) : listedAlias
  if (named !== undefined) return { model: named, named: true, alias }
  if (listed.length === 0)
    return `the catalogue lists no model of mode ocr; ${howToName('ocr')}, or ${howToNameId(OCR_MODEL)}`
  return { model: listed.find((id) => !/latest/i.test(id)) ?? (listedAlias as string), named: false, alias }
}

/**
 * The model a call without a valid key names: it needs none the target has, so the named or listed OCR model where
 * there is one, else the reference's own word for it (`known` false), and no model list is required.
 */
export async function keylessModels(api: TargetClient): Promise<{ models: OcrModels; known: boolean }> {
  const found = pickOcrModels(await api.get('/v1/models'))
  if (typeof found !== 'string') return { models: found, known: true }
  return { models: { model: targetName(OCR_MODEL), named: false, alias: undefined }, known: false }
}

/** How to name the OCR model, for a skip that needs one the target has. */
export function howToNameOcrModel(): string {
  return `${howToNameId(OCR_MODEL)}, or ${howToName('ocr')}`
}

/** The skip reason when no latest alias is named or listed. */
export function howToNameAlias(): string {
  return `the catalogue lists no OCR model id containing "latest", and the reference does not name the alias: ${howToNameId(OCR_ALIAS)}`
}

/** Keys to try, highest tier first, for an OCR model that refuses the main key with 403. */
const HIGHER_KEYS: readonly KeySlot[] = ['tier5', 'tier4', 'tier3', 'tier2', 'tier1']

/** A 400 or 404 that names the model (its id in the body, or param model): the target does not know that id. */
function unknownModel(ex: Exchange, model: string): boolean {
  if (ex.status !== 400 && ex.status !== 404) return false
  const error = isObject(ex.json) && isObject(ex.json.error) ? ex.json.error : undefined
  return error?.param === 'model' || ex.text.includes(model)
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
  const key = call.key !== undefined ? call.key : models.key
  if (key !== null && key !== 'invalid')
    spend(
      pages * (PRICES.page + (annotated ? PRICES.annotatedPage : 0)),
      `OCR of ${pages} page${pages === 1 ? '' : 's'}${annotated ? ', annotated' : ''}`,
    )
  const body: Record<string, unknown> = {
    ...(call.model === null ? {} : { model: call.model ?? models.model }),
    ...(call.document === null ? {} : { document }),
    ...fields,
  }
  return api.post('/v1/ocr', body, key === undefined ? {} : { key })
}

/**
 * The test PDF read by the OCR model, with the key it takes: the main key, or when the model answers that 403 (not
 * usable with it: Part 1 §1.5, a model has min_tier), the highest tier's key given. A model taken from the list
 * unnamed that the target does not know is no OCR model of the target's: the tests are skipped naming GATEWAY_NAMES.
 */
async function access(api: TargetClient, listed: OcrModels): Promise<{ models: OcrModels; basic: Exchange }> {
  const first = await ocr(api, listed, {})
  if (!listed.named && unknownModel(first, listed.model))
    skipTest(
      `the target does not know ${listed.model}, the OCR model its list shows (it answered ${first.status}); ${howToNameOcrModel()}`,
    )
  if (first.status !== 403) return { models: listed, basic: first }
  const higher = HIGHER_KEYS.find((slot) => api.hasKey(slot))
  if (higher === undefined)
    skipTest(
      `${listed.model} answered the main key 403 (not usable with it: a model above its tier, Part 1 §1.5 min_tier); give a key of a tier that may use it (${KEY_ENV.tier5})`,
    )
  const models = { ...listed, key: higher }
  const again = await ocr(api, models, {})
  if (again.status === 403)
    skipTest(`${listed.model} answered 403 to the main key and to ${higher}; give a key whose account may use it`)
  return { models, basic: again }
}

const fixtures = perFile(() => {
  const ready = memo(async () => access(target(), await ocrModels(target())()))
  return { models: async () => (await ready()).models, basic: async () => (await ready()).basic }
})

/** The OCR models the target lists, read once per file. */
export const testModels = () => fixtures().models()

/** The test PDF read by the OCR model, once per file: what tests of other rules need to work first. */
export const basic = () => fixtures().basic()

export async function needDataUrl(): Promise<void> {
  const ex = await basic()
  precondition(is2xx(ex), 'P2-4.6-ocr-data-url', `the test PDF as a data URL answered ${ex.status}`)
}

export type Page = { index: unknown; markdown: unknown; images?: unknown } & Record<string, unknown>

/** The pages of an answer; a test that reads them is skipped when the answer has no pages array of objects. */
export function pagesOf(ex: Exchange): Page[] {
  const body = ex.json
  const ok = isObject(body) && Array.isArray(body.pages) && body.pages.every(isObject)
  precondition(
    ok,
    'P2-2.3-ocr-result',
    `${ex.excerpt.method} ${ex.excerpt.path} did not answer an object with a pages array of objects`,
  )
  return (body as { pages: Page[] }).pages
}

export function isOcrAnswer(ex: Exchange): boolean {
  const body = ex.json
  return is2xx(ex) && isObject(body) && Array.isArray(body.pages)
}

/** A target's word that it could not get a document from its URL (not a refusal of the form). */
const FETCH_FAILED =
  /fetch|download|retriev|unreachable|could not (?:get|load|open|access|reach)|timed? ?out|ENOTFOUND|ECONN/i

/**
 * Skips the test when the target answered that it could not fetch `url` (its error says so, or a 502, 504 or 408):
 * the third-party host being down, or out of the target's reach, is no violation by the target. Whether the harness
 * itself reaches the URL is recorded in the reason.
 */
export async function skipOnFetchFailure(ex: Exchange, url: string): Promise<void> {
  if (is2xx(ex)) return
  if (![408, 502, 504].includes(ex.status) && !FETCH_FAILED.test(ex.text)) return
  let here: string
  try {
    here = `from the harness it answers ${(await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(5000) })).status}`
  } catch (error) {
    here = `the harness cannot reach it either (${(error as Error).message})`
  }
  skipTest(
    `the target could not fetch ${url} (it answered ${ex.status}: ${ex.text.slice(0, 160)}); ${here}. The document must be reachable from the target (docs/coverage.md, search and ocr)`,
  )
}
