/**
 * The generation phase: for every route with a request schema, requests generated from it (harness/generate/),
 * sent to the target and judged (judge.ts): valid ones (the seed, then the seed with optional stated fields added),
 * ones that break one stated constraint (and a body that is not JSON), and both edges of every stated limit; where §7
 * shows a route's refusal body (text:synthesize), the refusals of its negative cases are judged by it. Each
 * case is a check of the requirement it is filed under (harness/generate/filing.ts), so a finding shows in every
 * report with its exchange and a curl line. Its size and seed are --generate-runs and --generate-seed; runs 0 turns
 * it off. On a paid target no case makes a video job (dollars a second).
 */
import { afterAll, describe } from 'vitest'
import { type RequestSchema, requestSchemas } from '../../common/request-schemas.ts'
import { generateCases, type GeneratedCase, refusalStated, seedRequest } from '../../harness/generate/cases.ts'
import { PHASE_REQUIREMENTS, requirementOf } from '../../harness/generate/filing.ts'
import { statedRefusalBodies } from '../../harness/openapi/answers.ts'
import { GENERATE_DEFAULTS } from '../../harness/generate/settings.ts'
import { requirements } from '../../harness/requirements.ts'
import { routes } from '../../harness/routes.ts'
import { fail, is2xx, notObserved, precondition } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { check, perFile, runConfig, target } from '../../harness/worker/suite.ts'
import { caseWords, judge } from './judge.ts'
import { cleanUp, createdBy, materialise, modelCandidates, namesVideo } from './materials.ts'
import { send } from './send.ts'

const api = target()
const settings = runConfig().generate ?? { runs: GENERATE_DEFAULTS.runs, seed: GENERATE_DEFAULTS.seed }
const served = new Map(routes().map((r) => [r.route, r.requirement]))

afterAll(() => cleanUp(api))

/** The delete route of what a route creates (POST /v1/files: DELETE /v1/files/{file_id}), if the reference has one. */
function deletable(route: string): string | undefined {
  const [method, template] = route.split(' ')
  if (method !== 'POST') return undefined
  return [...served.keys()]
    .find((r) => new RegExp(`^DELETE ${template}/\\{[^}/]+\\}$`).test(r))
    ?.slice('DELETE '.length)
}

/**
 * A case that may make a video job, on a target that bills it by the second: left out. A negative one is sent only
 * where the words state its refusal; one past an edge they leave open (a 1001-character prompt) may be served.
 */
function costly(schema: RequestSchema, c: GeneratedCase): boolean {
  if (runConfig().embedded) return false
  if (namesVideo(c.request)) return true
  // A body that is not JSON is refused by every faithful gateway: it cannot start a job.
  const refused = c.keyword === 'json' || refusalStated(c)
  return schema['x-model'] === 'video' && (c.kind !== 'negative' || !refused)
}

/** Models tried for a route's `{model}`, with its seed request, before the first is taken anyway. */
const PROBES = 4
const chosen = perFile(() => new Map<string, Promise<string>>())
/** Routes whose `{model}` no candidate's seed request was served on: the model may be refused before the body. */
const unserved = perFile(() => new Set<string>())
/**
 * The refusals whose body the phase judges: a 401 is the key's, a 429 skips and a 5xx fails its case already, so each
 * would be a second verdict on one cause.
 */
const JUDGED_REFUSAL = (status: number): boolean => status >= 400 && status < 500 && status !== 401 && status !== 429
/** By route, then by case id, the answers of the negative cases of a route with such a body (refusalBodies). */
const negatives = perFile(() => new Map<string, Map<string, { ex: Exchange; c: GeneratedCase }>>())

/** A route's refusals whose body §7 shows and the phase judges, by status. */
function refusalBodies(route: string): Map<number, { schema: string; requirement: string }> {
  return new Map([...statedRefusalBodies(route)].filter(([status]) => JUDGED_REFUSAL(status)))
}

/**
 * The model a route's `{model}` stands for: the first candidate (materials.ts) whose seed request is served, so that
 * a route some models do not serve (the native interface, synthesis) is tried on one that does.
 */
function modelOf(schema: RequestSchema): () => Promise<string> {
  return () => {
    const route = schema['x-route']
    const made = chosen()
    if (!made.has(route))
      made.set(
        route,
        (async () => {
          const candidates = await modelCandidates(api, schema)
          for (const model of candidates.slice(0, PROBES)) {
            const seed = await materialise(api, schema, seedRequest(schema), async () => model)
            if (is2xx(await send(api, schema, { route }, seed))) return model
          }
          unserved().add(route)
          return candidates[0] as string
        })(),
      )
    return made.get(route) as Promise<string>
  }
}

async function run(schema: RequestSchema, c: GeneratedCase): Promise<void> {
  const request = await materialise(api, schema, c.request, modelOf(schema))
  const ex = await send(api, schema, c, request)
  if (ex.status >= 200 && ex.status < 300) createdBy(c.route, ex.json, deletable)
  // No model served the route's seed: a 404 to a body that is not JSON may refuse the model first, whose cause the
  // requirement stating the route reports.
  const requirement = served.get(c.route)
  if (c.keyword === 'json' && ex.status === 404 && unserved().has(c.route) && requirement !== undefined)
    precondition(
      false,
      requirement,
      `no model's seed request was served on ${c.route}: ${ex.status} may refuse the model`,
    )
  if (c.kind === 'negative' && refusalBodies(c.route).size > 0) {
    const byCase = negatives().get(c.route) ?? new Map()
    negatives().set(c.route, byCase.set(c.id, { ex, c }))
  }
  judge(ex, c, settings.seed)
}

/**
 * The body §7 gives a route's refusals (text:synthesize's {error: {code, message, status}}), judged on every refusal
 * of the route's negative cases: one check per requirement stating such a body. Declared after the cases, it runs
 * after them: the tests of a file run in order (none of this file is concurrent).
 */
function checkRefusalBodies(route: string): void {
  const stated = refusalBodies(route)
  for (const requirement of new Set([...stated.values()].map((s) => s.requirement))) {
    const statuses = [...stated].filter(([, s]) => s.requirement === requirement).map(([status]) => status)
    check(requirement, `the generated cases' refusals (${statuses.join(', ')}) have the body §7 gives them`, () => {
      const answered = [...(negatives().get(route)?.values() ?? [])]
      // A status §7 does not list for the route: what body it came with is recorded, not judged.
      for (const { ex } of answered.filter(({ ex }) => JUDGED_REFUSAL(ex.status) && !stated.has(ex.status))) {
        const body = statedRefusalBodies(route).values().next().value as { schema: string }
        const shown = schemas().validate(body.schema, ex.json).ok ? 'the body §7 shows' : 'another body'
        observe(`${route} refusal body`, `${ex.status}: ${shown}`)
      }
      const seen = answered.filter(({ ex }) => stated.get(ex.status)?.requirement === requirement)
      if (seen.length === 0) {
        const statusesSeen = [...new Set(answered.map(({ ex }) => ex.status))]
        notObserved(
          `no generated case of ${route} was refused with ${statuses.join(' or ')} (answered: ${statusesSeen.join(', ') || 'none sent'})`,
        )
      }
      const wrong = seen.flatMap(({ ex, c }) => {
        const errors =
          ex.jsonError !== undefined
            ? [`not JSON (${ex.jsonError})`]
            : schemas().validate((stated.get(ex.status) as { schema: string }).schema, ex.json).errors
        return errors.length === 0 ? [] : [{ ex, line: `${caseWords(c, settings.seed)}: ${ex.status}, ${errors[0]}` }]
      })
      const first = wrong[0]
      if (first !== undefined)
        fail(
          `every refusal of a generated case of ${route} in the body §7 gives it (${[...new Set([...stated.values()].map((s) => s.schema))].join(', ')})`,
          [`${wrong.length} of ${seen.length} refusals:`, ...wrong.map((w) => w.line)],
          first.ex,
        )
    })
  }
}

if (settings.runs === 0)
  check(PHASE_REQUIREMENTS[1], 'the generation phase is off', () => notObserved('--generate-runs 0 turns it off'))

for (const schema of settings.runs === 0 ? [] : requestSchemas()) {
  const route = schema['x-route']
  const context = {
    part: schema['x-part'],
    known: (id: string) => requirements().has(id),
    ...(served.has(route) ? { routeRequirement: served.get(route) as string } : {}),
  }
  describe(`${route} (generated, seed ${settings.seed})`, () => {
    for (const c of generateCases(schema, settings)) {
      const id = requirementOf(c, context)
      if (id === undefined || costly(schema, c)) continue
      check(id, `${c.kind}: ${c.title}`, () => run(schema, c))
    }
    checkRefusalBodies(route)
  })
}
