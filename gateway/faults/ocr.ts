/** Faults of the OCR endpoint (Part 2 sections 2.3, 4.6, 5). See ../faults.ts for what a fault is. */
import type { FastifyRequest } from 'fastify'
import { isObject } from '../../common/json.ts'
import { readAnnotationFormat } from '../ocr/annotation.ts'
import { eachListed, onRoutes, type AnswerReshapes } from './answers.ts'
import type { FaultDefinition } from './definition.ts'

export const OCR_FAULTS = [
  { name: 'ocr-object-missing', breaks: ['P2-2.3-ocr-result'], description: 'OCR answers have no object field.' },
  {
    name: 'ocr-model-optional',
    breaks: ['P2-4.6-ocr-required-fields'],
    description: 'POST /v1/ocr without model is served by the OCR model instead of refused.',
  },
  {
    name: 'ocr-document-url-refused',
    breaks: ['P2-4.6-ocr-document-url'],
    description: 'An https URL in document_url is refused with 400 (data URLs still work).',
  },
  {
    name: 'ocr-image-url-refused',
    breaks: ['P2-4.6-ocr-image-url'],
    description: 'A document of type image_url is refused with 400.',
  },
  {
    name: 'ocr-data-url-refused',
    breaks: ['P2-4.6-ocr-data-url'],
    description: 'A Base64 data URL in document_url is refused with 400.',
  },
  {
    name: 'ocr-alias-unknown',
    breaks: ['P2-4.6-ocr-latest-alias'],
    description: 'The latest alias is listed in the catalogue but POST /v1/ocr answers 404 for it.',
  },
  {
    name: 'ocr-pages-one-based',
    breaks: ['P2-4.6-ocr-pages'],
    description: 'pages is read as one-based: pages [1, 2] answers the first and second pages, numbered 1 and 2.',
  },
  {
    name: 'ocr-pages-renumbered',
    breaks: ['P2-4.6-ocr-pages-index'],
    description: 'The pages asked for are answered, numbered from 0 in the answer instead of by their page index.',
  },
  {
    name: 'ocr-images-missing',
    breaks: ['P2-4.6-ocr-include-image-base64'],
    description: 'Pages carry no images array even with include_image_base64 true.',
  },
  {
    name: 'ocr-extract-header-refused',
    breaks: ['P2-4.6-ocr-optional-fields'],
    description: 'extract_header true is refused with 400.',
  },
  {
    name: 'ocr-annotation-object',
    breaks: ['P2-4.6-ocr-annotation-schema'],
    description: 'A json_schema document_annotation is answered as the JSON object itself, not as a JSON string.',
  },
  {
    name: 'ocr-annotation-schema-ignored',
    breaks: ['P2-4.6-ocr-annotation-schema-valid'],
    description:
      'A json_schema document_annotation_format is answered with a fixed JSON object that ignores the schema.',
  },
  {
    name: 'ocr-annotation-text-missing',
    breaks: ['P2-4.6-ocr-annotation-formats'],
    description: 'A document_annotation_format of type text gives no document_annotation.',
  },
  {
    name: 'ocr-annotation-json-object-prose',
    breaks: ['P2-4.6-ocr-annotation-json-object'],
    description: 'A json_object document_annotation is prose, not JSON text of an object.',
  },
  {
    name: 'ocr-key-not-required',
    breaks: ['P2-5.1-ocr-key-required'],
    description: 'POST /v1/ocr serves calls with no key or an unknown key (charged to no one).',
  },
  {
    name: 'ocr-table-format-ignored',
    breaks: ['P2-4.6-ocr-table-format'],
    description: 'Tables are always rendered as markdown, also with table_format html.',
  },
  {
    name: 'ocr-image-limit-ignored',
    breaks: ['P2-4.6-ocr-image-limits'],
    description: 'image_limit and image_min_size are accepted but every image of the document is answered.',
  },
  {
    name: 'ocr-values-unchecked',
    breaks: ['P2-4.6-ocr-invalid-values'],
    description: 'An unlisted table_format is accepted (and rendered as markdown).',
  },
  { name: 'ocr-not-charged', breaks: ['P2-4.6-ocr-cost'], description: 'OCR calls are not charged.' },
] as const satisfies readonly FaultDefinition[]

const OCR = 'POST /v1/ocr'

/** The type of document_annotation_format the call asked for, if any (the answer proves it valid). */
function annotationType(request: FastifyRequest): string | undefined {
  const body = isObject(request.body) ? request.body : {}
  return readAnnotationFormat(body.document_annotation_format, 'document_annotation_format')?.type
}

/** The OCR faults that only reshape an answer (./answers.ts); the others bend what is accepted, read or charged. */
export const OCR_ANSWER_RESHAPES: AnswerReshapes = {
  'ocr-images-missing': eachListed(OCR, ({ images: _images, ...page }) => page, 'pages'),
  'ocr-pages-renumbered': onRoutes([OCR], (answer) =>
    Array.isArray(answer.pages)
      ? { ...answer, pages: answer.pages.map((page, index) => (isObject(page) ? { ...page, index } : page)) }
      : answer,
  ),
  'ocr-object-missing': onRoutes([OCR], ({ object: _object, ...answer }) => answer),
  'ocr-annotation-text-missing': onRoutes([OCR], (answer, request) =>
    annotationType(request) === 'text' ? { ...answer, document_annotation: null } : answer,
  ),
  'ocr-annotation-object': onRoutes([OCR], (answer, request) =>
    annotationType(request) === 'json_schema' && typeof answer.document_annotation === 'string'
      ? { ...answer, document_annotation: JSON.parse(answer.document_annotation) }
      : answer,
  ),
  'ocr-annotation-json-object-prose': onRoutes([OCR], (answer, request) =>
    annotationType(request) === 'json_object'
      ? { ...answer, document_annotation: 'The document has three pages: ALPHA, BRAVO and CHARLIE.' }
      : answer,
  ),
  'ocr-annotation-schema-ignored': onRoutes([OCR], (answer, request) =>
    annotationType(request) === 'json_schema'
      ? { ...answer, document_annotation: JSON.stringify({ summary: 'fixed' }) }
      : answer,
  ),
}
