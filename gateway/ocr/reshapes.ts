/** The ocr faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import type { FastifyRequest } from 'fastify'
import { isObject } from '../../common/json.ts'
import { readAnnotationFormat } from './annotation.ts'
import { eachListed, onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import type { OcrFault } from './faults.ts'

const OCR = 'POST /v1/ocr'

/** The type of document_annotation_format the call asked for, if any (the answer proves it valid). */
function annotationType(request: FastifyRequest): string | undefined {
  const body = isObject(request.body) ? request.body : {}
  return readAnnotationFormat(body.document_annotation_format, 'document_annotation_format')?.type
}

/**
 * The OCR faults that only reshape an answer (../faults/answers.ts); the others bend what is accepted, read or charged.
 */
export const OCR_ANSWER_RESHAPES: AnswerReshapes<OcrFault> = {
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
