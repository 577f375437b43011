/**
 * The request schemas (`schemas/<family>/requests/*.json`): for each route of the reference, its path and query
 * parameters and its body as JSON Schema (draft 2020-12), every constraint with the words it rests on. Read by the
 * reference gateway (what it enforces), the harness (what the generation phase sends, what the OpenAPI document
 * says) and the self-tests (every quote is in the reference). The annotations are the `x-` keywords below.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const SCHEMAS_DIR = fileURLToPath(new URL('../schemas/', import.meta.url))

/** Whether the quoted words state a refusal past the constraint (the catalogue's rule: a range alone does not). */
export type Refusal = 'stated' | 'unstated'

/** The annotations a request schema may carry; the schema registry teaches them to Ajv as keywords that judge nothing. */
export const REQUEST_SCHEMA_KEYWORDS = [
  // On the request: its route, where the reference states it, the body's form, the named model its `model` field
  // takes (a key of GATEWAY_MODELS), whether the reference shows the request at all, and one valid request.
  'x-route',
  'x-part',
  'x-section',
  'x-body',
  'x-model',
  'x-shown',
  'x-seed',
  // On a parameter or field: the words, and what they state past the constraint.
  'x-quote',
  'x-refusal',
  'x-accepted-by',
  'x-refused-by',
  // Where a constraint binds only when something the reference does not show holds (the tools of group B, the
  // alternate format): the words that say so. Stated, so quoted and documented, but never generated.
  'x-when',
  // On a parameter or field the words say is ignored when another is given: the names of those others.
  'x-ignored-with',
  // On an object with `required`: the same for its required members.
  'x-required-quote',
  'x-required-refusal',
  'x-required-refused-by',
] as const

export type BodyForm = 'json' | 'multipart' | 'none'

/** A schema node as this module reads it: JSON Schema plus the annotations above. */
export interface SchemaNode {
  type?: string | string[]
  properties?: Record<string, SchemaNode>
  required?: string[]
  items?: SchemaNode
  enum?: unknown[]
  const?: unknown
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  minProperties?: number
  maxProperties?: number
  pattern?: string
  format?: string
  default?: unknown
  examples?: unknown[]
  oneOf?: SchemaNode[]
  anyOf?: SchemaNode[]
  additionalProperties?: boolean | SchemaNode
  propertyNames?: SchemaNode
  'x-quote'?: string
  'x-refusal'?: Refusal
  'x-accepted-by'?: string
  'x-refused-by'?: string
  'x-when'?: string
  'x-required-quote'?: string
  'x-required-refusal'?: Refusal
  /** One requirement for every member, or one per member where each has its own. */
  'x-required-refused-by'?: string | Record<string, string>
  [keyword: string]: unknown
}

/**
 * One valid request of the route, as `x-seed` gives it. Placeholders the generator fills: `{model}` (the named model
 * of `x-model`), `{file}` (a small file of the kind the route takes), and a path parameter's own name in braces
 * (`{file_id}`: a resource made first, or one that does not exist where none can be made cheaply).
 */
export interface RequestSeed {
  path?: Record<string, string>
  query?: Record<string, string | number | boolean>
  body?: Record<string, unknown>
}

export interface RequestSchema extends SchemaNode {
  $id: string
  title: string
  'x-route': string
  'x-part': 1 | 2
  'x-section': string
  'x-body': BodyForm
  'x-model'?: string
  'x-shown'?: boolean
  'x-seed'?: RequestSeed
  properties: { path?: SchemaNode; query?: SchemaNode; body?: SchemaNode }
}

/** Where a request schema puts what: path and query parameters, and the body. */
export type Location = 'path' | 'query' | 'body'

/** One stated constraint of a request: where it sits, what it says, the words and what they state past it. */
export interface Constraint {
  route: string
  location: Location
  /** The field's path under its location (`temperature`, `generationConfig.temperature`, `metadata`). */
  field: string
  /** `required` for a required member (then `field` is the member), else the keywords on the field. */
  keywords: string[]
  node: SchemaNode
  quote: string
  refusal?: Refusal
  acceptedBy?: string
  refusedBy?: string
  /** Where it binds only under a condition the request alone does not show (`x-when`). */
  when?: string
}

/** Keywords that state a constraint on a value (annotations such as `default` or `examples` do not). */
export const CONSTRAINT_KEYWORDS = [
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'pattern',
  'format',
  'oneOf',
  'anyOf',
  'propertyNames',
  'additionalProperties',
  'dependentRequired',
  'dependentSchemas',
  'not',
] as const

function listRequestFiles(dir: string): string[] {
  const files: string[] = []
  for (const family of readdirSync(dir).sort()) {
    const requests = join(dir, family, 'requests')
    if (!statSync(join(dir, family)).isDirectory()) continue
    let names: string[]
    try {
      names = readdirSync(requests)
    } catch {
      continue
    }
    for (const name of names.sort()) if (name.endsWith('.json')) files.push(join(requests, name))
  }
  return files
}

let cached: RequestSchema[] | undefined

/** Every request schema, in family and file order. */
export function requestSchemas(dir: string = SCHEMAS_DIR): RequestSchema[] {
  if (dir === SCHEMAS_DIR && cached) return cached
  const all = listRequestFiles(dir).map((file) => {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as RequestSchema
    if (typeof schema['x-route'] !== 'string')
      throw new Error(`${relative(dir, file)}: a request schema names its route in x-route`)
    return schema
  })
  if (dir === SCHEMAS_DIR) cached = all
  return all
}

/** The request schema of a route (`POST /v1/responses`), if the reference states one. */
export function requestSchemaOf(route: string): RequestSchema | undefined {
  return requestSchemas().find((s) => s['x-route'] === route)
}

/** Keywords whose value is one schema, or a list or map of schemas, that a constraint may sit in. */
export const SUBSCHEMAS = ['items', 'if', 'then', 'else', 'not'] as const
export const SUBSCHEMA_LISTS = ['oneOf', 'anyOf', 'allOf'] as const

/**
 * Every constraint of one request schema: each node with words (`x-quote`, `x-required-quote`) wherever it sits:
 * a parameter or field, a location itself (a rule across its fields), an item, a branch, or a `$defs` entry.
 * `field` is the dotted name under its location (`generationConfig.temperature`, `input[]`), or a `$defs/` path.
 */
export function constraintsOf(schema: RequestSchema): Constraint[] {
  const out: Constraint[] = []
  const route = schema['x-route']
  const walk = (location: Location, node: SchemaNode | undefined, field: string, outer?: string): void => {
    if (!node || typeof node !== 'object') return
    // A condition binds everything beneath it.
    const when = node['x-when'] ?? outer
    if (node.required?.length && node['x-required-quote'] !== undefined) {
      const by = node['x-required-refused-by']
      for (const member of node.required)
        out.push({
          route,
          location,
          field: field === '' ? member : `${field}.${member}`,
          keywords: ['required'],
          node,
          quote: node['x-required-quote'],
          refusal: node['x-required-refusal'],
          refusedBy: typeof by === 'object' ? by[member] : by,
          ...(when !== undefined ? { when } : {}),
        })
    }
    if (node['x-quote'] !== undefined)
      out.push({
        route,
        location,
        field,
        keywords: CONSTRAINT_KEYWORDS.filter((k) => node[k] !== undefined),
        node,
        quote: node['x-quote'],
        refusal: node['x-refusal'],
        acceptedBy: node['x-accepted-by'],
        refusedBy: node['x-refused-by'],
        ...(when !== undefined ? { when } : {}),
      })
    for (const [name, child] of Object.entries(node.properties ?? {}))
      walk(location, child, field === '' ? name : `${field}.${name}`, when)
    for (const key of SUBSCHEMAS) {
      const child = node[key] as SchemaNode | undefined
      walk(location, child, key === 'items' ? `${field}[]` : `${field} (${key})`, when)
    }
    for (const key of SUBSCHEMA_LISTS)
      for (const [i, child] of ((node[key] as SchemaNode[] | undefined) ?? []).entries())
        walk(location, child, `${field} (${key} ${i})`, when)
    for (const [name, child] of Object.entries((node.dependentSchemas as Record<string, SchemaNode> | undefined) ?? {}))
      walk(location, child, `${field} (with ${name})`, when)
  }
  for (const location of ['path', 'query', 'body'] as const) walk(location, schema.properties[location], '')
  for (const [name, def] of Object.entries((schema.$defs as Record<string, SchemaNode> | undefined) ?? {}))
    walk('body', def, `$defs/${name}`)
  return out
}

/**
 * The schema node of one parameter or field (`temperature`, `generationConfig.temperature`, `metadata`), so that the
 * gateway enforces, and the suites send, the edges the schema states. Throws where the schema has no such field:
 * a limit read from a schema that moved must fail loudly, not turn into no limit.
 */
export function fieldOf(route: string, location: Location, field: string): SchemaNode {
  const schema = requestSchemaOf(route)
  if (!schema) throw new Error(`no request schema for ${route}`)
  let node: SchemaNode | undefined = schema.properties[location]
  for (const name of field.split('.')) {
    // A multipart field may be named with its brackets ("include[]"); otherwise "[]" steps into the items.
    const literal = node?.properties?.[name]
    node = literal ?? (name.endsWith('[]') ? node?.properties?.[name.slice(0, -2)]?.items : undefined)
  }
  if (!node) throw new Error(`${route}: no ${location} field ${field} in its request schema`)
  return node
}

/** The stated range of a numeric field: its minimum and maximum, each required to be there. */
export function rangeOf(route: string, location: Location, field: string): { min: number; max: number } {
  const node = fieldOf(route, location, field)
  if (node.minimum === undefined || node.maximum === undefined)
    throw new Error(`${route}: ${location} ${field} states no minimum and maximum`)
  return { min: node.minimum, max: node.maximum }
}

/** Numeric keywords a field may state its edge with. */
export type EdgeKeyword =
  | 'minimum'
  | 'maximum'
  | 'minLength'
  | 'maxLength'
  | 'minItems'
  | 'maxItems'
  | 'minProperties'
  | 'maxProperties'

/** Sibling values that pick one `if`/`then` branch of the field's object (`{ model: 'tts-1' }`). */
export type When = Readonly<Record<string, unknown>>

function matches(condition: SchemaNode | undefined, when: When): boolean {
  const properties = condition?.properties ?? {}
  if (Object.keys(properties).length === 0) return false
  return Object.entries(properties).every(([name, node]) => {
    if (!(name in when)) return false
    const value = when[name]
    if (node.const !== undefined) return node.const === value
    return node.enum?.includes(value) === true
  })
}

/**
 * The schema node of a field as the branch of its object's `allOf` that `when` picks states it (the input of
 * tts-1 is at most 4096 characters); throws where no branch of those values names the field.
 */
export function fieldWhen(route: string, location: Location, field: string, when: When): SchemaNode {
  const node = branchField(route, location, field, when)
  if (!node)
    throw new Error(`${route}: no ${location} field ${field} when ${JSON.stringify(when)} in its request schema`)
  return node
}

function branchField(route: string, location: Location, field: string, when: When): SchemaNode | undefined {
  const names = field.split('.')
  const last = names.pop() ?? ''
  const parent =
    names.length === 0 ? requestSchemaOf(route)?.properties[location] : fieldOf(route, location, names.join('.'))
  for (const branch of (parent?.allOf as SchemaNode[] | undefined) ?? []) {
    const node = matches(branch.if as SchemaNode | undefined, when)
      ? (branch.then as SchemaNode | undefined)?.properties?.[last]
      : undefined
    if (node) return node
  }
  return undefined
}

/**
 * The values a branch lists for a field where `when` picks one (LINEAR16's rates), or undefined where no branch
 * names the field for those values (MP3's rate: automatic).
 */
export function valuesWhen<T = string>(
  route: string,
  location: Location,
  field: string,
  when: When,
): readonly T[] | undefined {
  return branchField(route, location, field, when) ? valuesOf<T>(route, location, field, when) : undefined
}

/** One numeric edge of a schema node, required to be there (a limit that moved must fail loudly). */
export function edgeOf(node: SchemaNode | undefined, keyword: EdgeKeyword, what: string): number {
  const value = node?.[keyword]
  if (typeof value !== 'number') throw new Error(`${what} states no ${keyword}`)
  return value
}

/** One numeric edge of a field (`maxLength` of `safety_identifier`), read through `when`'s branch if given. */
export function limitOf(route: string, location: Location, field: string, keyword: EdgeKeyword, when?: When): number {
  const node = when ? fieldWhen(route, location, field, when) : fieldOf(route, location, field)
  return edgeOf(node, keyword, `${route}: ${location} ${field}`)
}

/**
 * The listed values of a field: its `enum` (or `const`), or its items' for an array of listed values (include);
 * read through `when`'s branch if given. Throws where the field lists none.
 */
export function valuesOf<T = string>(route: string, location: Location, field: string, when?: When): readonly T[] {
  const node = when ? fieldWhen(route, location, field, when) : fieldOf(route, location, field)
  const listed = node.enum ?? (node.const !== undefined ? [node.const] : undefined) ?? node.items?.enum
  if (!listed) throw new Error(`${route}: ${location} ${field} lists no values`)
  return listed as T[]
}

/** The stated default of a field, required to be there. */
export function defaultOf<T = unknown>(route: string, location: Location, field: string): T {
  const node = fieldOf(route, location, field)
  if (node.default === undefined) throw new Error(`${route}: ${location} ${field} states no default`)
  return node.default as T
}

/** The edges of a map field such as metadata: its most pairs, and the longest key and value. */
export function mapEdgesOf(
  route: string,
  location: Location,
  field: string,
): { pairs: number; keyChars: number; valueChars: number } {
  const node = fieldOf(route, location, field)
  const what = `${route}: ${location} ${field}`
  const values = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined
  return {
    pairs: edgeOf(node, 'maxProperties', what),
    keyChars: edgeOf(node.propertyNames, 'maxLength', `${what} keys`),
    valueChars: edgeOf(values, 'maxLength', `${what} values`),
  }
}
