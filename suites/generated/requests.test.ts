/**
 * The generation phase: for every route with a request schema, requests generated from it (harness/generate/),
 * sent to the target and judged (judge.ts): valid ones (the seed, then the seed with optional stated fields added),
 * ones that break one stated constraint (and a body that is not JSON), and both edges of every stated limit. Each
 * case is a check of the requirement it is filed under (harness/generate/filing.ts), so a finding shows in every
 * report with its exchange and a curl line. Its size and seed are --generate-runs and --generate-seed; runs 0 turns
 * it off. On a paid target no case makes a video job (dollars a second).
 */
import { afterAll, describe } from 'vitest'
import { type RequestSchema, requestSchemas } from '../../common/request-schemas.ts'
import { generateCases, type GeneratedCase, refusalStated, seedRequest } from '../../harness/generate/cases.ts'
import { PHASE_REQUIREMENTS, requirementOf } from '../../harness/generate/filing.ts'
import { GENERATE_DEFAULTS } from '../../harness/generate/settings.ts'
import { requirements } from '../../harness/requirements.ts'
import { routes } from '../../harness/routes.ts'
import { is2xx, notObserved, precondition } from '../../harness/worker/assert.ts'
import { check, perFile, runConfig, target } from '../../harness/worker/suite.ts'
import { judge } from './judge.ts'
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
  judge(ex, c, settings.seed)
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
  })
}
