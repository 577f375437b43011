/**
 * The generation phase's cases for one route, from its request schema: positive requests (the seed, then the seed
 * with optional stated fields added), negative ones (one stated constraint broken at a time, and a body that is not
 * JSON), and boundaries (both edges of every stated limit, every listed value). Pure and seeded: the same schema,
 * runs and seed give the same cases. Every case is checked against the schema before it is kept (validate.ts).
 */
import fc from 'fast-check'
import {
  constraintsOf,
  type Constraint,
  type Location,
  type RequestSchema,
  type SchemaNode,
} from '../../common/request-schemas.ts'
import { breaksOf } from './breaks.ts'
import { applyEdit, describeValue } from './edits.ts'
import { edgesOf } from './edges.ts'
import type { GenerateSettings } from './settings.ts'
import { failsOnlyAt, type Place, pointerIn, type RequestValue, violations } from './validate.ts'
import { mixSeed, sampleOne, seededOrder, typesOf, validValue } from './values.ts'

export type CaseKind = 'positive' | 'negative' | 'boundary'

export interface GeneratedCase {
  /** `negative-2`: its kind and place among the route's cases of that kind. */
  id: string
  kind: CaseKind
  route: string
  /** What the case sends, in a few words: the title of its test. */
  title: string
  request: RequestValue
  /** Sent as this text (as application/json) instead of the body: a body that is not JSON. */
  rawBody?: string
  /** The constraint a negative case breaks, or whose edge a boundary case takes. */
  constraint?: Constraint
  /** The keyword broken or at its edge (`maximum`, `required`, `type`), or `json` for a body that is not JSON. */
  keyword?: string
  /** Where the schema sees the broken constraint. */
  place?: Place
}

/** A body that is not JSON: an object cut off after its first member name. */
export const NOT_JSON = '{"model": "gateway-conformance", "input": '

/**
 * Whether the words state the refusal of what a case breaks: for a missing member or a constraint, as the schema
 * says; for a body that is not JSON, always (bodies are JSON, and §7 gives 400 invalid request).
 */
export function refusalStated(c: GeneratedCase): boolean {
  if (c.keyword === 'json') return true
  const node = c.constraint?.node
  return (c.keyword === 'required' ? node?.['x-required-refusal'] : c.constraint?.refusal) === 'stated'
}

/** The title of a route's seed request, its first positive case. */
export const SEED_TITLE = 'the seed request'

/** Optional fields a positive case leaves alone: ids of resources the case did not make. */
const RESOURCE_ID = /_id$/

/** Optional fields a positive case leaves alone, and why: values allowed but slower than any call's deadline. */
const LEFT_ALONE: Readonly<Record<string, string>> = {
  service_tier: 'flex "may time out up to 900 seconds" (Part 1 §4.5)',
}

/** Locations whose values travel as text: path and query parameters, and multipart form fields. */
function textOnly(schema: RequestSchema, location: Location): boolean {
  return location !== 'body' || schema['x-body'] === 'multipart'
}

/**
 * The seed as a request (x-seed), with every path parameter of the route present: the seed's value, or the
 * parameter's name in braces, which the suite fills from a set-up.
 */
export function seedRequest(schema: RequestSchema): RequestValue {
  const seed = structuredClone(schema['x-seed'] ?? {}) as RequestValue
  const out: RequestValue = {}
  const names = [...(schema['x-route'].split(' ')[1] ?? '').matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string)
  if (schema.properties.path !== undefined || names.length > 0)
    out.path = Object.fromEntries(names.map((name) => [name, seed.path?.[name] ?? `{${name}}`]))
  if (schema.properties.query !== undefined || seed.query !== undefined) out.query = seed.query ?? {}
  if (schema.properties.body !== undefined || seed.body !== undefined) out.body = seed.body ?? {}
  return out
}

/** Makes one valid value of a node for a breaker or an edge (the items of an array, the members of a map). */
function maker(seed: number): (node: SchemaNode) => unknown {
  return (node) => {
    const arb = validValue(node)
    return arb === undefined ? 'gc' : sampleOne(arb, seed)
  }
}

/** Up to `count` candidates: those of the first tier in the seed's order, then the next tier's. */
function pick<T>(tiers: T[][], count: number, seed: number): T[] {
  return tiers
    .flatMap((tier, i) => seededOrder(tier.length, mixSeed(seed, `tier${i}`)).map((j) => tier[j] as T))
    .slice(0, count)
}

/** An object or list whose members the schema does not describe: any value made up for it says nothing. */
function shapeless(node: SchemaNode): boolean {
  const types = typesOf(node).filter((t) => t !== 'null')
  if (types.length === 0 || node.enum !== undefined || node.const !== undefined) return false
  return types.every((t) =>
    t === 'object'
      ? node.properties === undefined && typeof node.additionalProperties !== 'object'
      : t === 'array' && (node.items === undefined || shapeless(node.items)),
  )
}

/** The optional stated fields of a location a positive case may add (not shapeless ones), with their arbitraries. */
function additions(
  schema: RequestSchema,
  location: Location,
  base: RequestValue,
): Record<string, fc.Arbitrary<unknown>> {
  const node = schema.properties[location]
  const present = (base[location] ?? {}) as Record<string, unknown>
  const out: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [name, child] of Object.entries(node?.properties ?? {})) {
    if (
      name in present ||
      node?.required?.includes(name) ||
      RESOURCE_ID.test(name) ||
      name in LEFT_ALONE ||
      child['x-quote'] === undefined ||
      child['x-when'] !== undefined
    )
      continue
    if (shapeless(child)) continue
    const arb = validValue(child)
    if (arb !== undefined) out[name] = arb
  }
  return out
}

function positives(schema: RequestSchema, base: RequestValue, settings: GenerateSettings): GeneratedCase[] {
  const route = schema['x-route']
  const kept: RequestValue[] = violations(schema, base).length === 0 ? [base] : []
  if (schema['x-shown'] !== false) {
    const query = additions(schema, 'query', base)
    const body = additions(schema, 'body', base)
    const arb = fc.record({
      query: fc.record(query, { requiredKeys: [] }),
      body: fc.record(body, { requiredKeys: [] }),
    })
    const seen = new Set(kept.map((r) => JSON.stringify(r)))
    for (const added of fc.sample(arb, {
      seed: mixSeed(settings.seed, `${route} positive`),
      numRuns: settings.runs * 4,
    })) {
      if (kept.length >= settings.runs) break
      const request = structuredClone(base)
      if (request.query !== undefined) Object.assign(request.query, added.query)
      if (typeof request.body === 'object' && request.body !== null) Object.assign(request.body, added.body)
      const key = JSON.stringify(request)
      if (seen.has(key) || violations(schema, request).length > 0) continue
      seen.add(key)
      kept.push(request)
    }
  }
  return kept.slice(0, settings.runs).map((request, i) => ({
    id: `positive-${i + 1}`,
    kind: 'positive',
    route,
    title: i === 0 && request === base ? SEED_TITLE : `the seed with ${addedWords(base, request)}`,
    request,
  }))
}

/** What a positive case added to the seed, in a few words. */
function addedWords(base: RequestValue, request: RequestValue): string {
  const words: string[] = []
  for (const location of ['query', 'body'] as const) {
    const before = (base[location] ?? {}) as Record<string, unknown>
    for (const [name, value] of Object.entries((request[location] ?? {}) as Record<string, unknown>))
      if (!(name in before)) words.push(`${location}.${name} ${describeValue(value)}`)
  }
  return words.length === 0 ? 'nothing added' : words.join(', ')
}

function negatives(
  schema: RequestSchema,
  base: RequestValue,
  constraints: Constraint[],
  settings: GenerateSettings,
): GeneratedCase[] {
  const make = maker(mixSeed(settings.seed, `${schema['x-route']} values`))
  const limits: GeneratedCase[] = []
  const types: GeneratedCase[] = []
  for (const constraint of constraints) {
    const pointerOf = (field: string) => pointerIn(schema, constraint.location, field)
    for (const broken of breaksOf(constraint, pointerOf, textOnly(schema, constraint.location), make)) {
      const request = applyEdit(base, broken.at, broken.edit)
      if (request === undefined || !failsOnlyAt(violations(schema, request), broken.place)) continue
      const c: GeneratedCase = {
        id: '',
        kind: 'negative',
        route: schema['x-route'],
        title: broken.what,
        request,
        constraint,
        keyword: broken.keyword,
        place: broken.place,
      }
      ;(broken.keyword === 'type' ? types : limits).push(c)
    }
  }
  return pick([limits, types], settings.runs, mixSeed(settings.seed, `${schema['x-route']} negative`))
}

function boundaries(
  schema: RequestSchema,
  base: RequestValue,
  constraints: Constraint[],
  settings: GenerateSettings,
): GeneratedCase[] {
  const make = maker(mixSeed(settings.seed, `${schema['x-route']} values`))
  const judged: GeneratedCase[] = []
  const rest: GeneratedCase[] = []
  for (const constraint of constraints) {
    const at = pointerIn(schema, constraint.location, constraint.field)
    for (const edge of edgesOf(constraint, textOnly(schema, constraint.location), make)) {
      const request = applyEdit(base, at, { op: 'set', value: edge.value })
      if (request === undefined || violations(schema, request).length > 0) continue
      const c: GeneratedCase = {
        id: '',
        kind: 'boundary',
        route: schema['x-route'],
        title: edge.what,
        request,
        constraint,
        keyword: edge.keyword,
      }
      // Edges a requirement judges come first: the others are filed nowhere (the suite leaves them out).
      ;(constraint.acceptedBy !== undefined ? judged : rest).push(c)
    }
  }
  return pick([judged, rest], settings.runs, mixSeed(settings.seed, `${schema['x-route']} boundary`))
}

/** Only where the seed has a body: a route whose body the words leave unstated (cancel) may ignore one. */
function notJson(schema: RequestSchema, base: RequestValue): GeneratedCase[] {
  if (schema['x-body'] !== 'json' || schema['x-seed']?.body === undefined) return []
  return [
    {
      id: '',
      kind: 'negative',
      route: schema['x-route'],
      title: 'a body that is not JSON (cut off), sent as application/json',
      request: base,
      rawBody: NOT_JSON,
      keyword: 'json',
    },
  ]
}

/**
 * The constraints the phase tries: those of one field of the path, query or body. Path parameters name resources
 * the suite makes (breaking one tries the set-up, not the route); a constraint inside a branch (`if`/`then`, one of
 * several alternatives) or a definition holds only where its branch applies, which these edits do not arrange; one
 * with `x-when` binds only where something the request does not show holds (the tools that take group B).
 */
function generated(constraint: Constraint): boolean {
  return (
    constraint.location !== 'path' &&
    constraint.when === undefined &&
    !constraint.field.includes(' (') &&
    !constraint.field.startsWith('$defs/')
  )
}

/**
 * Every case of one route: `runs` positive cases (the seed first), up to `runs` negative cases (stated limits
 * first, then wrong types) and a body that is not JSON, up to `runs` boundaries (those a requirement judges
 * first). A route whose request the reference does not show (x-shown false) gets its seed and the body that is not
 * JSON only. None when runs is 0.
 */
export function generateCases(schema: RequestSchema, settings: GenerateSettings): GeneratedCase[] {
  if (settings.runs <= 0) return []
  const base = seedRequest(schema)
  const shown = schema['x-shown'] !== false
  const constraints = shown ? constraintsOf(schema).filter(generated) : []
  const negative = [...(shown ? negatives(schema, base, constraints, settings) : []), ...notJson(schema, base)]
  const boundary = shown ? boundaries(schema, base, constraints, settings) : []
  const numbered = (cases: GeneratedCase[]) => cases.map((c, i) => ({ ...c, id: `${c.kind}-${i + 1}` }))
  return [...positives(schema, base, settings), ...numbered(negative), ...numbered(boundary)]
}
