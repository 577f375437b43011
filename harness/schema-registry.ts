/**
 * JSON Schemas (draft 2020-12) from `schemas/`, registered once by their `$id` and compiled on first use.
 * Errors render as `/path: message`, the form failure messages use.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { REQUEST_SCHEMA_KEYWORDS } from '../common/request-schemas.ts'
import { HarnessError } from './errors.ts'

// ajv-formats is CommonJS; under ESM its plugin may arrive wrapped in `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void

export const SCHEMAS_DIR = fileURLToPath(new URL('../schemas/', import.meta.url))
/** A schema's `$id` is this base and its path under schemas/. */
export const SCHEMA_ID_BASE = 'https://gateway-conformance.test/schemas/'

/**
 * Not schemas: the catalogue, the route table, the limit tables, the configuration contract and the reference's sections are data
 * read by other code.
 */
const NOT_SCHEMAS = new Set(['requirements.json', 'routes.json'])
const NOT_SCHEMA_DIRS = new Set(['limits', 'config', 'reference'])

/**
 * ISO 8601 as the reference uses it (Part 1 sections 2.1, 2.2, 2.3): a calendar date, or a date and time with
 * an optional offset. Stricter RFC 3339 would refuse valid ISO 8601 values that the reference allows.
 */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/

function isIso8601(value: string): boolean {
  return ISO_8601.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T').replace(',', '.')))
}

interface ValidationResult {
  ok: boolean
  errors: string[]
}

function listSchemaFiles(dir: string): string[] {
  const files: string[] = []
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) {
      if (!NOT_SCHEMA_DIRS.has(name)) files.push(...listSchemaFiles(path))
    } else if (name.endsWith('.json') && !NOT_SCHEMAS.has(name)) {
      files.push(path)
    }
  }
  return files
}

export function renderErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath === '' ? '/' : e.instancePath
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
        : e.keyword === 'enum'
          ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
          : e.keyword === 'const'
            ? ` (${JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue)})`
            : ''
    return `${where}: ${e.message ?? e.keyword}${extra}`
  })
}

export class SchemaRegistry {
  readonly #ajv: Ajv2020
  readonly #compiled = new Map<string, ValidateFunction>()
  readonly #outside = new WeakMap<object, ValidateFunction>()
  readonly ids: string[] = []

  /**
   * `checkSchemas` validates each schema against the draft's meta-schema as it is added: the self-test that compiles
   * them all does; a run does not, since compiling the meta-schemas costs every worker of every run a few tenths of a
   * second of CPU, and strict mode still refuses an unknown keyword when a schema is compiled.
   */
  constructor(dir: string = SCHEMAS_DIR, { checkSchemas = false }: { checkSchemas?: boolean } = {}) {
    this.#ajv = new Ajv2020({
      allErrors: true,
      strict: true,
      strictRequired: false,
      allowUnionTypes: true,
      validateSchema: checkSchemas,
    })
    this.#ajv.addVocabulary([...REQUEST_SCHEMA_KEYWORDS])
    addFormats(this.#ajv)
    this.#ajv.addFormat('iso8601', { type: 'string', validate: isIso8601 })
    for (const file of listSchemaFiles(dir)) {
      const schema = JSON.parse(readFileSync(file, 'utf8')) as { $id?: string }
      const expected = SCHEMA_ID_BASE + relative(dir, file).replaceAll('\\', '/')
      if (schema.$id !== expected) {
        throw new HarnessError(
          'INTERNAL',
          `${relative(dir, file)}: $id must be ${expected} (got ${String(schema.$id)})`,
        )
      }
      this.#ajv.addSchema(schema)
      this.ids.push(schema.$id)
    }
  }

  /** `ref` is the path under schemas/ (e.g. "models/list-item.json"), optionally with a JSON pointer fragment. */
  validate(ref: string, value: unknown): ValidationResult {
    const id = ref.startsWith('https://') ? ref : SCHEMA_ID_BASE + ref
    let validateFn = this.#compiled.get(id)
    if (validateFn === undefined) {
      validateFn = this.#ajv.getSchema(id)
      if (validateFn === undefined) throw new HarnessError('SCHEMA_MISSING', `no schema registered as ${ref}`)
      this.#compiled.set(id, validateFn)
    }
    const ok = validateFn(value) as boolean
    return { ok, errors: ok ? [] : renderErrors(validateFn.errors) }
  }

  /** Validates against a schema that is not under schemas/ (a self-test's own), with the same options and formats. */
  validateWith(schema: object, value: unknown): ValidationResult {
    let validateFn = this.#outside.get(schema)
    if (validateFn === undefined) {
      validateFn = this.#ajv.compile(schema)
      this.#outside.set(schema, validateFn)
    }
    const ok = validateFn(value) as boolean
    return { ok, errors: ok ? [] : renderErrors(validateFn.errors) }
  }

  /** Compiles every schema once, so that a broken schema fails a self-test rather than a conformance run. */
  compileAll(): void {
    for (const id of this.ids) this.validate(id, null)
  }
}

let shared: SchemaRegistry | undefined

export function schemas(): SchemaRegistry {
  shared ??= new SchemaRegistry()
  return shared
}
