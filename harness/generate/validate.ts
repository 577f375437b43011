/**
 * A generated request judged against its own schema (Ajv, as the schema registry compiles them): positive and
 * boundary requests must pass, and a negative one must fail on the place of the constraint it breaks and nowhere
 * else, or it is dropped. The generator keeps only cases this says are what they claim, so a schema that combines
 * keywords in a way a breaker did not foresee costs a case, never a misfiled finding.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import {
  type Location,
  REQUEST_SCHEMA_KEYWORDS,
  type RequestSchema,
  type SchemaNode,
} from '../../common/request-schemas.ts'

// ajv-formats is CommonJS; under ESM its plugin may arrive wrapped in `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void

/** The request as its schema sees it: path and query parameters and the body, each where the route has one. */
export interface RequestValue {
  path?: Record<string, unknown>
  query?: Record<string, unknown>
  body?: unknown
}

const compiled = new WeakMap<RequestSchema, ValidateFunction>()

function validatorOf(schema: RequestSchema): ValidateFunction {
  let validate = compiled.get(schema)
  if (validate === undefined) {
    // One instance per schema: two versions of one $id (a test's copy) must not meet in one Ajv.
    const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true, logger: false })
    ajv.addVocabulary([...REQUEST_SCHEMA_KEYWORDS])
    addFormats(ajv)
    validate = ajv.compile(schema)
    compiled.set(schema, validate)
  }
  return validate
}

/** Ajv's errors for a request; empty when the schema allows it. */
export function violations(schema: RequestSchema, request: RequestValue): ErrorObject[] {
  const validate = validatorOf(schema)
  return validate(request) ? [] : [...(validate.errors ?? [])]
}

/** A JSON pointer segment (RFC 6901). */
const escapeStep = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1')

/**
 * The JSON pointer of a field under a location, as the schema names it: `metadata` gives /body/metadata; a `[]`
 * step (`tools[].name`) goes into the first item, where edits put their value, unless the schema names a field
 * with its brackets (a multipart field such as `include[]`).
 */
export function pointerIn(schema: RequestSchema, location: Location, field: string): string {
  let node: SchemaNode | undefined = schema.properties[location]
  let pointer = `/${location}`
  if (field === '') return pointer
  for (const step of field.split('.')) {
    const literal = node?.properties?.[step]
    if (literal !== undefined || !step.endsWith('[]')) {
      pointer += `/${escapeStep(step)}`
      node = literal
    } else {
      pointer += `/${escapeStep(step.slice(0, -2))}/0`
      node = node?.properties?.[step.slice(0, -2)]?.items
    }
  }
  return pointer
}

/** Where a broken constraint shows: the field's pointer, or for a missing member its parent and the member. */
export interface Place {
  pointer: string
  missing?: string
}

/** Whether every error is at the place (or inside it), and there is at least one. */
export function failsOnlyAt(errors: readonly ErrorObject[], place: Place): boolean {
  if (errors.length === 0) return false
  return errors.every((e) =>
    place.missing !== undefined
      ? e.instancePath === place.pointer &&
        e.keyword === 'required' &&
        (e.params as { missingProperty?: string }).missingProperty === place.missing
      : e.instancePath === place.pointer || e.instancePath.startsWith(`${place.pointer}/`),
  )
}
