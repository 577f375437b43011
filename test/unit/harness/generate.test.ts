/**
 * The generation phase's cases (harness/generate/): the same seed gives the same cases; every positive and boundary
 * request passes its schema (Ajv); every negative one fails on the place of the constraint it breaks, and nowhere
 * else; each negative is filed under the requirement that judges its constraint.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { describe, expect, test } from 'vitest'
import { REQUEST_SCHEMA_KEYWORDS, type RequestSchema, requestSchemas } from '../../../common/request-schemas.ts'
import { generateCases, NOT_JSON } from '../../../harness/generate/cases.ts'
import { NOT_JSON_REQUIREMENTS, PHASE_REQUIREMENTS, requirementOf } from '../../../harness/generate/filing.ts'
import { requirements } from '../../../harness/requirements.ts'

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void

/** An Ajv of our own, strict as the registry's, so the test does not trust the generator's own check. */
function validatorOf(schema: RequestSchema) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true })
  ajv.addVocabulary([...REQUEST_SCHEMA_KEYWORDS])
  addFormats(ajv)
  return ajv.compile(schema)
}

const all = requestSchemas()
const SETTINGS = { runs: 6, seed: 7 }
const responses = all.find((s) => s['x-route'] === 'POST /v1/responses') as RequestSchema

describe('seeded', () => {
  test('the same seed gives the same cases; another seed, other positive cases', () => {
    for (const schema of all)
      expect(generateCases(schema, SETTINGS), schema['x-route']).toEqual(generateCases(schema, SETTINGS))
    const positives = (seed: number) =>
      all.flatMap((s) => generateCases(s, { runs: 4, seed }).filter((c) => c.kind === 'positive'))
    expect(positives(1)).not.toEqual(positives(2))
  })

  test('runs bounds each kind per route, and 0 gives none', () => {
    for (const schema of all) {
      const cases = generateCases(schema, { runs: 2, seed: 1 })
      for (const kind of ['positive', 'boundary'] as const)
        expect(cases.filter((c) => c.kind === kind).length).toBeLessThanOrEqual(2)
      expect(cases.filter((c) => c.kind === 'negative' && c.rawBody === undefined).length).toBeLessThanOrEqual(2)
      expect(generateCases(schema, { runs: 0, seed: 1 })).toEqual([])
    }
  })
})

describe('every case is what it says', () => {
  test.each(all.map((s) => [s['x-route'], s] as const))('%s', (_route, schema) => {
    const validate = validatorOf(schema)
    for (const c of generateCases(schema, { runs: 40, seed: 3 })) {
      if (c.rawBody !== undefined) {
        expect(() => JSON.parse(c.rawBody as string)).toThrow()
        continue
      }
      const ok = validate(c.request)
      if (c.kind !== 'negative') {
        expect(ok, `${c.id} ${c.title}: ${JSON.stringify(validate.errors)}`).toBe(true)
        continue
      }
      expect(ok, `${c.id} ${c.title} passes its schema`).toBe(false)
      const place = c.place as { pointer: string; missing?: string }
      for (const error of validate.errors ?? []) {
        const where = place.missing === undefined ? error.instancePath : `${error.instancePath}:${error.keyword}`
        const expected = place.missing === undefined ? place.pointer : `${place.pointer}:required`
        expect(
          where === expected || (place.missing === undefined && where.startsWith(`${place.pointer}/`)),
          `${c.id} ${c.title}: an error at ${where}`,
        ).toBe(true)
      }
    }
  })
})

describe('POST /v1/responses, the worked example', () => {
  const cases = generateCases(responses, { runs: 100, seed: 1 })
  const negatives = cases.filter((c) => c.kind === 'negative')
  const boundaries = cases.filter((c) => c.kind === 'boundary')

  test('the seed comes first, {model} in it', () => {
    expect(cases[0]).toMatchObject({ kind: 'positive', title: 'the seed request', request: responses['x-seed'] })
  })

  test('each stated limit is broken at its nearest value past the edge', () => {
    const titles = negatives.map((c) => c.title)
    for (const expected of [
      'body.input missing (required)',
      'body.model missing (required)',
      'body.temperature 2.01, past its maximum 2',
      'body.temperature -0.01, below its minimum 0',
      'body.top_logprobs 21, past its maximum 20',
      'body.top_logprobs -1, below its minimum 0',
      'body.safety_identifier a string of 65 characters, one past its maxLength 64',
      'body.include ["gc-unlisted"], holding an item outside its listed values',
    ])
      expect(titles).toContain(expected)
    expect(titles.some((t) => t.startsWith('body.metadata an object of 17 members'))).toBe(true)
    expect(negatives.filter((c) => c.rawBody === NOT_JSON)).toHaveLength(1)
  })

  test('both edges of each range and every listed value are boundaries', () => {
    const titles = boundaries.map((c) => c.title)
    for (const expected of ['body.temperature 0, at its minimum', 'body.temperature 2, at its maximum'])
      expect(titles).toContain(expected)
    expect(titles.some((t) => t.startsWith('body.metadata an object of 16 members (keys up to 64'))).toBe(true)
    expect(titles.filter((t) => t.startsWith('body.include ')).length).toBe(7)
  })

  test('findings are filed under the constraint own requirement, or the phase entry of its part', () => {
    const context = {
      part: 1 as const,
      known: (id: string) => requirements().has(id),
      routeRequirement: 'P1-2.7-response-object',
    }
    const filed = (title: string) =>
      requirementOf(cases.find((c) => c.title === title) as (typeof cases)[number], context)
    expect(filed('body.input missing (required)')).toBe('P1-4.5-required-fields')
    expect(filed('body.temperature 2.01, past its maximum 2')).toBe('P1-4.5-temperature-refused')
    expect(filed('body.temperature 2, at its maximum')).toBe('P1-4.5-temperature-range')
    expect(filed('body.include ["gc-unlisted"], holding an item outside its listed values')).toBe(PHASE_REQUIREMENTS[1])
    expect(filed('body.temperature "gc-wrong-type", not of its type number or null')).toBe(PHASE_REQUIREMENTS[1])
    expect(filed('the seed request')).toBe('P1-2.7-response-object')
    for (const id of Object.values(PHASE_REQUIREMENTS))
      expect(requirements().get(id)).toMatchObject({ level: 'SHOULD', kind: 'refusal' })
  })

  test('a body that is not JSON goes under the MUST of its part, or the compatible routes own; only where a body is stated', () => {
    const notJsonOf = (route: string) => {
      const schema = all.find((s) => s['x-route'] === route) as RequestSchema
      const found = generateCases(schema, SETTINGS).find((c) => c.rawBody === NOT_JSON)
      return found && requirementOf(found, { part: schema['x-part'], known: (id) => requirements().has(id) })
    }
    expect(notJsonOf('POST /v1/responses')).toBe(NOT_JSON_REQUIREMENTS[1])
    expect(notJsonOf('POST /v1/chat/completions')).toBe(NOT_JSON_REQUIREMENTS[1])
    expect(notJsonOf('POST /v1/ocr')).toBe(NOT_JSON_REQUIREMENTS[2])
    expect(notJsonOf('POST /v1/embeddings')).toBe('P1-7-compatible-malformed-json')
    // Cancel's body is not stated (the convention sends none): a gateway may ignore one.
    expect(notJsonOf('POST /v1/responses/{response_id}/cancel')).toBeUndefined()
    for (const id of Object.values(NOT_JSON_REQUIREMENTS))
      expect(requirements().get(id)).toMatchObject({ level: 'MUST', kind: 'refusal' })
  })
})
