/**
 * Annotations (Part 2 sections 2.3, 4.6): document_annotation_format of type text, json_object and json_schema;
 * document_annotation is returned as a string, JSON text for json_schema (a MUST); that it fits the schema sent, and
 * that json_object gives JSON of an object, are SHOULDs (the words do not state them).
 */
import { describe } from 'vitest'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { expectSetup, expectSuccess, expectThat, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { renderErrors } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { needDataUrl, ocr, testModels } from './documents.ts'

const api = target()

/** A strict schema of the kind structured extraction uses: every property required, nothing else allowed. */
const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    page_count: { type: 'integer' },
    keywords: { type: 'array', items: { type: 'string' } },
    language: { type: 'string', enum: ['en', 'other'] },
  },
  required: ['title', 'page_count', 'keywords', 'language'],
  additionalProperties: false,
}

function annotationOf(ex: Exchange): unknown {
  const body = ex.json
  return isObject(body) ? body.document_annotation : undefined
}

/** document_annotation parsed as JSON, or the reason it does not parse. */
function parsed(annotation: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(annotation) }
  } catch (error) {
    return { error: `${(error as Error).message}: ${annotation.slice(0, 200)}` }
  }
}

function seen(annotation: unknown): string {
  return annotation === undefined ? 'absent' : JSON.stringify(annotation).slice(0, 200)
}

const SCHEMA_FORMAT = { type: 'json_schema', json_schema: { name: 'document_facts', schema: SCHEMA } }

describe('document annotations (Part 2 §4.6)', () => {
  check(
    'P2-4.6-ocr-annotation-schema',
    'with a json_schema format, document_annotation is a string that parses as JSON',
    async () => {
      await needDataUrl()
      const ex = await ocr(api, await testModels(), { fields: { document_annotation_format: SCHEMA_FORMAT } })
      expectSuccess(ex, 'an OCR call with a json_schema document_annotation_format')
      const annotation = annotationOf(ex)
      expectThat(typeof annotation === 'string', 'document_annotation as a string (JSON text)', seen(annotation), ex)
      const json = parsed(annotation)
      expectThat('value' in json, 'document_annotation to parse as JSON', 'error' in json ? json.error : '', ex)
    },
  )

  check(
    'P2-4.6-ocr-annotation-schema-valid',
    'with a json_schema format, the parsed document_annotation is valid against the schema sent',
    async () => {
      await needDataUrl()
      const ex = await ocr(api, await testModels(), { fields: { document_annotation_format: SCHEMA_FORMAT } })
      expectSetup(ex, '2xx', 'an OCR call with a json_schema document_annotation_format')
      const annotation = annotationOf(ex)
      const json = typeof annotation === 'string' ? parsed(annotation) : undefined
      precondition(
        json !== undefined && 'value' in json,
        'P2-4.6-ocr-annotation-schema',
        `document_annotation is not JSON text: ${seen(annotation)}`,
      )
      const validate = new Ajv2020({ strict: false, allErrors: true }).compile(SCHEMA)
      expectThat(
        validate(json.value) === true,
        'the parsed document_annotation to be valid against the json_schema sent',
        renderErrors(validate.errors),
        ex,
      )
    },
  )

  check(
    'P2-4.6-ocr-annotation-formats',
    'with type text or json_object, document_annotation is present as a string',
    async () => {
      await needDataUrl()
      const models = await testModels()
      for (const type of ['text', 'json_object']) {
        const ex = await ocr(api, models, { fields: { document_annotation_format: { type } } })
        expectSuccess(ex, `document_annotation_format type ${type} is valid`)
        const annotation = annotationOf(ex)
        expectThat(
          typeof annotation === 'string',
          `document_annotation as a string with type ${type}`,
          seen(annotation),
          ex,
        )
      }
    },
  )

  check(
    'P2-4.6-ocr-annotation-json-object',
    'with type json_object, document_annotation is JSON text of an object',
    async () => {
      await needDataUrl()
      const ex = await ocr(api, await testModels(), { fields: { document_annotation_format: { type: 'json_object' } } })
      expectSetup(ex, '2xx', 'an OCR call with a json_object document_annotation_format')
      const annotation = annotationOf(ex)
      precondition(
        typeof annotation === 'string',
        'P2-4.6-ocr-annotation-formats',
        `document_annotation is not a string: ${seen(annotation)}`,
      )
      const json = parsed(annotation)
      expectThat(
        'value' in json && isObject(json.value),
        'document_annotation as JSON text of an object with type json_object',
        seen(annotation),
        ex,
      )
    },
  )
})
