/**
 * A structured answer for response_format json_schema: a deterministic JSON value that validates against the
 * schema the caller sent, as a model with structured outputs would give. Covers what such schemas use: types
 * (one or several), required and optional properties, enum and const, nested objects and arrays with item and
 * length bounds, string lengths, number ranges, anyOf / oneOf / allOf, and local $ref into $defs or definitions.
 * Strings carry words of the simulated answer, so the content still reads as the model's.
 */

type Schema = Record<string, unknown>

const MAX_DEPTH = 12

export function valueForSchema(schema: unknown, words: readonly string[] = []): unknown {
  const state = { root: schema, words: words.length > 0 ? words : ['example'], next: 0 }
  return build(schema, state, 0)
}

interface BuildState {
  root: unknown
  words: readonly string[]
  next: number
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `#/$defs/name` and `#/definitions/name` against the root schema. */
function resolve(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#')) return {}
  let node: unknown = root
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'))
    node = isSchema(node) ? node[key] : undefined
  }
  return node ?? {}
}

function build(schema: unknown, state: BuildState, depth: number): unknown {
  if (!isSchema(schema) || depth > MAX_DEPTH) return null
  if (typeof schema.$ref === 'string') return build(resolve(schema.$ref, state.root), state, depth + 1)
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key]
    if (Array.isArray(options) && options.length > 0) {
      // The first option that is not null, so that the answer carries content.
      const pick = options.find((o) => !(isSchema(o) && o.type === 'null')) ?? options[0]
      return build(pick, state, depth + 1)
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return build(mergeAll(schema), state, depth + 1)
  switch (typeOf(schema)) {
    case 'string':
      return stringFor(schema, state)
    case 'integer':
      return numberFor(schema, true)
    case 'number':
      return numberFor(schema, false)
    case 'boolean':
      return true
    case 'null':
      return null
    case 'array':
      return arrayFor(schema, state, depth)
    default:
      return objectFor(schema, state, depth)
  }
}

function typeOf(schema: Schema): string {
  const type = schema.type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return String(type.find((t) => t !== 'null') ?? 'null')
  if (isSchema(schema.items) || schema.prefixItems !== undefined) return 'array'
  return 'object'
}

/** allOf of object schemas as one: their properties and required lists together. */
function mergeAll(schema: Schema): Schema {
  const parts = [schema, ...(schema.allOf as unknown[])].filter(isSchema)
  const properties: Record<string, unknown> = {}
  const required = new Set<string>()
  for (const part of parts) {
    if (isSchema(part.properties)) Object.assign(properties, part.properties)
    if (Array.isArray(part.required)) for (const name of part.required) if (typeof name === 'string') required.add(name)
  }
  const { allOf: _allOf, ...rest } = schema
  return { ...rest, type: 'object', properties, required: [...required] }
}

function stringFor(schema: Schema, state: BuildState): string {
  const format = schema.format
  if (format === 'date-time') return '2026-01-01T00:00:00Z'
  if (format === 'date') return '2026-01-01'
  if (format === 'email') return 'user@example.com'
  if (format === 'uri' || format === 'url') return 'https://example.com/'
  if (format === 'uuid') return '00000000-0000-4000-8000-000000000000'
  const word = state.words[state.next % state.words.length] ?? 'example'
  state.next += 1
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY
  const text = word.padEnd(min, 'x')
  return text.slice(0, Math.max(min, Math.min(max, text.length)))
}

function numberFor(schema: Schema, integer: boolean): number {
  const min =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + (integer ? 1 : 0.5)
        : undefined
  const max =
    typeof schema.maximum === 'number'
      ? schema.maximum
      : typeof schema.exclusiveMaximum === 'number'
        ? schema.exclusiveMaximum - (integer ? 1 : 0.5)
        : undefined
  let value = min ?? (max !== undefined ? Math.min(max, 1) : 1)
  if (integer) value = Math.ceil(value)
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0)
    value = Math.ceil(value / schema.multipleOf) * schema.multipleOf
  return value
}

function arrayFor(schema: Schema, state: BuildState, depth: number): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : []
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY
  // One item shows the shape; more only where minItems asks for them.
  const count = Math.min(max, Math.max(min, prefix.length, schema.items === false ? 0 : 1))
  return Array.from({ length: count }, (_, i) =>
    build(i < prefix.length ? prefix[i] : isSchema(schema.items) ? schema.items : {}, state, depth + 1),
  )
}

function objectFor(schema: Schema, state: BuildState, depth: number): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []
  // Every declared property (strict schemas require them all), and a required one the schema does not declare.
  const names = [...new Set([...Object.keys(properties), ...required])]
  const extra = isSchema(schema.additionalProperties) ? schema.additionalProperties : {}
  return Object.fromEntries(names.map((name) => [name, build(properties[name] ?? extra, state, depth + 1)]))
}
