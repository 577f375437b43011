/**
 * The response formats of OCR annotations (Part 2 section 4.6): {type: text} (the default, markdown),
 * {type: json_object} and {type: json_schema, json_schema: {name, schema}}. The document annotation is returned
 * as a string: for the JSON types, JSON text that parses, and for json_schema, a value that fits the schema that
 * was sent (the simulated model fills every property, as structured output of the responses endpoint does).
 */
import { invalidParameter } from '../errors.ts'
import { fillerFrom, valueFor } from '../responses/structured.ts'

export type AnnotationFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown> }

export function readAnnotationFormat(value: unknown, param: string): AnnotationFormat | undefined {
  // An object by the request schema, which leaves its json_schema's name and schema optional.
  if (value === undefined || value === null) return undefined
  const { type, json_schema: jsonSchema } = value as Record<string, unknown>
  if (type === undefined || type === 'text') return { type: 'text' }
  if (type === 'json_object') return { type: 'json_object' }
  if (type === 'json_schema') {
    const spec = typeof jsonSchema === 'object' && jsonSchema !== null ? (jsonSchema as Record<string, unknown>) : {}
    if (
      typeof spec.name !== 'string' ||
      spec.name === '' ||
      typeof spec.schema !== 'object' ||
      spec.schema === null ||
      Array.isArray(spec.schema)
    ) {
      throw invalidParameter(
        `${param}.json_schema`,
        `${param}.json_schema must be {name, schema} with a JSON Schema object.`,
      )
    }
    return { type: 'json_schema', name: spec.name, schema: spec.schema as Record<string, unknown> }
  }
  throw invalidParameter(`${param}.type`, `${param}.type must be text, json_object or json_schema.`)
}

/** The annotation of a text (a document's or an image's) in the asked format, as the string the answer carries. */
export function annotate(format: AnnotationFormat, text: string, pages: number): string {
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? []
  switch (format.type) {
    case 'text':
      return `**Summary** (${pages} page${pages === 1 ? '' : 's'}): ${words.slice(0, 24).join(' ')}`
    case 'json_object':
      return JSON.stringify({ pages, summary: words.slice(0, 24).join(' '), words: words.length })
    case 'json_schema':
      return JSON.stringify(valueFor(format.schema, fillerFrom(text || 'document')))
  }
}
