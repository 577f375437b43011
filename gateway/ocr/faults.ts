/** Faults of the OCR endpoint (Part 2 sections 2.3, 4.6, 5). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const OCR_FAULTS = [
  {
    name: 'ocr-malformed-json-500',
    breaks: ['P2-7-malformed-json'],
    description: 'POST /v1/ocr answers 500 instead of 400 to a body that is not valid JSON.',
  },
  { name: 'ocr-object-missing', breaks: ['P2-2.3-ocr-result'], description: 'OCR answers have no object field.' },
  {
    name: 'ocr-model-optional',
    breaks: ['P2-4.6-ocr-required-fields'],
    relaxes: ['P2-4.6-ocr-required-fields'],
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
    relaxes: ['P2-4.6-ocr-invalid-values'],
    description: 'An unlisted table_format is accepted (and rendered as markdown).',
  },
  { name: 'ocr-not-charged', breaks: ['P2-4.6-ocr-cost'], description: 'OCR calls are not charged.' },
] as const satisfies readonly FaultDefinition[]

/** The names of the ocr faults: what its rules and reshapes are typed by. */
export type OcrFault = (typeof OCR_FAULTS)[number]['name']
