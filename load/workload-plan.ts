/**
 * A workload file (load/workload.ts) made into a profile: each phase's key and models are looked up on the
 * target, then a pool of request bodies is built before the phase starts (routes in the proportion of their
 * weights, in a seeded order, prompts drawn from the token distributions), so the generator only sends.
 */
import { isObject } from '../common/json.ts'
import type { Capability, NamedModels } from '../harness/setup/config.ts'
import { ConfigError } from '../harness/errors.ts'
import { deriveSeed, mulberry32 } from './engine/arrivals.ts'
import { connectionsFor, requireKey, slotOf, TIERS, type PlanContext, type Profile } from './profiles/profile.ts'
import { promptOf, sampleTokens } from './synthetic.ts'
import type { KeySlotName, PhasePlan, RequestSpec, PhaseVerdictId, RouteKind } from './types.ts'
import type { KeyChoice, Workload, WorkloadPhase } from './workload.ts'

export const POOL = {
  maxBodies: 512, // distinct bodies per phase; calls past them take the pool again from its start
  maxBytes: 64 * 1024 * 1024, // bytes of all pools of a profile at most, so long prompts mean fewer distinct bodies
}

interface RouteShape {
  method: 'GET' | 'POST'
  path: string
  /** GATEWAY_MODELS names tried in turn, then the first model of `mode` the key may use (section 2.3). */
  capabilities: Capability[]
  mode: string | null
  /** The reference makes the model optional (moderation, Part 2 section 4.7): none found is no error. */
  modelOptional?: boolean
  body?: (model: string | null, prompt: string, maxOutput: number) => Record<string, unknown>
  streamed?: boolean
}

/**
 * Bodies as the reference gives them (Part 1 sections 4.5 and 4.7, Part 2 section 4.7); embeddings and legacy
 * completions have no shape in the reference (section 4.8), so they take the widely used convention.
 */
const ROUTES: Record<RouteKind, RouteShape> = {
  responses: {
    method: 'POST',
    path: '/v1/responses',
    capabilities: ['responses', 'chat'],
    mode: 'chat',
    body: (model, input, max) => ({ model, input, max_output_tokens: max }),
  },
  'responses-stream': {
    method: 'POST',
    path: '/v1/responses',
    capabilities: ['responses', 'chat'],
    mode: 'chat',
    streamed: true,
    body: (model, input, max) => ({ model, input, stream: true, max_output_tokens: max }),
  },
  chat: {
    method: 'POST',
    path: '/v1/chat/completions',
    capabilities: ['chat'],
    mode: 'chat',
    body: (model, content, max) => ({ model, messages: [{ role: 'user', content }], max_completion_tokens: max }),
  },
  'chat-stream': {
    method: 'POST',
    path: '/v1/chat/completions',
    capabilities: ['chat'],
    mode: 'chat',
    streamed: true,
    body: (model, content, max) => ({
      model,
      messages: [{ role: 'user', content }],
      stream: true,
      max_completion_tokens: max,
    }),
  },
  embeddings: {
    method: 'POST',
    path: '/v1/embeddings',
    capabilities: ['embedding'],
    mode: 'embedding',
    body: (model, input) => ({ model, input }),
  },
  completions: {
    method: 'POST',
    path: '/v1/completions',
    capabilities: ['completion'],
    mode: 'completion',
    body: (model, prompt, max) => ({ model, prompt, max_tokens: max }),
  },
  moderations: {
    method: 'POST',
    path: '/v1/moderations',
    capabilities: ['moderation'],
    mode: 'moderation',
    modelOptional: true,
    body: (model, input) => (model === null ? { input } : { model, input }),
  },
  'models-list': { method: 'GET', path: '/v1/models', capabilities: [], mode: null },
}

/** Routes whose body carries an output cap. */
const GENERATES: readonly RouteKind[] = ['responses', 'responses-stream', 'chat', 'chat-stream', 'completions']

function slotFor(choice: KeyChoice, ctx: PlanContext): KeySlotName {
  if (ctx.tier !== null) return slotOf(ctx.tier)
  if (choice !== 'highest') return choice
  const tier = [...TIERS].reverse().find((t) => ctx.keys[slotOf(t)] !== undefined)
  return tier === undefined ? 'main' : slotOf(tier)
}

/** The model of a route: the file's, else GATEWAY_MODELS', else the first of its mode that the key may use. */
interface ModelList {
  status: number
  data: Record<string, unknown>[]
}

async function modelFor(
  kind: RouteKind,
  named: string | undefined,
  slot: KeySlotName,
  models: NamedModels,
  list: () => Promise<ModelList>,
): Promise<string | null> {
  const shape = ROUTES[kind]
  if (shape.mode === null) return null
  if (named !== undefined) return named
  for (const capability of shape.capabilities) {
    const id = models[capability]
    if (id !== undefined) return id
  }
  const tier = /^tier(\d)$/.exec(slot)?.[1]
  const { status, data } = await list()
  const found = data.find(
    (m) =>
      typeof m.id === 'string' &&
      m.mode === shape.mode &&
      (tier === undefined || typeof m.min_tier !== 'number' || m.min_tier <= Number(tier)),
  )
  if (found) return found.id as string
  if (shape.modelOptional) return null
  throw new ConfigError(
    `GET /v1/models with the ${slot} key (status ${status}) lists no ${shape.mode} model it may use for the ${kind} ` +
      `route; name one in the profile (model) or in GATEWAY_MODELS (${shape.capabilities[0]}=<id>)`,
  )
}

/** Route kinds in proportion to their weights over `size` slots (largest remainder), each route at least once. */
export function routeSequence(routes: readonly { weight: number }[], size: number, random: () => number): number[] {
  const total = routes.reduce((a, r) => a + r.weight, 0)
  const n = Math.max(size, routes.length)
  const exact = routes.map((r) => (r.weight / total) * n)
  const counts = exact.map((x) => Math.max(1, Math.floor(x)))
  let left = n - counts.reduce((a, b) => a + b, 0)
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i)
  for (let k = 0; left > 0; k = (k + 1) % byRemainder.length, left -= 1) {
    const i = (byRemainder[k] as { i: number }).i
    counts[i] = (counts[i] as number) + 1
  }
  const sequence = counts.flatMap((c, i) => Array.from({ length: c }, () => i))
  // Fisher-Yates: a seeded order, so calls of every kind are spread over the phase and repeat with the seed.
  for (let i = sequence.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1))
    ;[sequence[i], sequence[j]] = [sequence[j] as number, sequence[i] as number]
  }
  return sequence
}

/**
 * `copies`: how many pools share the bytes. Every phase's pool is built when the profile is planned, and autocannon
 * builds each connection's own copy of the requests, so a closed loop's share is smaller.
 */
function poolSize(phase: WorkloadPhase, rate: number | null, durationMs: number, copies: number): number {
  const planned = rate === null ? POOL.maxBodies : Math.ceil(rate * (durationMs / 1000))
  // About six bytes a word of the prompt, and the JSON around it.
  const perBody = phase.inputTokens.max * 6 + 256
  return Math.max(1, Math.min(POOL.maxBodies, planned, Math.floor(POOL.maxBytes / copies / perBody)))
}

function routeText(kind: RouteKind, model: string | null): string {
  const s = ROUTES[kind]
  const what = `${s.streamed ? 'streamed ' : ''}${s.method} ${s.path}`
  return model === null ? what : `${what} (${model}${kind === 'responses' ? ', not streamed' : ''})`
}

function describePhase(
  phase: WorkloadPhase,
  models: (string | null)[],
  rate: number | null,
  connections: number,
): string {
  const total = phase.routes.reduce((a, r) => a + r.weight, 0)
  const mix = phase.routes
    .map(
      (r, i) =>
        `${phase.routes.length > 1 ? `${Math.round((r.weight / total) * 100)}% ` : ''}` +
        routeText(r.kind, models[i] ?? null),
    )
    .join(', ')
  const generates = phase.routes.some((r) => GENERATES.includes(r.kind))
  const outputs = generates ? `, at most ${phase.maxOutputTokens.mean} output tokens` : ''
  const prompts = phase.routes.some((r) => r.kind !== 'models-list')
    ? `; prompts of about ${phase.inputTokens.mean} tokens${outputs}`
    : ''
  const load = rate === null ? `${mix}, ${connections} connections, closed loop` : `${+rate.toFixed(3)}/s ${mix}`
  const generated = `${load}${prompts}`
  return phase.description ? `${phase.description}: ${generated}` : generated
}

/** One call of route `i` of the phase, its prompt and output cap drawn with `random`. */
function requestOf(phase: WorkloadPhase, i: number, model: string | null, random: () => number): RequestSpec {
  const route = phase.routes[i] as WorkloadPhase['routes'][number]
  const shape = ROUTES[route.kind]
  const label = route.kind
  if (!shape.body) return { method: shape.method, path: shape.path, label }
  const prompt = promptOf(sampleTokens(phase.inputTokens, random), random)
  const body = shape.body(model, prompt, sampleTokens(phase.maxOutputTokens, random))
  // Only streamed responses are timed event by event (stream-stats.ts reads their typed events); a chat stream is
  // read to its end untimed, the reference showing no shape of its events (Part 1 section 6).
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(shape.streamed ? { accept: 'text/event-stream' } : {}),
  }
  return {
    method: shape.method,
    path: shape.path,
    headers,
    body: JSON.stringify(body),
    label,
    ...(route.kind === 'responses-stream' ? { stream: true } : {}),
  }
}

/** --seed, else the phase's own seed, else one derived from the file's, else from the run's (drawn at random). */
function phaseSeed(w: Workload, index: number, ctx: PlanContext): number {
  const own = w.phases[index]?.seed
  if (ctx.seedGiven || (own === undefined && w.seed === undefined)) return deriveSeed(ctx.seed ?? 0, index)
  return own ?? deriveSeed(w.seed as number, index)
}

export function workloadProfile(w: Workload): Profile {
  return {
    name: w.name,
    description: w.description,
    tier: null,
    caps: w.caps,
    ...(w.limits ? { limits: w.limits } : {}),
    async plan(ctx: PlanContext): Promise<PhasePlan[]> {
      const lists = new Map<KeySlotName, Promise<ModelList>>()
      const listFor = (slot: KeySlotName) => (): Promise<ModelList> => {
        let list = lists.get(slot)
        if (!list) {
          list = ctx.getJson('/v1/models', slot).then((answer) => {
            if (answer.status === 429)
              throw new ConfigError(
                `GET /v1/models with the ${slot} key was refused (429): the account's rate limit is ` +
                  `spent; wait a minute and run again`,
              )
            return {
              status: answer.status,
              data: isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data.filter(isObject) : [],
            }
          })
          lists.set(slot, list)
        }
        return list
      }
      const plans: PhasePlan[] = []
      for (const [index, phase] of w.phases.entries()) {
        const slot = slotFor(phase.key ?? w.key, ctx)
        const rate = phase.rate === null ? ctx.rate : (ctx.rate ?? phase.rate)
        const open = phase.rate !== null
        const connections = ctx.connections ?? phase.connections ?? connectionsFor(ctx, (rate ?? 1) * 4)
        const durationMs = ctx.durationMs ?? phase.durationMs
        const verdicts: PhaseVerdictId[] = !open
          ? ['throughput']
          : [
              ...(phase.routes.some((r) => r.kind === 'responses-stream') ? ['streaming' as const] : []),
              ...(phase.routes.some((r) => r.kind !== 'responses-stream') ? ['throughput' as const] : []),
            ]
        const common = {
          name: phase.name,
          engine: open ? ('scheduler' as const) : ('autocannon' as const),
          slot,
          rate,
          connections,
          durationMs,
          bucket: null,
          expectedLimit: null,
          fromRest: false,
          verdicts,
        }
        // Lookups only for the phases that will run (--phase), so a phase that needs no model needs no list.
        if (ctx.phases && !ctx.phases.includes(phase.name)) {
          plans.push({ ...common, description: phase.description ?? phase.name, requests: [], skip: 'not selected' })
          continue
        }
        requireKey(ctx, slot, w.name)
        const models: (string | null)[] = []
        for (const route of phase.routes)
          models.push(await modelFor(route.kind, route.model, slot, ctx.models ?? {}, listFor(slot)))
        const seed = phaseSeed(w, index, ctx)
        const random = mulberry32(deriveSeed(seed, 0x600d))
        const requests = routeSequence(
          phase.routes,
          poolSize(phase, rate, durationMs, w.phases.length * (open ? 1 : connections)),
          random,
        ).map((i) => requestOf(phase, i, models[i] ?? null, random))
        const total = phase.routes.reduce((a, r) => a + r.weight, 0)
        const weights: Record<string, number> = {}
        for (const r of phase.routes) weights[r.kind] = (weights[r.kind] ?? 0) + r.weight / total
        plans.push({
          ...common,
          description: describePhase(phase, models, rate, connections),
          requests,
          weights,
          ...(open
            ? {
                arrival: {
                  process: phase.arrival?.process ?? 'constant',
                  ...(phase.arrival?.burstiness !== undefined ? { burstiness: phase.arrival.burstiness } : {}),
                  ...(phase.ramp ? { ramp: phase.ramp } : {}),
                  seed,
                },
              }
            : {}),
        })
      }
      return plans
    },
  }
}
