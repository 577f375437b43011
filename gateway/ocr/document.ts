/**
 * The document of an OCR request (Part 2 section 4.6): {type: document_url, document_url} or
 * {type: image_url, image_url}, where a Base64 data URL is accepted in document_url.
 *
 * The gateway has no network, so a document it would have to fetch is simulated, deterministically from its URL:
 * an http(s) URL in document_url is a three-page document (a heading, a paragraph, one image per page, a table on
 * the third page and a footer line), and an image URL is one page of text and no images. A data URL is read for
 * real: a PDF (application/pdf) gives its own pages, text and images (ocr/pdf.ts); an image (image/png, jpeg,
 * webp, gif) is one page. Anything else is 400.
 */
import { createHash } from 'node:crypto'
import { invalidParameter } from '../errors.ts'
import type { OcrRules } from './rules.ts'
import { readPdf, type PdfPage } from './pdf.ts'

export interface OcrDocument {
  readonly pages: PdfPage[]
  /** Size of the document in bytes (data URLs), or of the simulated download. */
  readonly bytes: number
}

const URL_DOCUMENT_PAGES = 3
const IMAGE_TYPES = /^image\/(png|jpe?g|webp|gif|avif|tiff?)$/

export function readDocument(document: unknown, rules: OcrRules): OcrDocument {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw invalidParameter(
      'document',
      'document is required: {type: "document_url", document_url} or {type: "image_url", image_url}.',
    )
  }
  const { type } = document as Record<string, unknown>
  if (type === 'document_url') {
    const url = urlField(document as Record<string, unknown>, 'document_url')
    if (url.startsWith('data:')) {
      if (!rules.takesDataUrl) throw invalidParameter('document.document_url', 'Data URLs are not accepted.')
      return fromDataUrl(url)
    }
    if (!rules.takesDocumentUrl)
      throw invalidParameter('document.document_url', 'document_url takes a Base64 data URL only.')
    return simulatedDocument(url)
  }
  if (type === 'image_url') {
    if (!rules.takesImageUrl) throw invalidParameter('document.type', 'document type image_url is not supported.')
    const url = urlField(document as Record<string, unknown>, 'image_url')
    if (url.startsWith('data:')) {
      const { mime, bytes } = decodeDataUrl(url, 'document.image_url')
      if (!IMAGE_TYPES.test(mime))
        throw invalidParameter('document.image_url', `A data URL of ${mime} is not an image.`)
      return { pages: [imagePage(`image ${digest(url)}`)], bytes: bytes.length }
    }
    return { pages: [imagePage(new URL(url).pathname.split('/').pop() || 'image')], bytes: 0 }
  }
  throw invalidParameter('document.type', 'document.type must be document_url or image_url.')
}

/** A URL string: http(s) or data (a string by the request schema, which refuses the convention's { url } form). */
function urlField(document: Record<string, unknown>, name: string): string {
  const value = document[name]
  if (typeof value !== 'string' || !/^(https?:\/\/[^\s/]+|data:)/i.test(value)) {
    throw invalidParameter(`document.${name}`, `document.${name} must be an http(s) URL or a Base64 data URL.`)
  }
  if (!value.startsWith('data:')) {
    try {
      new URL(value)
    } catch {
      throw invalidParameter(`document.${name}`, `document.${name} is not a valid URL.`)
    }
  }
  return value
}

function decodeDataUrl(url: string, param: string): { mime: string; bytes: Buffer } {
  const match = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(url)
  if (!match) throw invalidParameter(param, 'A data URL must be Base64: data:<type>;base64,<data>.')
  const bytes = Buffer.from((match[2] as string).replace(/\s+/g, ''), 'base64')
  if (bytes.length === 0) throw invalidParameter(param, 'The data URL holds no data.')
  return { mime: (match[1] as string).toLowerCase(), bytes }
}

function fromDataUrl(url: string): OcrDocument {
  const { mime, bytes } = decodeDataUrl(url, 'document.document_url')
  if (IMAGE_TYPES.test(mime)) return { pages: [imagePage(`image ${digest(url)}`)], bytes: bytes.length }
  if (mime !== 'application/pdf')
    throw invalidParameter(
      'document.document_url',
      `Documents of type ${mime} are not supported; send a PDF or an image.`,
    )
  const pages = readPdf(bytes)
  if (!pages) throw invalidParameter('document.document_url', 'The data is not a PDF that can be read.')
  return { pages, bytes: bytes.length }
}

function imagePage(name: string): PdfPage {
  return { text: [{ x: 72, y: 700, text: `Text read from ${name}` }], images: [], width: 612, height: 792 }
}

function simulatedDocument(url: string): OcrDocument {
  const { hostname, pathname } = new URL(url)
  const name = pathname.split('/').pop() || hostname
  const pages = Array.from({ length: URL_DOCUMENT_PAGES }, (_, i): PdfPage => {
    const text = [
      { x: 72, y: 740, text: `${name}, page ${i + 1}` },
      { x: 72, y: 700, text: `Simulated text of ${hostname} page ${i + 1} (${digest(`${url}#${i}`)}).` },
      { x: 72, y: 30, text: `Page ${i + 1} of ${URL_DOCUMENT_PAGES}` },
    ]
    if (i === URL_DOCUMENT_PAGES - 1) {
      text.push(
        { x: 72, y: 600, text: 'Item' },
        { x: 272, y: 600, text: 'Count' },
        { x: 72, y: 580, text: 'Pages' },
        { x: 272, y: 580, text: String(URL_DOCUMENT_PAGES) },
      )
    }
    return { text, images: [{ width: 200, height: 150 }], width: 612, height: 792 }
  })
  return { pages, bytes: 4096 * URL_DOCUMENT_PAGES }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8)
}
