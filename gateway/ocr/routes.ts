/**
 * OCR (Part 2 sections 2.3, 4.6): POST /v1/ocr reads a document (ocr/document.ts: URLs simulated, data URLs read
 * for real) and answers its pages as markdown, with images, annotations, headers and footers as asked. The
 * latest alias resolves to the OCR model, which the answer and the transaction name. A call is charged when the
 * pages are read: 0.004 USD per page, or 0.005 per page when an annotation format is given (the reference
 * prices an "annotated page" without saying whether it also costs the extraction; this gateway charges the
 * higher price alone).
 *
 * Where the reference is silent: pages must be a non-empty array of existing zero-based indices (else 400), in
 * the order of the document; images are answered only with include_image_base64; image_limit counts images of the
 * whole answer and image_min_size the smaller side in pixels; object is "ocr"; usage_info and each page's
 * dimensions follow the widely used OCR convention; document_annotation is null without a format.
 *
 * Under the real-names variation the OCR model answers to its maker's name (REAL_NAMES['<ocr_model>']) and no longer
 * to gw-ocr-1, and the answers name it so; the latest alias answers to its maker's name too, and to the listed one. The other choices real providers make where the reference is silent are in ./variations.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { chargeUsd } from '../account/billing.ts'
import { TINY_PNG_BASE64 } from '../compatible/simulate.ts'
import { requireCaller, type AuthPolicy, type Caller, type RequestContext } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { parseErrorsAs500 } from '../fallbacks.ts'
import { objectBody, requireModelId, requireTier, resolveModel } from '../models/access.ts'
import { annotate, readAnnotationFormat, type AnnotationFormat } from './annotation.ts'
import { readDocument, type OcrDocument } from './document.ts'
import type { PdfPage } from './pdf.ts'
import { renderPage, type TableFormat } from './render.ts'
import type { GatewayState } from '../state.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { OCR_ANSWER_RESHAPES } from './reshapes.ts'
import { REAL_NAMES } from '../variations.ts'
import { ocrRules, type OcrRules } from './rules.ts'
import { ocrTier, providerAnswer } from './variations.ts'

/** The OCR model (<ocr_model>) and its latest alias. */
export const OCR_MODEL = 'gw-ocr-1'
const OCR_LATEST = 'gw-ocr-latest'
export const OCR_ALIASES: Readonly<Record<string, string>> = { [OCR_LATEST]: OCR_MODEL }

export const OCR_PRICES = { usdPerPage: 0.004, usdPerAnnotatedPage: 0.005 } // section 4.6

const DPI = 200

export function registerOcrRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, OCR_ANSWER_RESHAPES)
    registerRoutes(scope, state, ocrRules(state.faults))
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState, rules: OcrRules): void {
  const { variations } = state
  // As in search/routes.ts: without the key rule, calls without a valid key get through ("optional", the
  // unknown-route policy).
  const config = {
    ...(rules.requireKey ? {} : { config: { auth: 'optional' as AuthPolicy } }),
    ...(rules.malformedJsonAs400 ? {} : parseErrorsAs500(state)),
  }

  app.post('/v1/ocr', config, async (request: FastifyRequest) => {
    const context = state.contexts.of(request)
    const caller: Caller | null = rules.requireKey ? requireCaller(context) : context.caller
    const body = objectBody(request.body)
    const { named, resolved } = resolveOcrModel(body, context, caller, rules, variations)
    context.model = resolved
    if (body.document === undefined) throw invalidParameter('document', 'document is required.')
    const document = readDocument(body.document, rules)
    const options = readOptions(body, document, rules)
    const pages = readPages(document, options, rules)

    const documentAnnotation = options.documentFormat
      ? annotate(options.documentFormat, pages.map((page) => page.markdown).join('\n'), pages.length)
      : null
    const annotated = options.documentFormat !== undefined || options.bboxFormat !== undefined
    const usd = pages.length * (annotated ? OCR_PRICES.usdPerAnnotatedPage : OCR_PRICES.usdPerPage)
    if (caller && rules.charge) chargeUsd(caller.account, usd)
    const answer = {
      pages,
      model: resolved,
      object: 'ocr',
      document_annotation: documentAnnotation,
      usage_info: { pages_processed: pages.length, doc_size_bytes: document.bytes },
    }
    return providerAnswer(answer, { tableFormat: options.tableFormat, asked: named }, variations)
  })
}

/**
 * The model a call names (`named`, as the caller wrote it) and the one that serves it (`resolved`, as the answer
 * and the transaction name it), refused when it is unknown, of another mode or above the caller's tier.
 */
function resolveOcrModel(
  body: Record<string, unknown>,
  context: RequestContext,
  caller: Caller | null,
  rules: OcrRules,
  variations: GatewayState['variations'],
): { named: string; resolved: string } {
  const makerName = variations.has('real-names') ? REAL_NAMES['<ocr_model>'] : undefined
  const makerAlias = variations.has('real-names') ? REAL_NAMES['<ocr_model>-latest'] : undefined
  // The request schema requires model; only a fault that lifts that lets a call without one through.
  const named = body.model === undefined ? OCR_MODEL : requireModelId(body)
  // With makers' names the neutral id is unknown, as on a real gateway; the listed alias still resolves.
  if (makerName !== undefined && body.model === OCR_MODEL)
    throw new GatewayError(404, `The model '${OCR_MODEL}' does not exist.`, {
      code: 'model_not_found',
      param: 'model',
    })
  const asked = named === makerName ? OCR_MODEL : named === makerAlias ? OCR_LATEST : named
  if (asked in OCR_ALIASES && !rules.servesLatestAlias)
    throw new GatewayError(404, `The model '${asked}' does not exist.`, { code: 'model_not_found', param: 'model' })
  const model = resolveModel(asked, context, { modes: ['ocr'], endpoint: 'OCR' })
  if (caller) requireTier(ocrTier(model, variations), caller)
  const served = OCR_ALIASES[asked] ?? asked
  return { named, resolved: served === OCR_MODEL && makerName !== undefined ? makerName : served }
}

/** What a call asks of the pages it reads, each field checked in the order the reference lists them. */
interface OcrOptions {
  readonly selected: number[]
  /** pages was given: only then does an index name a page the caller chose. */
  readonly pagesGiven: boolean
  readonly includeImages: boolean
  readonly imageLimit: number | undefined
  readonly imageMinSize: number | undefined
  readonly documentFormat: AnnotationFormat | undefined
  readonly bboxFormat: AnnotationFormat | undefined
  readonly extractHeader: boolean
  readonly extractFooter: boolean
  readonly tableFormat: TableFormat
}

function readOptions(body: Record<string, unknown>, document: OcrDocument, rules: OcrRules): OcrOptions {
  const selected = pageIndices(body.pages, document.pages.length)
  const includeImages = body.include_image_base64 === true
  const imageLimit = optionalInteger(body, 'image_limit')
  const imageMinSize = optionalInteger(body, 'image_min_size')
  const documentFormat = readAnnotationFormat(body.document_annotation_format, 'document_annotation_format')
  const bboxFormat = readAnnotationFormat(body.bbox_annotation_format, 'bbox_annotation_format')
  const extractHeader = body.extract_header === true
  if (extractHeader && !rules.takesExtractHeader)
    throw invalidParameter('extract_header', 'extract_header is not supported.')
  const extractFooter = body.extract_footer === true
  const tableFormat = readTableFormat(body.table_format, rules)
  return {
    selected,
    pagesGiven: body.pages !== undefined,
    includeImages,
    imageLimit,
    imageMinSize,
    documentFormat,
    bboxFormat,
    extractHeader,
    extractFooter,
    tableFormat,
  }
}

/** The pages asked for, rendered; image_limit counts the images of the whole answer. */
function readPages(document: OcrDocument, options: OcrOptions, rules: OcrRules) {
  const taken = { images: 0 }
  return options.selected.map((index) => {
    // Read one-based, index k is the k-th page (k - 1 zero-based), still numbered k.
    const page = document.pages[!rules.pagesZeroBased && options.pagesGiven ? index - 1 : index]
    if (!page) throw invalidParameter('pages', `Page ${index} does not exist.`)
    const images = options.includeImages ? pageImages(page, options, rules, taken) : []
    const rendered = renderPage(
      page,
      {
        tableFormat: rules.honourTableFormat ? options.tableFormat : 'markdown',
        extractHeader: options.extractHeader,
        extractFooter: options.extractFooter,
      },
      images.map((image) => image.id),
    )
    return {
      index,
      markdown: rendered.markdown,
      ...(options.includeImages ? { images } : {}),
      ...(options.extractHeader ? { header: rendered.header } : {}),
      ...(options.extractFooter ? { footer: rendered.footer } : {}),
      dimensions: {
        dpi: DPI,
        height: Math.round((page.height / 72) * DPI),
        width: Math.round((page.width / 72) * DPI),
      },
    }
  })
}

/** The images of one page that image_min_size and what is left of image_limit keep, numbered across the answer. */
function pageImages(page: PdfPage, options: OcrOptions, rules: OcrRules, taken: { images: number }) {
  const { imageLimit, imageMinSize } = options
  return page.images
    .filter(
      (image) =>
        !rules.honourImageLimits || imageMinSize === undefined || Math.min(image.width, image.height) >= imageMinSize,
    )
    .filter(() => !rules.honourImageLimits || imageLimit === undefined || taken.images < imageLimit)
    .map((image, i) => {
      taken.images += 1
      const id = `img-${taken.images - 1}.png`
      const box = {
        top_left_x: 72,
        top_left_y: 100 + i * 10,
        bottom_right_x: 72 + image.width,
        bottom_right_y: 100 + i * 10 + image.height,
      }
      return {
        id,
        ...box,
        image_base64: `data:image/png;base64,${TINY_PNG_BASE64}`,
        ...(options.bboxFormat ? { image_annotation: annotate(options.bboxFormat, id, 1) } : {}),
      }
    })
}

function readTableFormat(value: unknown, rules: OcrRules): TableFormat {
  if (value === undefined || value === null) return 'markdown'
  if (value === 'markdown' || value === 'html') return value
  if (!rules.checkTableFormat && typeof value === 'string') return 'markdown'
  throw invalidParameter('table_format', 'table_format must be markdown or html.')
}

/** Zero-based indices, each once, in document order; all pages when omitted. */
function pageIndices(value: unknown, count: number): number[] {
  if (value === undefined || value === null) return Array.from({ length: count }, (_, i) => i)
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => Number.isInteger(v) && (v as number) >= 0)) {
    throw invalidParameter('pages', 'pages must be a non-empty array of zero-based page indices.')
  }
  return [...new Set(value as number[])].sort((a, b) => a - b)
}

/** An integer by the request schema, which leaves its sign open: a count or a size is not negative. */
function optionalInteger(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name] as number | undefined
  if (value === undefined) return undefined
  if (value < 0) throw invalidParameter(name, `${name} must be a non-negative integer.`)
  return value
}
