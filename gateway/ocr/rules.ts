/** OCR rules (Part 2 §4.6, §5), read by the route and the document reader. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { OcrFault } from './faults.ts'

export type OcrRules = Readonly<ReturnType<typeof ocrRules>>

export function ocrRules(faults: FaultSet) {
  const bent = bentBy<OcrFault>(faults)
  return {
    // Part 1 §7: a body that is not JSON is 400; the fault answers 500, as if the parse error escaped.
    malformedJsonAs400: !bent('ocr-malformed-json-500'),
    // Section 5: a call with no valid key is 401; the fault serves it, charged to no one.
    requireKey: !bent('ocr-key-not-required'),
    // The latest alias resolves to the OCR model; the fault answers 404 for it.
    servesLatestAlias: !bent('ocr-alias-unknown'),
    // document_url takes an https URL and a Base64 data URL, and image_url is a document type; each fault refuses one.
    takesDocumentUrl: !bent('ocr-document-url-refused'),
    takesDataUrl: !bent('ocr-data-url-refused'),
    takesImageUrl: !bent('ocr-image-url-refused'),
    // pages holds zero-based indices; the fault reads them one-based.
    pagesZeroBased: !bent('ocr-pages-one-based'),
    // extract_header is an optional field; the fault refuses it.
    takesExtractHeader: !bent('ocr-extract-header-refused'),
    // image_limit and image_min_size bound the images answered; the fault answers every image.
    honourImageLimits: !bent('ocr-image-limit-ignored'),
    // table_format html renders tables as HTML; the fault renders markdown whatever is asked.
    honourTableFormat: !bent('ocr-table-format-ignored'),
    // table_format is markdown or html; the fault takes any string (as markdown).
    checkTableFormat: !bent('ocr-values-unchecked'),
    // A call is charged per page read; the fault charges nothing.
    charge: !bent('ocr-not-charged'),
  }
}
