/**
 * capacity: the highest arrival rate at which the target meets the objectives (load/capacity.ts), with
 * non-streamed POST /v1/responses calls of a chat model (streamed when an objective names ttft, itl or tpot).
 * `--rate` is the first step's rate, `--duration` each step's length. With `--tier N` the search uses that tier's
 * key and stays within its request limit per minute: the smaller of the model's rpm in extra.rate_limits.current
 * (Part 1 section 8.3) and the limit the target announces on GET /v1/models (x-ratelimit-limit-requests), since
 * whichever is hit first applies.
 */
import { isObject } from '../../common/json.ts'
import { ConfigError } from '../../harness/errors.ts'
import { BUCKET_MS } from '../engine/series.ts'
import { STREAM_METRICS } from '../objectives.ts'
import {
  CAPACITY,
  conclude,
  decide,
  judgeStep,
  searchObjectives,
  stepOf,
  type Judged,
  type SearchBounds,
} from '../capacity.ts'
import { statedFor } from '../stated-limits.ts'
import {
  requireKey,
  slotOf,
  TIERS,
  type PlanContext,
  type Profile,
  type ProfileListing,
  type Search,
} from './profile.ts'
import type { CapacityResult, KeySlotName, PhasePlan, PhaseResult, RequestSpec } from '../types.ts'
import { anyChatModel } from './tier-model.ts'

function slotFor(ctx: PlanContext): KeySlotName {
  if (ctx.tier !== null) return slotOf(ctx.tier)
  const tier = [...TIERS].reverse().find((t) => ctx.keys[slotOf(t)] !== undefined)
  return tier === undefined ? 'main' : slotOf(tier)
}

/** The tier's request limit per minute for this model: the smaller of what the model record and the target announce. */
async function tierLimit(
  ctx: PlanContext,
  slot: KeySlotName,
  model: string,
): Promise<NonNullable<CapacityResult['tierLimit']>> {
  const record = await ctx.getJson(`/v1/models/${encodeURIComponent(model)}`, slot)
  const body = record.body
  const current =
    isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits)
      ? body.extra.rate_limits.current
      : undefined
  const rpm = isObject(current) && typeof current.rpm === 'number' && current.rpm > 0 ? current.rpm : null
  const header = (await ctx.getJson('/v1/models', slot)).headers['x-ratelimit-limit-requests']
  const announced = header !== undefined && /^\d+$/.test(header.trim()) && Number(header) > 0 ? Number(header) : null
  const candidates: [number, string][] = []
  if (rpm !== null) candidates.push([rpm, `${model}'s rpm in extra.rate_limits.current`])
  if (announced !== null) candidates.push([announced, 'x-ratelimit-limit-requests of GET /v1/models'])
  const stated = statedFor(ctx.limits, 'POST', '/v1/responses', slot)
  if (stated)
    candidates.push([(stated.limit * ctx.minuteMs) / stated.periodMs, `the limit stated with --limit (${stated.text})`])
  const pick = candidates.sort((a, b) => a[0] - b[0])[0]
  if (pick === undefined)
    throw new ConfigError(
      `--tier ${ctx.tier}: neither ${model}'s record (extra.rate_limits.current.rpm) nor GET /v1/models ` +
        `(x-ratelimit-limit-requests) tells the tier's request limit; state it, e.g. --limit ` +
        `'responses=60/1m,key=${slot}'`,
    )
  return { perMinute: pick[0], perSecond: pick[0] / (ctx.minuteMs / 1000), source: pick[1] }
}

export const PROFILES: ProfileListing[] = [{ order: 60, make: () => [capacityProfile()] }]

export function capacityProfile(): Profile {
  const profile: Profile = {
    name: 'capacity',
    description:
      'Capacity search: the highest arrival rate of POST /v1/responses that meets the objectives (--slo), ramping ' +
      "then bisecting; with --tier, within that tier's limit",
    tier: null,
    caps: { maxDurationMs: 30 * 60_000, maxRequests: 2_000_000 },
    async plan(ctx) {
      return [(await profile.search!(ctx)).first]
    },
    async search(ctx): Promise<Search> {
      const slot = slotFor(ctx)
      requireKey(ctx, slot, 'capacity')
      const model = await anyChatModel(ctx, slot, ['responses', 'chat'])
      const limit = ctx.tier === null ? null : await tierLimit(ctx, slot, model)
      const objectives = searchObjectives(ctx.objectives ?? [])
      const stream = objectives.some((o) => STREAM_METRICS.has(o.metric))
      const request: RequestSpec = {
        method: 'POST',
        path: '/v1/responses',
        headers: { 'content-type': 'application/json', ...(stream ? { accept: 'text/event-stream' } : {}) },
        body: JSON.stringify({ model, input: 'Say hi.', max_output_tokens: 16, ...(stream ? { stream: true } : {}) }),
        ...(stream ? { stream: true } : {}),
      }
      const ceiling = limit === null ? CAPACITY.maxRate : limit.perSecond * CAPACITY.limitShare
      const bounds: SearchBounds = {
        start: ctx.rate ?? CAPACITY.startRate,
        ceiling,
        tierBound: limit !== null,
        maxSteps: CAPACITY.maxSteps,
      }
      const durationMs = ctx.durationMs ?? CAPACITY.stepMs
      const step = (index: number, next: NonNullable<ReturnType<typeof decide>['next']>): PhasePlan => ({
        name: `${next.kind}-${index}`,
        description:
          `${next.kind === 'ramp' ? 'ramp' : 'bisection'} step ${index}: ` +
          `${Number(next.rate.toPrecision(4))}/s of ${stream ? 'streamed' : 'non-streamed'} POST /v1/responses ` +
          `(${model}) for ${(durationMs / 1000).toFixed(1)} s`,
        engine: 'scheduler',
        slot,
        requests: [request],
        rate: next.rate,
        connections: ctx.connections ?? Math.min(256, Math.max(4, Math.ceil(next.rate))),
        durationMs,
        bucket: null,
        expectedLimit: null,
        fromRest: false,
        verdicts: [],
      })
      const judgedOf = (ran: readonly PhaseResult[]): Judged[] => ran.map((p) => judgeStep(p, objectives, BUCKET_MS))
      return {
        objectives,
        first: step(1, decide([], bounds).next!),
        next: (ran) => {
          const next = decide(judgedOf(ran), bounds).next
          return next === null ? null : step(ran.length + 1, next)
        },
        conclude: (ran, stopped) => {
          const judged = judgedOf(ran)
          const steps = ran.map((p, i) =>
            stepOf(p, judged[i] as Judged, p.plan.name.startsWith('bisect') ? 'bisect' : 'ramp'),
          )
          return conclude(steps, decide(judged, bounds), { objectives, tierLimit: limit, stopped, ceiling })
        },
      }
    },
  }
  return profile
}
