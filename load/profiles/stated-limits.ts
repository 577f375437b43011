/**
 * stated-limits: each limit the operator stated (--limit, or a workload file's limits:) loaded at twice its rate
 * from rest, then at twice its rate with every other call failing on purpose (section 7: failed calls count). The
 * verdicts are the tier profiles', against the stated limit and its period instead of a table of the reference:
 * for a target that enforces limits it does not announce.
 */
import { ConfigError } from '../../harness/errors.ts'
import { connectionsFor, requireKey, type PlanContext, type Profile, type ProfileListing } from './profile.ts'
import { describeLimit, KIND_ROUTES, LIMIT_FORMAT, type StatedLimit } from '../stated-limits.ts'
import type { PhasePlan, RequestSpec, RouteKind } from '../types.ts'
import { workloadProfile } from '../workload-plan.ts'

/** As the tier profiles: an overloaded phase lasts three periods and a little more (verdicts.ts, bounds.ts). */
const OVERLOAD_PERIODS = 3.2

/** The route kind whose calls a stated route is, preferring the unstreamed one; none for a route no kind sends. */
function kindOf(l: StatedLimit): RouteKind | undefined {
  if (l.kind !== undefined) return l.kind
  return (Object.keys(KIND_ROUTES) as RouteKind[]).find(
    (k) => !k.endsWith('-stream') && KIND_ROUTES[k].method === l.method && KIND_ROUTES[k].path === l.path,
  )
}

/** One call on the stated route: a route kind's (model from GATEWAY_MODELS, else the catalogue), or a bare GET. */
async function callOf(l: StatedLimit, ctx: PlanContext): Promise<RequestSpec> {
  const kind = kindOf(l)
  if (kind === undefined) {
    if (l.method !== 'GET')
      throw new ConfigError(
        `--limit "${l.text}": calls of ${l.method} ${l.path} have no body this harness knows; state a route kind ` +
          `(${Object.keys(KIND_ROUTES).join(', ')}) or a GET route`,
      )
    return { method: 'GET', path: l.path }
  }
  const one = workloadProfile({
    file: '--limit',
    name: 'stated-limit',
    description: '',
    key: l.slot,
    caps: { maxDurationMs: 60_000, maxRequests: 1 },
    phases: [
      {
        name: 'call',
        routes: [{ kind, weight: 1 }],
        inputTokens: { mean: 1, stddev: 0, min: 1, max: 1 },
        maxOutputTokens: { mean: 1, stddev: 0, min: 1, max: 1 },
        rate: 1,
        durationMs: 1000,
      },
    ],
  })
  const [plan] = await one.plan({ ...ctx, tier: null, rate: null, durationMs: null, phases: null, seedGiven: true })
  return plan?.requests[0] as RequestSpec
}

/** The same call made to fail on purpose: a body that names the model and nothing else is a 400 on every route kind. */
function failing(call: RequestSpec): RequestSpec | null {
  if (call.method !== 'POST' || typeof call.body !== 'string') return null
  const { model } = JSON.parse(call.body) as { model?: unknown }
  return {
    ...call,
    body: JSON.stringify(model === undefined || model === null ? {} : { model }),
    deliberateFailure: true,
  }
}

function slug(l: StatedLimit): string {
  return (l.kind ?? l.path.replace(/^\/+/, '').replace(/[^a-z0-9]+/gi, '-')).toLowerCase()
}

export const PROFILES: ProfileListing[] = [{ order: 70, make: () => [statedLimitsProfile()] }]

export function statedLimitsProfile(): Profile {
  return {
    name: 'stated-limits',
    description:
      "Each limit stated with --limit (or a workload file's limits:) at twice its rate from rest, then with failing " +
      'calls mixed in: admission, headers, recovery, refusal (429), failed calls',
    tier: null,
    caps: { maxDurationMs: 30 * 60_000, maxRequests: 50_000 },
    async plan(ctx: PlanContext): Promise<PhasePlan[]> {
      const limits = ctx.limits ?? []
      if (limits.length === 0)
        throw new ConfigError(`the profile stated-limits judges the limits you state: give --limit ${LIMIT_FORMAT}`)
      const plans: PhasePlan[] = []
      for (const l of limits) {
        requireKey(ctx, l.slot, 'stated-limits')
        // Two limits on one route (for two keys) name their phases by the key as well.
        const name = limits.filter((o) => slug(o) === slug(l)).length > 1 ? `${slug(l)}-${l.slot}` : slug(l)
        const selected = (phase: string): boolean => !ctx.phases || ctx.phases.includes(phase)
        const double = `${name}-double`
        const failedCalls = `${name}-failed-calls`
        if (!selected(double) && !selected(failedCalls)) continue
        const call = await callOf(l, ctx)
        const rate = ctx.rate ?? (2 * l.limit) / (l.periodMs / 1000)
        const common = {
          engine: 'scheduler' as const,
          slot: l.slot,
          rate,
          connections: connectionsFor(ctx, rate),
          durationMs: ctx.durationMs ?? Math.round(OVERLOAD_PERIODS * l.periodMs),
          bucket: 'requests' as const,
          expectedLimit: l.limit,
          periodMs: l.periodMs,
          stated: { text: l.text, headers: l.headers !== undefined },
          fromRest: true,
        }
        plans.push({
          ...common,
          name: double,
          description: `2x ${describeLimit(l)}: ${rate.toFixed(2)} calls/s`,
          requests: [call],
          verdicts: ['admission', ...(l.headers ? (['headers'] as const) : []), 'recovery', 'refusal'],
        })
        const fail = failing(call)
        plans.push({
          ...common,
          name: failedCalls,
          description: `2x ${describeLimit(l)}, every other call a 400 (a body without its input) that must count`,
          requests: fail ? [call, fail] : [call],
          verdicts: ['failed-calls', 'refusal'],
          ...(fail
            ? {}
            : { skip: `no call of ${l.method} ${l.path} is known to fail on purpose (only POST bodies are emptied)` }),
        })
      }
      return plans
    },
  }
}
