/**
 * Annotations (Part 2 sections 2.3, 4.6): document_annotation_format of type text, json_object and json_schema;
 * document_annotation is returned as a JSON string, which for json_schema must validate against the schema sent.
 */
import { describe } from 'vitest'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { expectStatus, expectThat } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { renderErrors } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/suite.ts'
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

describe('document annotations (Part 2 §4.6)', () => {
  check(
    'P2-4.6-ocr-annotation-schema',
    'with a json_schema format, document_annotation is a JSON string valid against the schema sent',
    async () => {
      await needDataUrl()
      const format = { type: 'json_schema', json_schema: { name: 'document_facts', schema: SCHEMA } }
      const ex = await ocr(api, await testModels(), { fields: { document_annotation_format: format } })
      expectStatus(ex, 200)
      const annotation = annotationOf(ex)
      expectThat(
        typeof annotation === 'string',
        'document_annotation as a string (JSON text)',
        `${annotation === undefined ? 'absent' : JSON.stringify(annotation).slice(0, 200)}`,
        ex,
      )
      let parsed: unknown
      try {
        parsed = JSON.parse(annotation)
      } catch (error) {
        expectThat(
          false,
          'document_annotation to parse as JSON',
          `${(error as Error).message}: ${annotation.slice(0, 200)}`,
          ex,
        )
      }
      const validate = new Ajv2020({ strict: false, allErrors: true }).compile(SCHEMA)
      expectThat(
        validate(parsed) === true,
        'the parsed document_annotation to be valid against the json_schema sent',
        renderErrors(validate.errors),
        ex,
      )
    },
  )

  check(
    'P2-4.6-ocr-annotation-formats',
    'with type text or json_object, document_annotation is a string; json_object parses as an object',
    async () => {
      await needDataUrl()
      const models = await testModels()
      const text = await ocr(api, models, { fields: { document_annotation_format: { type: 'text' } } })
      expectStatus(text, 200)
      expectThat(
        typeof annotationOf(text) === 'string',
        'document_annotation as a string with type text',
        JSON.stringify(annotationOf(text) ?? 'absent').slice(0, 200),
        text,
      )
      const object = await ocr(api, models, { fields: { document_annotation_format: { type: 'json_object' } } })
      expectStatus(object, 200)
      const annotation = annotationOf(object)
      let parsed: unknown
      try {
        parsed = typeof annotation === 'string' ? JSON.parse(annotation) : undefined
      } catch {
        parsed = undefined
      }
      expectThat(
        isObject(parsed),
        'document_annotation as JSON text of an object with type json_object',
        JSON.stringify(annotation ?? 'absent').slice(0, 200),
        object,
      )
    },
  )
})
