/**
 * Valid values of a schema node as fast-check arbitraries: what a positive request adds to its seed. Small on
 * purpose (short strings, few items, numbers of two decimals), so a generated request is cheap for a paid target
 * and easy to read in a report; every value is checked against the schema afterwards (validate.ts), so an
 * arbitrary may be loose where the schema combines keywords.
 */
import fc from 'fast-check'
import type { SchemaNode } from '../../common/request-schemas.ts'

export const VALUE_LIMITS = {
  depth: 3, // nested objects and arrays generated at most this deep
  chars: 12, // a free string is at most this long
  items: 3, // an array or a map has at most this many members
  freeIntegerSpan: 16, // an integer with no stated maximum is at most its minimum plus this
  freeNumberSpan: 1, // likewise for a number
}

const ALNUM = [...'abcdefghijklmnopqrstuvwxyz0123456789']

/** The JSON types a node allows, as a list. */
export function typesOf(node: SchemaNode): string[] {
  if (node.type === undefined) return []
  return Array.isArray(node.type) ? node.type : [node.type]
}

/** The smallest and largest integer a node allows, before any default span is added. */
export function integerBounds(node: SchemaNode): { lo?: number; hi?: number } {
  const lo =
    node.minimum !== undefined
      ? Math.ceil(node.minimum)
      : node.exclusiveMinimum !== undefined
        ? Math.floor(node.exclusiveMinimum) + 1
        : undefined
  const hi =
    node.maximum !== undefined
      ? Math.floor(node.maximum)
      : node.exclusiveMaximum !== undefined
        ? Math.ceil(node.exclusiveMaximum) - 1
        : undefined
  return { ...(lo === undefined ? {} : { lo }), ...(hi === undefined ? {} : { hi }) }
}

/** A number a hundredth inside or outside an edge: the step of every generated number. */
export const NUMBER_STEP = 0.01
export const round2 = (n: number): number => Math.round(n * 100) / 100

const dates = fc.date({
  min: new Date('2024-01-01T00:00:00Z'),
  max: new Date('2026-12-31T00:00:00Z'),
  noInvalidDate: true,
})
const calendarDates = dates.map((d) => d.toISOString().slice(0, 10))

function stringValue(node: SchemaNode): fc.Arbitrary<unknown> | undefined {
  if (node.format === 'binary') return fc.constant('gateway-conformance')
  if (node.format === 'date') return calendarDates
  if (node.format === 'date-time') return dates.map((d) => d.toISOString())
  if (node.format === 'uri') return fc.constant('https://example.com/gateway-conformance')
  if (node.format !== undefined) return undefined
  const min = node.minLength ?? 0
  const max = Math.max(min, Math.min(node.maxLength ?? VALUE_LIMITS.chars, VALUE_LIMITS.chars))
  if (node.pattern !== undefined) {
    let pattern: RegExp
    try {
      pattern = new RegExp(node.pattern, 'u')
    } catch {
      return undefined
    }
    // A date written as the pattern asks (YYYY-MM-DD) is a real date, not digits that only look like one.
    if (pattern.test('2025-01-31')) return calendarDates.filter((d) => pattern.test(d))
    return fc.stringMatching(pattern).map((s) => (s.length > max ? s.slice(0, max) : s))
  }
  return fc.string({ unit: fc.constantFrom(...ALNUM), minLength: min, maxLength: max })
}

function integerValue(node: SchemaNode): fc.Arbitrary<unknown> | undefined {
  const { lo, hi } = integerBounds(node)
  const min = lo ?? (hi === undefined ? 0 : hi - VALUE_LIMITS.freeIntegerSpan)
  const max = hi ?? min + VALUE_LIMITS.freeIntegerSpan
  return min > max ? undefined : fc.integer({ min, max })
}

function numberValue(node: SchemaNode): fc.Arbitrary<unknown> | undefined {
  const lo = node.minimum ?? node.exclusiveMinimum
  const hi = node.maximum ?? node.exclusiveMaximum
  const min = lo ?? (hi === undefined ? 0 : hi - VALUE_LIMITS.freeNumberSpan)
  const max = hi ?? min + VALUE_LIMITS.freeNumberSpan
  const [from, to] = [Math.ceil(min * 100), Math.floor(max * 100)]
  if (from > to) return undefined
  return fc
    .integer({ min: from, max: to })
    .map((n) => n / 100)
    .filter(
      (v) =>
        (node.exclusiveMinimum === undefined || v > node.exclusiveMinimum) &&
        (node.exclusiveMaximum === undefined || v < node.exclusiveMaximum),
    )
}

function arrayValue(node: SchemaNode, depth: number): fc.Arbitrary<unknown> | undefined {
  const min = node.minItems ?? 0
  const item = node.items === undefined ? undefined : validValue(node.items, depth + 1)
  if (item === undefined) return min === 0 ? fc.constant([]) : undefined
  const max = Math.max(min, Math.min(node.maxItems ?? VALUE_LIMITS.items, VALUE_LIMITS.items))
  return fc.array(item, { minLength: min, maxLength: max })
}

function objectValue(node: SchemaNode, depth: number): fc.Arbitrary<unknown> | undefined {
  const required = new Set(node.required ?? [])
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const arb = validValue(child, depth + 1)
    if (arb !== undefined) model[name] = arb
    else if (required.has(name)) return undefined
  }
  const record = fc.record(model, { requiredKeys: [...required] })
  const extra = node.additionalProperties
  if (typeof extra !== 'object') return record
  const values = validValue(extra, depth + 1)
  if (values === undefined) return record
  const keyNode: SchemaNode = { type: 'string', minLength: 1, ...(node.propertyNames ?? {}) }
  const keys = stringValue(keyNode)
  if (keys === undefined) return record
  const maxKeys = Math.min(node.maxProperties ?? VALUE_LIMITS.items, VALUE_LIMITS.items)
  const minKeys = Math.min(node.minProperties ?? 0, maxKeys)
  return fc
    .tuple(record, fc.dictionary(keys as fc.Arbitrary<string>, values, { minKeys, maxKeys }))
    .map(([stated, map]) => ({ ...map, ...(stated as object) }))
}

function ofType(node: SchemaNode, type: string, depth: number): fc.Arbitrary<unknown> | undefined {
  switch (type) {
    case 'string':
      return stringValue(node)
    case 'integer':
      return integerValue(node)
    case 'number':
      return numberValue(node)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return depth >= VALUE_LIMITS.depth ? undefined : arrayValue(node, depth)
    case 'object':
      return depth >= VALUE_LIMITS.depth ? undefined : objectValue(node, depth)
    default:
      return undefined
  }
}

/**
 * Values the node allows, or undefined where none can be made (a format we do not know, a required member with no
 * value). Null, where allowed, is left out unless it is the only type: it stands for the default, which the seed
 * already shows.
 */
export function validValue(node: SchemaNode, depth = 0): fc.Arbitrary<unknown> | undefined {
  if (node.const !== undefined) return fc.constant(node.const)
  if (node.enum !== undefined) return node.enum.length === 0 ? undefined : fc.constantFrom(...node.enum)
  const alternatives = node.oneOf ?? node.anyOf
  if (alternatives !== undefined) {
    const { oneOf: _one, anyOf: _any, ...rest } = node
    const arbs = alternatives
      .map((alt) => validValue({ ...rest, ...alt }, depth))
      .filter((a): a is fc.Arbitrary<unknown> => a !== undefined)
    return arbs.length === 0 ? undefined : fc.oneof(...arbs)
  }
  const types = typesOf(node)
  const wanted = types.length > 1 ? types.filter((t) => t !== 'null') : types
  const arbs = wanted.map((t) => ofType(node, t, depth)).filter((a): a is fc.Arbitrary<unknown> => a !== undefined)
  const samples = [...(node.examples ?? []), ...(node.default === undefined ? [] : [node.default])]
  if (samples.length > 0) arbs.push(fc.constantFrom(...samples))
  return arbs.length === 0 ? undefined : fc.oneof(...arbs)
}

/** One value of an arbitrary, the same for the same seed. */
export function sampleOne<T>(arb: fc.Arbitrary<T>, seed: number): T {
  return fc.sample(arb, { seed, numRuns: 1 })[0] as T
}

/** The order in which a seed visits `count` candidates: a permutation of their indexes. */
export function seededOrder(count: number, seed: number): number[] {
  if (count === 0) return []
  const indexes = Array.from({ length: count }, (_, i) => i)
  return sampleOne(fc.shuffledSubarray(indexes, { minLength: count, maxLength: count }), seed)
}

/** A seed of its own for each route and phase, from the run's seed: the same cases for the same seed. */
export function mixSeed(seed: number, salt: string): number {
  let hash = 2166136261 ^ seed
  for (let i = 0; i < salt.length; i += 1) hash = Math.imul(hash ^ salt.charCodeAt(i), 16777619)
  return hash >>> 0
}
