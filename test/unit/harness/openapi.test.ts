/**
 * The OpenAPI document is generated from the schemas, not written beside them: every served route is an operation
 * with its security and §7's statuses, every request constraint keeps its words, and a limit changed in a request
 * schema is the limit the document states.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { ROUTE_ANSWERS } from '../../../harness/openapi/answers.ts'
import { openApiDocument } from '../../../harness/openapi/document.ts'
import { ROOT } from '../../support/run-conformance.ts'

interface Operation {
  security: unknown[]
  responses: Record<string, unknown>
  parameters: Array<{ name?: string; in?: string; schema?: Record<string, unknown>; $ref?: string }>
  requestBody?: unknown
}
type Document = {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Record<string, unknown>> }
}

const routes = (
  JSON.parse(readFileSync(join(ROOT, 'schemas', 'routes.json'), 'utf8')) as { routes: Array<{ route: string }> }
).routes.map((r) => r.route)
const document = openApiDocument({ generator: 'test' }) as unknown as Document
const scratch = mkdtempSync(join(tmpdir(), 'gc-openapi-unit-'))

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function operationOf(doc: Document, route: string): Operation | undefined {
  const [method = '', path = ''] = route.split(' ')
  return doc.paths[path]?.[method.toLowerCase()]
}

/** The JSON pointer a $ref names, followed through the document. */
function resolvePointer(doc: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc)
}

describe('the OpenAPI document', () => {
  test('every served route is an operation, with an answer table entry, security, and the statuses of its §7', () => {
    expect(routes.filter((r) => operationOf(document, r) === undefined)).toEqual([])
    expect(Object.keys(ROUTE_ANSWERS).sort()).toEqual([...routes].sort())
    for (const route of routes) {
      const op = operationOf(document, route)!
      expect(
        Object.keys(op.responses).some((s) => /^2/.test(s)),
        route,
      ).toBe(true)
      expect(op.responses['429'] ?? op.responses['401'], route).toBeDefined()
      expect(op.security.length > 0, route).toBe(route !== 'GET /public/models')
    }
    expect(operationOf(document, 'GET /v1/models')!.security).toEqual([{ bearer: [] }, { apiKey: [] }])
    expect(operationOf(document, 'POST /v1beta/models/{model}:generateContent')!.security).toEqual([
      { bearer: [] },
      { nativeKey: [] },
    ])
  })

  test('every $ref points at something in the document', () => {
    const refs: string[] = []
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk)
      else if (node !== null && typeof node === 'object')
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.push(value)
          else walk(value)
        }
    }
    walk(document)
    expect(refs.length).toBeGreaterThan(50)
    expect([...new Set(refs)].filter((ref) => resolvePointer(document, ref) === undefined)).toEqual([])
  })

  test('parameters keep the words of their constraint', () => {
    const page = operationOf(document, 'GET /user/v1/transactions')!.parameters.find((p) => p.name === 'page')
    expect(page).toMatchObject({ in: 'query', schema: { minimum: 1, maximum: 10000 } })
    expect(page!.schema!['x-quote']).toMatch(/1 to 10000/)
  })

  test('a limit changed in a request schema is the limit the document states', () => {
    const copy = join(scratch, 'schemas')
    cpSync(join(ROOT, 'schemas'), copy, { recursive: true })
    const file = join(copy, 'responses', 'requests', 'create.json')
    const schema = JSON.parse(readFileSync(file, 'utf8')) as {
      properties: { body: { properties: { temperature: { maximum: number } } } }
    }
    schema.properties.body.properties.temperature.maximum = 3
    writeFileSync(file, JSON.stringify(schema))
    const changed = openApiDocument({ generator: 'test' }, copy) as unknown as Document
    const temperature = (name: Document) =>
      (
        name.components.schemas['responses.requests.create'] as {
          properties: { body: { properties: { temperature: { maximum: number } } } }
        }
      ).properties.body.properties.temperature.maximum
    expect(temperature(document)).toBe(2)
    expect(temperature(changed)).toBe(3)
  })
})
