/**
 * The OpenAPI 3.1 document of the reference API, generated from the contract as data: the request schemas
 * (`schemas/<family>/requests/`) give paths, parameters and bodies; the response schemas under `schemas/` and the
 * answers table give the answers, with the error bodies §7 of each part gives; Part 1 §5 and Part 2 §5 give the
 * security schemes. Nothing here is written by hand twice: a limit changed in a schema changes the document.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, posix, relative } from 'node:path'
import { requestSchemas, type RequestSchema, type SchemaNode } from '../../common/request-schemas.ts'
import { SCHEMA_ID_BASE, SCHEMAS_DIR } from '../schema-registry.ts'
import { type Body, DIALECTS, ROUTE_ANSWERS } from './answers.ts'

/** Folders under schemas/ that hold our own files (config, load profiles, reports), not the API's shapes. */
const NOT_API = new Set(['config', 'load', 'report', 'limits', 'reference'])

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

export interface OpenApiOptions {
  /** The server the document names; a placeholder when none is given. */
  server?: string
  /** The package version that generated it. */
  generator: string
}

/** "files/file.json" -> "files.file": OpenAPI component names allow letters, digits, dots, dashes, underscores. */
export function componentName(file: string): string {
  return file.replace(/\.json$/, '').replaceAll('/', '.')
}

function listApiSchemas(dir: string, base = dir): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name)
      const rel = relative(base, path).replaceAll('\\', '/')
      if (statSync(path).isDirectory()) {
        if (NOT_API.has(rel) || name === 'requests') return []
        return listApiSchemas(path, base)
      }
      return name.endsWith('.json') && rel.includes('/') ? [rel] : []
    })
}

/** A schema file as a component: no $id or $schema, every $ref pointed at the components of the document. */
function asComponent(file: string, node: Json): Json {
  const self = componentName(file)
  const rewrite = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(rewrite)
    if (value === null || typeof value !== 'object') return value
    const out: JsonObject = {}
    for (const [key, child] of Object.entries(value)) {
      if (key === '$id' || key === '$schema') continue
      if (key === '$ref' && typeof child === 'string') out[key] = pointAt(file, self, child)
      else out[key] = rewrite(child)
    }
    return out
  }
  return rewrite(node)
}

function pointAt(file: string, self: string, ref: string): string {
  const [target = '', fragment = ''] = ref.split('#')
  if (target === '') return `#/components/schemas/${self}${fragment}`
  const resolved = target.startsWith(SCHEMA_ID_BASE)
    ? target.slice(SCHEMA_ID_BASE.length)
    : posix.normalize(posix.join(posix.dirname(file), target))
  return `#/components/schemas/${componentName(resolved)}${fragment}`
}

function bodySchema(body: Body): Json {
  if ('schema' in body) return { $ref: `#/components/schemas/${componentName(body.schema)}` }
  if ('listOf' in body)
    return {
      type: 'object',
      required: ['data'],
      properties: { data: { type: 'array', items: { $ref: `#/components/schemas/${componentName(body.listOf)}` } } },
    }
  if ('arrayOf' in body)
    return { type: 'array', items: { $ref: `#/components/schemas/${componentName(body.arrayOf)}` } }
  if ('oneOf' in body) return { description: body.why, oneOf: body.oneOf.map(bodySchema) }
  if ('bytes' in body) return { description: body.bytes, contentMediaType: 'application/octet-stream' }
  if ('text' in body) return { type: 'string' }
  if ('events' in body)
    return {
      description: 'Server-sent events; each data line is one of these JSON objects.',
      contentMediaType: 'application/json',
      anyOf: body.events.map((e) => ({ $ref: `#/components/schemas/${componentName(e)}` })),
    }
  return { description: body.notShown }
}

function securityOf(route: string): Json {
  if (route === 'GET /public/models') return []
  if (route.includes(' /v1/models')) return [{ bearer: [] }, { apiKey: [] }]
  if (route.includes(' /v1beta/')) return [{ bearer: [] }, { nativeKey: [] }]
  return [{ bearer: [] }]
}

/** A request schema's parameter, its words kept as `x-quote` beside the JSON Schema and its refs into the document. */
function parameterSchema(file: string, node: SchemaNode): Json {
  return asComponent(file, JSON.parse(JSON.stringify(node)) as Json)
}

function parameters(schema: RequestSchema, file: string): Json[] {
  const out: Json[] = []
  for (const where of ['path', 'query'] as const) {
    const node = schema.properties[where]
    for (const [name, child] of Object.entries(node?.properties ?? {})) {
      const quote = child['x-quote']
      out.push({
        name,
        in: where,
        required: where === 'path' || (node?.required ?? []).includes(name),
        ...(quote !== undefined ? { description: quote } : {}),
        schema: parameterSchema(file, child),
      })
    }
  }
  out.push({ $ref: '#/components/parameters/ClientRequestId' })
  return out
}

function operation(schema: RequestSchema, file: string): JsonObject {
  const route = schema['x-route']
  const answers = ROUTE_ANSWERS[route]
  if (!answers) throw new Error(`harness/openapi/answers.ts has no answer for ${route}`)
  const [family = '', , op = ''] = file.replace(/\.json$/, '').split('/')
  const responses: JsonObject = {
    [answers.answer.status]: {
      description: `Success (Part ${schema['x-part']} §${schema['x-section']}).`,
      headers: {
        'svc-request-id': { $ref: '#/components/headers/SvcRequestId' },
        'x-ratelimit-remaining-requests': { $ref: '#/components/headers/RemainingRequests' },
      },
      content: Object.fromEntries(
        Object.entries(answers.answer.bodies).map(([type, body]) => [type, { schema: bodySchema(body) }]),
      ),
    },
  }
  for (const [status, error] of Object.entries(DIALECTS[answers.dialect])) {
    responses[status] = {
      description: error.description,
      headers: {
        'svc-request-id': { $ref: '#/components/headers/SvcRequestId' },
        ...(status === '429' ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      },
      ...(error.schema
        ? {
            content: {
              'application/json': { schema: { $ref: `#/components/schemas/${componentName(error.schema)}` } },
            },
          }
        : {}),
    }
  }
  const body = schema.properties.body
  const form = schema['x-body']
  return {
    operationId: `${family}.${op}`,
    tags: [family],
    summary: schema.title,
    'x-part': schema['x-part'],
    'x-section': schema['x-section'],
    ...(schema['x-shown'] === false ? { 'x-shown': false } : {}),
    security: securityOf(route),
    parameters: parameters(schema, file),
    ...(body && form !== 'none'
      ? {
          requestBody: {
            required: (schema.required ?? []).includes('body'),
            content: {
              [form === 'multipart' ? 'multipart/form-data' : 'application/json']: {
                schema: { $ref: `#/components/schemas/${componentName(file)}/properties/body` },
              },
            },
          },
        }
      : {}),
    responses,
  }
}

/** The document, built afresh from the files under schemas/. */
export function openApiDocument(options: OpenApiOptions, dir: string = SCHEMAS_DIR): JsonObject {
  const components: JsonObject = {}
  for (const file of listApiSchemas(dir))
    components[componentName(file)] = asComponent(file, JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json)

  const paths: Record<string, JsonObject> = {}
  for (const schema of requestSchemas(dir)) {
    // "responses/requests/create.json" is the component "responses.requests.create"; the body points into it.
    const file = schema.$id.slice(SCHEMA_ID_BASE.length)
    const [method = '', path = ''] = schema['x-route'].split(' ')
    components[componentName(file)] = asComponent(file, JSON.parse(JSON.stringify(schema)) as Json)
    paths[path] ??= {}
    paths[path]![method.toLowerCase()] = operation(schema, file)
  }

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Model Gateway API',
      version: 'v1',
      description:
        'The reference API of the Model Gateway (Parts 1 and 2), as the conformance suite reads it. Every request ' +
        'constraint carries the words it rests on (x-quote) and whether they state its refusal (x-refusal). ' +
        'Shapes the reference does not show are descriptions, not schemas.',
      'x-generated-by': options.generator,
    },
    servers: [{ url: options.server ?? 'https://gateway.example', description: 'the gateway under test' }],
    security: [{ bearer: [] }],
    tags: [
      ...new Set(
        Object.values(paths).flatMap((item) => Object.values(item).map((op) => (op as { tags: string[] }).tags[0]!)),
      ),
    ]
      .sort()
      .map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <API_KEY> (Part 1 §5, Part 2 §5)',
        },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'The model endpoints only; they then answer in the alternate format (Part 1 §5 rule 3, §4.3)',
        },
        nativeKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-native-api-key',
          description: 'The native interface only (Part 2 §5 rule 2)',
        },
      },
      parameters: {
        ClientRequestId: {
          name: 'X-Client-Request-Id',
          in: 'header',
          required: false,
          description:
            'optional caller trace id; ASCII only, at most 512 characters, unique per attempt; it does not replace svc-request-id (Part 1 §4.1)',
          schema: { type: 'string', maxLength: 512, pattern: '^[\\x00-\\x7F]*$' },
        },
      },
      headers: {
        SvcRequestId: {
          description: 'UUID v7 identifying the call (Part 1 §4.1)',
          schema: { type: 'string', format: 'uuid' },
        },
        RemainingRequests: {
          description: 'Request bucket: remaining (Part 1 §4.1)',
          schema: { type: 'string' },
        },
        RetryAfter: { description: 'May accompany 429; seconds to wait (Part 1 §4.1)', schema: { type: 'string' } },
      },
    },
  }
}
