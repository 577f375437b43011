/**
 * tier-N-model: one chat model's request and token buckets (section 8.3), at the values the tier's key reads in
 * the model's extra.rate_limits.current. The model is the chat model this key may use with the smallest RPM, so
 * that the load is the lightest that reaches a limit. The RPM phase offers twice the RPM with one-token calls (or
 * what the organization's ceiling leaves, for as long as any allowed limiter needs to meet its first 429);
 * the TPM phase offers twice the TPM in calls of several thousand prompt words at a quarter of the RPM, so that
 * the token bucket binds first.
 */
import { ConfigError } from '../../harness/errors.ts'
import {
  connectionsFor,
  phaseMs,
  ratePerSecond,
  requireKey,
  slotOf,
  TIERS,
  type PlanContext,
  type Profile,
  type ProfileListing,
} from './profile.ts'
import type { KeySlotName, PhasePlan, RequestSpec } from '../types.ts'
import { isObject } from '../../common/json.ts'
import type { Capability } from '../../harness/setup/config.ts'
import { statedFor, type StatedLimit } from '../stated-limits.ts'

interface ModelLimits {
  id: string
  /** Calls per `periodMs`: the model's RPM, or the limit the operator stated. */
  rpm: number
  tpm: number | null
  periodMs: number
  /** Where the limits came from, for the phase's description. */
  source: string
}

type ModelRecord = Record<string, unknown>

/** extra.rate_limits.current of a model record (section 8.3), when it gives an rpm. */
function currentLimits(body: unknown): { rpm: number; tpm: number | null } | null {
  const current =
    isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits)
      ? body.extra.rate_limits.current
      : undefined
  if (!isObject(current) || typeof current.rpm !== 'number' || current.rpm <= 0) return null
  return { rpm: current.rpm, tpm: typeof current.tpm === 'number' && current.tpm > 0 ? current.tpm : null }
}

async function modelList(ctx: PlanContext, slot: KeySlotName): Promise<{ status: number; data: ModelRecord[] }> {
  const list = await ctx.getJson('/v1/models', slot)
  if (list.status === 429)
    throw new ConfigError(
      `GET /v1/models with the ${slot} key was refused (429): the account's rate limit is ` +
        `spent; wait a minute and run again`,
    )
  return {
    status: list.status,
    data: isObject(list.body) && Array.isArray(list.body.data) ? list.body.data.filter(isObject) : [],
  }
}

/**
 * The chat model and its limits: GATEWAY_MODELS' chat model, else the chat model this key may use with the
 * smallest RPM in extra.rate_limits.current. A target whose catalogue gives no rate_limits (a bare catalogue) is
 * judged against the limit the operator stated for POST /v1/chat/completions with this key (--limit).
 */
async function pickModel(ctx: PlanContext, tier: number): Promise<ModelLimits> {
  const slot = slotOf(tier)
  const stated = statedFor(ctx.limits, 'POST', '/v1/chat/completions', slot)
  const fromStated = (id: string, l: StatedLimit): ModelLimits => ({
    id,
    rpm: l.limit,
    tpm: null,
    periodMs: l.periodMs,
    source: `the limit stated with --limit (${l.text})`,
  })
  const named = ctx.models?.chat
  if (named !== undefined) {
    const current = currentLimits((await ctx.getJson(`/v1/models/${encodeURIComponent(named)}`, slot)).body)
    if (current) return { id: named, ...current, periodMs: ctx.minuteMs, source: 'extra.rate_limits.current' }
    if (stated) return fromStated(named, stated)
    throw new ConfigError(
      `${named} (GATEWAY_MODELS chat) shows no rpm in extra.rate_limits.current for the tier-${tier} key: state its ` +
        `limit, e.g. --limit 'chat=60/1m,key=${slot}'`,
    )
  }
  const list = await modelList(ctx, slot)
  const chat = list.data.filter(
    (m) => typeof m.id === 'string' && m.mode === 'chat' && (typeof m.min_tier !== 'number' || m.min_tier <= tier),
  )
  const found: ModelLimits[] = []
  for (const m of chat) {
    const current = currentLimits((await ctx.getJson(`/v1/models/${encodeURIComponent(m.id as string)}`, slot)).body)
    if (current)
      found.push({ id: m.id as string, ...current, periodMs: ctx.minuteMs, source: 'extra.rate_limits.current' })
  }
  found.sort((a, b) => a.rpm - b.rpm)
  const pick = found[0]
  if (pick) return pick
  if (stated && chat[0]) return fromStated(chat[0].id as string, stated)
  throw new ConfigError(
    stated
      ? `GET /v1/models with the tier-${tier} key lists no chat model (status ${list.status}): name ` +
          `one in GATEWAY_MODELS (chat=<id>)`
      : `no chat model that the tier-${tier} key may use shows an rpm in extra.rate_limits.current (GET /v1/models ` +
          `answered ${list.status}): name the model in GATEWAY_MODELS (chat=<id>) and state its limit, e.g. ` +
          `--limit 'chat=60/1m,key=${slot}'`,
  )
}

/**
 * A chat model the key may use: the first GATEWAY_MODELS names of `capabilities`, else the first chat model the
 * list offers, for profiles that need any model at all.
 */
export async function anyChatModel(
  ctx: PlanContext,
  slot: KeySlotName,
  capabilities: readonly Capability[] = ['chat'],
): Promise<string> {
  for (const capability of capabilities) {
    const named = ctx.models?.[capability]
    if (named !== undefined) return named
  }
  const list = await modelList(ctx, slot)
  const tier = /^tier(\d)$/.exec(slot)?.[1]
  const usable = list.data.find(
    (m) =>
      typeof m.id === 'string' &&
      m.mode === 'chat' &&
      (tier === undefined || typeof m.min_tier !== 'number' || m.min_tier <= Number(tier)),
  )
  if (!usable)
    throw new ConfigError(
      `GET /v1/models with the ${slot} key lists no chat model it may use (status ${list.status}): name one in ` +
        `GATEWAY_MODELS (${capabilities[0]}=<id>)`,
    )
  return usable.id as string
}

/** The longest RPM phase: an overload too small to reach the limit of a token bucket sooner is not worth more. */
const RPM_MAX_MINUTES = 15

function chatCall(model: string, words: number): RequestSpec {
  const content = words <= 1 ? 'Hi' : Array.from({ length: words }, (_, i) => `w${i % 100}`).join(' ')
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: 1 }),
  }
}

export const PROFILES: ProfileListing[] = [{ order: 20, make: () => TIERS.map(tierModelProfile) }]

export function tierModelProfile(tier: number): Profile {
  const name = `tier-${tier}-model`
  return {
    name,
    description:
      `A chat model's RPM and TPM buckets (section 8.3) with the tier-${tier} key, at twice the limits ` +
      `its extra.rate_limits.current gives`,
    tier,
    caps: { maxDurationMs: 20 * 60_000, maxRequests: 100_000 },
    async plan(ctx: PlanContext): Promise<PhasePlan[]> {
      const slot = slotOf(tier)
      requireKey(ctx, slot, name)
      const model = await pickModel(ctx, tier)
      // Every /v1 call of the organization may also count against a ceiling of its own (the reference gateway's
      // `account` class), which a call naming no model reports. Past it, 429s come from that bucket and the model's
      // RPM is never reached; so the phase offers at most 90 % of the ceiling, and is skipped when that cannot
      // pass the model's RPM.
      const ceilingText = (await ctx.getJson('/v1/models', slot)).headers['x-ratelimit-limit-requests']
      const ceiling = ceilingText !== undefined && /^\d+$/.test(ceilingText) ? Number(ceilingText) : null
      // The ceiling counts per minute, the model's limit per its period (a stated limit's may differ).
      const ceilingPerPeriod = ceiling === null ? null : (ceiling * model.periodMs) / ctx.minuteMs
      const perPeriod =
        ceilingPerPeriod === null ? 2 * model.rpm : Math.min(2 * model.rpm, Math.floor(0.9 * ceilingPerPeriod))
      const unreachable =
        ctx.rate === null && perPeriod <= model.rpm
          ? `the organization's ceiling of ${ceiling} calls per minute (x-ratelimit-limit-requests of GET ` +
            `/v1/models) leaves no room past ${model.id}'s limit of ${model.rpm}: the model's bucket cannot be reached`
          : undefined
      const rpmRate = ctx.rate ?? perPeriod / (model.periodMs / 1000)
      // A token bucket (or sliding window) admits L + L·T/minute from rest, so an overload of f times the RPM
      // meets its first 429 only after 1 / (f - 1) minutes: the phase lasts a fifth longer than that.
      const overload = perPeriod / model.rpm
      const rpmMinutes = overload > 1 ? Math.min(RPM_MAX_MINUTES, Math.max(2.2, 1.2 / (overload - 1))) : 2.2
      const periodOwn = model.periodMs === ctx.minuteMs ? {} : { periodMs: model.periodMs }
      const phases: PhasePlan[] = [
        {
          name: 'rpm',
          description:
            `${model.id}: ${overload.toFixed(2)}x its limit of ${model.rpm} per ${model.periodMs / 1000} ` +
            `s (${model.source}), one-token calls (${rpmRate.toFixed(2)} calls/s) for ${rpmMinutes.toFixed(1)} periods`,
          ...(unreachable ? { skip: unreachable } : {}),
          engine: rpmRate >= 50 && Number.isInteger(rpmRate) ? 'autocannon' : 'scheduler',
          slot,
          requests: [chatCall(model.id, 1)],
          rate: rpmRate,
          connections: connectionsFor(ctx, rpmRate),
          durationMs: ctx.durationMs ?? Math.round(rpmMinutes * model.periodMs),
          bucket: 'requests',
          expectedLimit: model.rpm,
          ...periodOwn,
          fromRest: true,
          verdicts: ['admission', 'headers', 'recovery'],
        },
      ]
      if (model.tpm !== null) {
        // Prompt words bound tokens from below (any tokenizer: harness/token-estimate.ts), so a call of W words
        // takes at least W tokens: twice the TPM per minute in a quarter of the RPM's calls.
        const callsPerMinute = Math.max(1, Math.floor(model.rpm / 4))
        const words = Math.min(100_000, Math.ceil((2 * model.tpm) / callsPerMinute))
        const rate = ratePerSecond(ctx, callsPerMinute)
        phases.push({
          name: 'tpm',
          description:
            `${model.id}: 2x its TPM of ${model.tpm} in calls of ${words} words at a quarter of its ` +
            `RPM (${rate.toFixed(2)} calls/s)`,
          engine: 'scheduler',
          slot,
          requests: [chatCall(model.id, words)],
          rate,
          connections: connectionsFor(ctx, rate),
          durationMs: phaseMs(ctx, 2.2),
          bucket: 'tokens',
          expectedLimit: model.tpm,
          fromRest: true,
          // Calls, not tokens, are what a load generator counts: the token bucket is judged on its headers and
          // on its promises of recovery, not on the admission bounds.
          verdicts: ['headers', 'recovery'],
        })
      }
      return phases
    },
  }
}
