/**
 * The request schemas (`schemas/<family>/requests/`) rest on the reference's words as the catalogue does: one per
 * served route, every parameter with its quote found verbatim, every stated limit saying whether the words state its
 * refusal, and that saying agrees with the level of the requirement that judges the refusal. A sample is never a list.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { constraintsOf, requestSchemas, type RequestSchema, type SchemaNode } from '../../../common/request-schemas.ts'
import { requirements } from '../../../harness/requirements.ts'
import { schemas } from '../../../harness/schema-registry.ts'
import { ROOT } from '../../support/run-conformance.ts'
import { missingExcerpts, REFERENCE_DIR_ENV, referenceDocuments } from '../../support/reference.ts'

const routes = (
  JSON.parse(readFileSync(join(ROOT, 'schemas', 'routes.json'), 'utf8')) as { routes: Array<{ route: string }> }
).routes.map((r) => r.route)
const all = requestSchemas()
const catalogue = requirements()

/** Keywords that state a limit or a list: where one sits, the schema says whether its refusal is stated. */
const LIMITS = [
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'maxProperties',
  'pattern',
  'oneOf',
] as const

/** Words that give a sample, not a closed list. */
const SAMPLE = /\be\.g\.|sample|for example|such as/i

/** Every property node of a location, with its dotted name. */
function properties(node: SchemaNode | undefined, prefix = ''): Array<[string, SchemaNode]> {
  if (!node) return []
  return Object.entries(node.properties ?? {}).flatMap(([name, child]) => [
    [prefix + name, child] as [string, SchemaNode],
    ...properties(child, `${prefix}${name}.`),
    ...properties(child.items, `${prefix}${name}[].`),
  ])
}

function each<T>(fn: (schema: RequestSchema) => T[]): T[] {
  return all.flatMap(fn)
}

describe('the request schemas', () => {
  test('one per route the reference says the service serves, and none for another route', () => {
    const named = all.map((s) => s['x-route'])
    expect(routes.filter((r) => !named.includes(r))).toEqual([])
    expect(named.filter((r) => !routes.includes(r))).toEqual([])
    expect(named.filter((r, i) => named.indexOf(r) !== i)).toEqual([])
  })

  test('the body form fits the method, and every path parameter of the route is required', () => {
    const wrong = each((s) => {
      const [method, path] = s['x-route'].split(' ') as [string, string]
      const problems: string[] = []
      if ((method === 'GET' || method === 'DELETE') !== (s['x-body'] === 'none'))
        problems.push(`${s['x-route']}: x-body ${s['x-body']}`)
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g))
        if (!s.properties.path?.required?.includes(name!)) problems.push(`${s['x-route']}: path ${name} not required`)
      return problems
    })
    expect(wrong).toEqual([])
  })

  test('every parameter and field quotes the words it rests on, and every stated limit says if its refusal is', () => {
    const unquoted = each((s) =>
      (['path', 'query', 'body'] as const).flatMap((location) =>
        properties(s.properties[location])
          .filter(([name, node]) => {
            const nested = name.includes('.') || name.includes('[]')
            const limited = LIMITS.some((k) => node[k] !== undefined)
            return node['x-quote'] === undefined && (!nested || limited)
          })
          .map(([name]) => `${s['x-route']} ${location} ${name}`),
      ),
    )
    expect(unquoted).toEqual([])
    const requiredUnquoted = each((s) =>
      (['query', 'body'] as const).flatMap((location) =>
        [['', s.properties[location]] as [string, SchemaNode | undefined], ...properties(s.properties[location])]
          .filter(([, node]) => node?.required?.length && node['x-required-quote'] === undefined)
          .map(([name]) => `${s['x-route']} ${location} ${name || '(itself)'}: required without x-required-quote`),
      ),
    )
    expect(requiredUnquoted).toEqual([])
    const unsaid = each((s) =>
      constraintsOf(s)
        .filter((c) => c.keywords.some((k) => k === 'required' || (LIMITS as readonly string[]).includes(k)))
        .filter((c) => c.refusal === undefined)
        .map((c) => `${c.route} ${c.location} ${c.field} (${c.keywords.join(', ')})`),
    )
    expect(unsaid).toEqual([])
  })

  test.skipIf(referenceDocuments.length === 0)(
    `every quote is found verbatim in the reference (${REFERENCE_DIR_ENV} or ../shared/spec)`,
    () => {
      const missing = each((s) =>
        constraintsOf(s).flatMap((c) => missingExcerpts(c.quote).map((e) => `${c.route} ${c.field}: "${e}"`)),
      )
      expect(missing).toEqual([])
    },
  )

  test('a refusal said to be stated is judged by a MUST refusal, an unstated one by a SHOULD; edges by an acceptance', () => {
    const wrong = each((s) =>
      constraintsOf(s).flatMap((c) => {
        const problems: string[] = []
        const where = `${c.route} ${c.field}`
        if (c.refusedBy !== undefined) {
          const r = catalogue.get(c.refusedBy)
          if (!r) problems.push(`${where}: x-refused-by ${c.refusedBy} is not in the catalogue`)
          else {
            if (r.kind !== 'refusal') problems.push(`${where}: ${r.id} is a ${r.kind}, not a refusal`)
            if ((r.level === 'MUST') !== (c.refusal === 'stated'))
              problems.push(`${where}: x-refusal ${c.refusal} but ${r.id} is a ${r.level}`)
          }
        }
        if (c.acceptedBy !== undefined) {
          const r = catalogue.get(c.acceptedBy)
          if (!r) problems.push(`${where}: x-accepted-by ${c.acceptedBy} is not in the catalogue`)
          else if (r.kind !== 'acceptance') problems.push(`${where}: ${r.id} is a ${r.kind}, not an acceptance`)
        }
        return problems
      }),
    )
    expect(wrong).toEqual([])
  })

  test('a value the reference gives as a sample is not a list of allowed values', () => {
    const closed = each((s) =>
      constraintsOf(s)
        .filter((c) => c.node.enum !== undefined && SAMPLE.test(c.quote))
        .map((c) => `${c.route} ${c.field}: enum on "${c.quote}"`),
    )
    expect(closed).toEqual([])
  })

  test('each seed is a request its own schema accepts', () => {
    const refused = each((s) => {
      if (s['x-seed'] === undefined) return [`${s['x-route']}: no x-seed`]
      const { ok, errors } = schemas().validate(s.$id, s['x-seed'])
      return ok ? [] : [`${s['x-route']}: ${errors.join('; ')}`]
    })
    expect(refused).toEqual([])
  })
})
