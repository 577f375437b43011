/**
 * The request schemas (schemas/<family>/requests/) as the gateway's validator: before a route runs, Ajv judges its
 * path and query parameters and its JSON body against the route's schema, and a multipart route's form once read
 * (`checkForm`). What they state is enforced here, written once; the family's readers keep what JSON Schema cannot
 * say (a model's capabilities, the bytes of a file, what an account holds).
 *
 * Left out of what Ajv judges: a constraint that binds only under a condition the request cannot show (`x-when`),
 * and a constraint whose refusal a switched-on fault or variation lifts (its `relaxes`: the requirements whose
 * constraints it no longer refuses past). A refusal is a 400 naming the parameter, in the route's dialect (the error
 * handler picks it from the path); under variation range-refusals-422 a value past a range whose refusal the words
 * leave open is a 422 instead.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import {
  REQUEST_SCHEMA_KEYWORDS,
  type Location,
  type RequestSchema,
  requestSchemas,
  type SchemaNode,
  SUBSCHEMA_LISTS,
  SUBSCHEMAS,
} from '../common/request-schemas.ts'
import { GatewayError, invalidParameter, unprocessable } from './errors.ts'
import { findModel } from './models/catalogue.ts'
import { FAULTS } from './faults/registry.ts'
import type { GatewayState } from './state.ts'
import { REAL_NAMES, VARIATION_RELAXES, type VariationName } from './variations.ts'

/** Where a request schema's route sits in a URL: its path as a pattern, its parameters in order. */
interface RoutePattern {
  schema: RequestSchema
  method: string
  path: RegExp
  params: string[]
}

const RANGE_KEYWORDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength'])

let strictAjv: Ajv2020 | undefined
let coercingAjv: Ajv2020 | undefined

/** Parameters and form fields arrive as text: their validator reads `"2"` as the number the schema asks for. */
function ajvFor(coerce: boolean): Ajv2020 {
  const make = (): Ajv2020 => {
    const ajv = new Ajv2020({
      strict: false,
      verbose: true,
      allowUnionTypes: true,
      coerceTypes: coerce ? 'array' : false,
    })
    ajv.addVocabulary([...REQUEST_SCHEMA_KEYWORDS])
    // An upload's file: the form reader hands its name; its bytes are the family's to judge.
    ajv.addFormat('binary', true)
    return ajv
  }
  if (coerce) {
    coercingAjv ??= make()
    return coercingAjv
  }
  strictAjv ??= make()
  return strictAjv
}

// The walk of constraintsOf, and the schemas of a map's keys and values, which it reads as part of their map.
const SUBSCHEMAS_JUDGED = [...SUBSCHEMAS, 'propertyNames', 'additionalProperties'] as const

const isLifted = (node: SchemaNode | undefined, lifted: ReadonlySet<string>): boolean =>
  typeof node?.['x-refused-by'] === 'string' && lifted.has(node['x-refused-by'])

/**
 * A copy of a schema node with what Ajv must not judge taken out: a conditional constraint (`x-when`) becomes no
 * constraint; a lifted requirement's node keeps only its fields (each judged on its own), loses its required members,
 * and under `not` goes with the `not`.
 */
function judged(node: SchemaNode, lifted: ReadonlySet<string>): SchemaNode {
  if (node['x-when'] !== undefined) return {}
  const out: SchemaNode = isLifted(node, lifted) ? liftedNode(node) : { ...node }
  const requiredBy = node['x-required-refused-by']
  if (out.required && requiredBy !== undefined)
    out.required = out.required.filter(
      (member) => !lifted.has(typeof requiredBy === 'string' ? requiredBy : (requiredBy[member] ?? '')),
    )
  if (out.properties)
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, judged(v, lifted)]))
  if (isLifted(out.not as SchemaNode | undefined, lifted)) delete out.not
  // A condition that binds only under what the request cannot show takes its branches with it.
  if ((out.if as SchemaNode | undefined)?.['x-when'] !== undefined) {
    delete out.if
    delete out.then
    delete out.else
  }
  for (const key of SUBSCHEMAS_JUDGED) {
    const child = out[key]
    if (child && typeof child === 'object') out[key] = judged(child as SchemaNode, lifted)
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key] as SchemaNode[] | undefined
    if (list) out[key] = list.map((child) => judged(child, lifted))
  }
  const dependent = out.dependentSchemas as Record<string, SchemaNode> | undefined
  if (dependent) out.dependentSchemas = judgedMap(dependent, lifted)
  return out
}

/** A lifted node keeps only the fields that are constraints of their own (their own words); the rest was its. */
function liftedNode(node: SchemaNode): SchemaNode {
  const own = Object.entries(node.properties ?? {}).filter(([, field]) => field['x-quote'] !== undefined)
  return own.length > 0 ? { properties: Object.fromEntries(own) } : {}
}

function judgedMap(map: Record<string, SchemaNode>, lifted: ReadonlySet<string>): Record<string, SchemaNode> {
  return Object.fromEntries(Object.entries(map).map(([name, node]) => [name, judged(node, lifted)]))
}

const compiled = new Map<string, ValidateFunction | null>()

/**
 * The validator of one location of a route with `lifted`'s constraints left out, compiled once per process for each
 * such set; `form` for a body read from a form, whose fields are text. Null where the schema states no such location.
 */
function validatorOf(
  schema: RequestSchema,
  location: Location,
  lifted: readonly string[],
  form = false,
): ValidateFunction | null {
  const key = `${schema.$id} ${location} ${form} ${lifted.join(',')}`
  const known = compiled.get(key)
  if (known !== undefined) return known
  const node = schema.properties[location]
  let validate: ValidateFunction | null = null
  if (node) {
    const liftedSet = new Set(lifted)
    const defs = schema.$defs as Record<string, SchemaNode> | undefined
    // The body's $refs point into the schema's own $defs, carried along.
    const root: SchemaNode = { ...judged(node, liftedSet), ...(defs ? { $defs: judgedMap(defs, liftedSet) } : {}) }
    validate = ajvFor(location !== 'body' || form).compile(root)
  }
  compiled.set(key, validate)
  return validate
}

/** `/messages/0/role` as the readers name a parameter: `messages[0].role`. */
function paramOf(location: Location, error: ErrorObject): string {
  const steps = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
  if (error.keyword === 'required' || error.keyword === 'dependentRequired')
    steps.push(String((error.params as { missingProperty: string }).missingProperty))
  const name = steps.reduce((acc, step) => {
    // A form's list is named with its brackets (`timestamp_granularities[]`): its item is `timestamp_granularities[0]`.
    if (/^\d+$/.test(step)) return `${acc.endsWith('[]') ? acc.slice(0, -2) : acc}[${step}]`
    return acc ? `${acc}.${step}` : step
  }, '')
  return name || (location === 'body' ? 'body' : location)
}

/** The first error Ajv found, as this gateway refuses it. */
function refusal(location: Location, error: ErrorObject, refuse422: boolean): GatewayError {
  const param = paramOf(location, error)
  const together = (error.schema as SchemaNode | undefined)?.required
  const message =
    error.keyword === 'required' || error.keyword === 'dependentRequired'
      ? `${param} is required.`
      : error.keyword === 'not' && together
        ? `${together.join(' and ')} are not taken together.`
        : `${param} ${error.message ?? 'is invalid'}.`
  if (
    refuse422 &&
    RANGE_KEYWORDS.has(error.keyword) &&
    (error.parentSchema as SchemaNode | undefined)?.['x-refusal'] !== 'stated'
  )
    return unprocessable(param, message)
  if (location === 'body' && error.instancePath === '' && error.keyword === 'type')
    return new GatewayError(400, 'The request body must be a JSON object.', { param: null })
  return invalidParameter(param, message)
}

/** The requirements whose constraints this gateway's faults and variations lift, in a stable order. */
export function liftedBy(faults: ReadonlySet<string>, variations: ReadonlySet<VariationName>): string[] {
  const lifted = new Set<string>()
  for (const fault of FAULTS) if (faults.has(fault.name)) for (const id of fault.relaxes ?? []) lifted.add(id)
  for (const variation of variations) for (const id of VARIATION_RELAXES[variation] ?? []) lifted.add(id)
  return [...lifted].sort()
}

/** One gateway's faults and variations: what decides the constraints it lifts. */
type Lifting = Pick<GatewayState, 'faults' | 'variations'>

const liftedOf = new WeakMap<Lifting['faults'], string[]>()

/** The lifted requirements of one gateway, found once (its fault set is its own, made with its variations). */
function lifted({ faults, variations }: Lifting): string[] {
  let ids = liftedOf.get(faults)
  if (!ids) {
    ids = liftedBy(faults, variations)
    liftedOf.set(faults, ids)
  }
  return ids
}

function patternOf(schema: RequestSchema): RoutePattern {
  const [method = '', path = ''] = schema['x-route'].split(' ')
  const params: string[] = []
  const source = path
    .split(/\{([^}]+)\}/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      params.push(part)
      return '([^/]+?)'
    })
    .join('')
  return { schema, method, path: new RegExp(`^${source}$`), params }
}

/** A route's URL with Fastify's parameters as `{}`, and a request schema's route the same way, to pair them. */
function shapeOf(url: string): string {
  return url.replace(/:[^/]+$|:[^/]+(?=\/)/g, '{}').replace(/\{[^}]+\}/g, '{}')
}

/**
 * What is judged of a location: fields the words say are ignored when another is given (`x-ignored-with`) are left
 * out then, and so is a null where the field takes null ("object or null": not given, so stream_options null needs
 * no stream).
 */
function withoutIgnored(node: SchemaNode | undefined, value: unknown): unknown {
  if (!node?.properties || !value || typeof value !== 'object' || Array.isArray(value)) return value
  const given = value as Record<string, unknown>
  const ignored = Object.entries(node.properties).filter(([name, field]) => {
    if (!(name in given)) return false
    if (given[name] === null) return Array.isArray(field.type) && field.type.includes('null')
    const by = field['x-ignored-with'] as string[] | undefined
    return by?.some((other) => given[other] !== undefined) === true
  })
  if (ignored.length === 0) return value
  const out = { ...given }
  for (const [name] of ignored) delete out[name]
  return out
}

const REFERENCE_NAMES = new Map(Object.entries(REAL_NAMES).map(([reference, real]) => [real, reference]))

/**
 * Variation real-names: the ids the reference writes neutrally come under their makers' names, which the schemas do
 * not list; judged as the gateway reads them, under the reference's names.
 */
function asReferenceNames(value: unknown): unknown {
  if (typeof value === 'string') return REFERENCE_NAMES.get(value) ?? value
  if (Array.isArray(value)) return value.map(asReferenceNames)
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, asReferenceNames(v)]))
  return value
}

/** A path parameter as sent, decoded where it can be (Fastify refuses an undecodable URL before any route). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Query parameters as a coercing validator may rewrite them: the object and its lists copied, never the route's. */
function copyOfQuery(query: unknown): unknown {
  if (!query || typeof query !== 'object') return query
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(query)) out[name] = Array.isArray(value) ? [...value] : value
  return out
}

/**
 * The schema a call's path picks and its path parameters in order: one pattern takes the route's parameters; the
 * native routes, which share a Fastify route, are told apart by their own patterns.
 */
function picked(
  patterns: readonly RoutePattern[],
  request: FastifyRequest,
): { pattern?: RoutePattern; values: string[] } {
  if (patterns.length === 1)
    return { pattern: patterns[0], values: Object.values((request.params ?? {}) as Record<string, string>) }
  const path = decoded((request.url.split('?')[0] ?? '').replace(/\/+$/, '')) || '/'
  for (const pattern of patterns) {
    const match = pattern.path.exec(path)
    if (match) return { pattern, values: match.slice(1).map(decoded) }
  }
  return { values: [] }
}

/**
 * A refused call still counts against the model it names (Part 1 §7: "failed requests still count toward per-minute
 * limits") and records it, as when its route read the model before refusing: its own limit may answer 429 first.
 */
function countModel(state: GatewayState, request: FastifyRequest, inPath: string | undefined): void {
  const body = request.body as Record<string, unknown> | undefined
  const id = inPath ?? (body && typeof body === 'object' && typeof body.model === 'string' ? body.model : undefined)
  if (id === undefined) return
  const context = state.contexts.of(request)
  context.model = id
  const model = findModel(id)
  if (model) context.admitModel?.(model)
}

/**
 * The check of one route, made once when it is registered: the schema its path picks (one, but for the native
 * routes, which share a Fastify route), then path, query and a JSON body, each against its validator.
 */
function routeCheck(
  state: GatewayState,
  patterns: readonly RoutePattern[],
): (request: FastifyRequest, reply: unknown, done: (error?: Error) => void) => void {
  const refuse422 = state.variations.has('range-refusals-422')
  const named = state.variations.has('real-names') ? asReferenceNames : (value: unknown) => value
  // Each pattern's validators, looked up once for this gateway's lifted set.
  const known = new Map<string, ValidateFunction | null>()
  const validatorFor = (pattern: RoutePattern, location: Location): ValidateFunction | null => {
    const key = `${pattern.schema.$id} ${location}`
    let validate = known.get(key)
    if (validate === undefined) {
      validate = validatorOf(pattern.schema, location, lifted(state))
      known.set(key, validate)
    }
    return validate
  }
  const judge = (pattern: RoutePattern, location: Location, sent: unknown): void => {
    const validate = validatorFor(pattern, location)
    // A body the schema does not require may be left out (a cancel sends none).
    if (!validate || (sent === undefined && location === 'body' && !pattern.schema.required?.includes('body'))) return
    if (validate(named(withoutIgnored(pattern.schema.properties[location], sent)))) return
    const first = validate.errors?.[0]
    if (first) throw refusal(location, first, refuse422)
  }
  const judgeAll = (pattern: RoutePattern, request: FastifyRequest, values: readonly string[]): void => {
    judge(pattern, 'path', Object.fromEntries(pattern.params.map((name, i) => [name, values[i] ?? ''])))
    judge(pattern, 'query', copyOfQuery(request.query ?? {}))
    // A form is judged by its reader once read (checkForm): a JSON route may take one too (a video's image).
    if (pattern.schema['x-body'] === 'json' && !isForm(request)) judge(pattern, 'body', request.body)
  }
  return (request, _reply, done) => {
    try {
      const { pattern, values } = picked(patterns, request)
      if (pattern) {
        try {
          judgeAll(pattern, request, values)
        } catch (error) {
          countModel(state, request, values[pattern.params.indexOf('model')])
          throw error
        }
      }
      done()
    } catch (error) {
      done(error as Error)
    }
  }
}

/** A multipart body, which only the routes that registered the multipart plugin read (and decorate the request for). */
function isForm(request: FastifyRequest): boolean {
  return /^multipart\//i.test(String(request.headers['content-type'] ?? ''))
}

const hooked = new WeakMap<FastifyInstance, Set<string>>()

/** The routes (`POST /v1/responses`) whose requests this app judges: every route a request schema states. */
export function judgedRoutes(app: FastifyInstance): Set<string> {
  let routes = hooked.get(app)
  if (!routes) {
    routes = new Set()
    hooked.set(app, routes)
  }
  return routes
}

/**
 * Adds the check to every route a request schema states, before its handler: path and query always, the body where
 * it is JSON. Call before the routes are registered (Fastify's onRoute sees only routes added after it).
 */
export function registerRequestValidation(app: FastifyInstance, state: GatewayState): void {
  const byShape = new Map<string, RoutePattern[]>()
  for (const schema of requestSchemas()) {
    const pattern = patternOf(schema)
    const [, path = ''] = schema['x-route'].split(' ')
    // The native routes share one Fastify route (`/v1beta/models/:target`): both pair with its shape.
    const shape = `${pattern.method} ${shapeOf(path.replace(/\{[^}]+\}:[A-Za-z]+$/, '{}'))}`
    byShape.set(shape, [...(byShape.get(shape) ?? []), pattern])
  }
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) {
      // Fastify answers HEAD with the GET route's handler: it is judged as that GET.
      const patterns = byShape.get(`${method === 'HEAD' ? 'GET' : method} ${shapeOf(route.url)}`)
      if (!patterns) continue
      if (method !== 'HEAD') for (const pattern of patterns) judgedRoutes(app).add(pattern.schema['x-route'])
      const check = routeCheck(state, patterns)
      const before = route.preHandler
      route.preHandler = before ? [...(Array.isArray(before) ? before : [before]), check] : check
    }
  })
}

/** A multipart route's form, once read, against its schema's body: fields as sent, lists by their name. */
export function checkForm(state: Lifting, route: string, form: Record<string, unknown>): void {
  const schema = requestSchemas().find((s) => s['x-route'] === route)
  if (!schema) throw new Error(`no request schema for ${route}`)
  const validate = validatorOf(schema, 'body', lifted(state), true)
  const named = state.variations.has('real-names') ? asReferenceNames(form) : structuredClone(form)
  if (validate && !validate(named)) {
    const first = validate.errors?.[0]
    if (first) throw refusal('body', first, state.variations.has('range-refusals-422'))
  }
}
