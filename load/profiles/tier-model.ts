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
  type PlanContext,
  type Profile,
} from '../profile.ts'
import type { KeySlotName, PhasePlan, RequestSpec } from '../types.ts'
import { isObject } from '../../common/json.ts'

interface ModelLimits {
  id: string
  rpm: number
  tpm: number | null
}

async function pickModel(ctx: PlanContext, tier: number): Promise<ModelLimits> {
  const slot = slotOf(tier)
  const list = await ctx.getJson('/v1/models', slot)
  const data = isObject(list.body) && Array.isArray(list.body.data) ? list.body.data.filter(isObject) : []
  const chat = data.filter(
    (m) => typeof m.id === 'string' && m.mode === 'chat' && (typeof m.min_tier !== 'number' || m.min_tier <= tier),
  )
  const found: ModelLimits[] = []
  for (const m of chat) {
    const record = await ctx.getJson(`/v1/models/${encodeURIComponent(m.id as string)}`, slot)
    const body = record.body
    const current =
      isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits)
        ? body.extra.rate_limits.current
        : undefined
    if (isObject(current) && typeof current.rpm === 'number' && current.rpm > 0) {
      found.push({
        id: m.id as string,
        rpm: current.rpm,
        tpm: typeof current.tpm === 'number' && current.tpm > 0 ? current.tpm : null,
      })
    }
  }
  found.sort((a, b) => a.rpm - b.rpm)
  const pick = found[0]
  if (!pick)
    throw new ConfigError(
      `no chat model that the tier-${tier} key may use shows an rpm in extra.rate_limits.current (GET /v1/models answered ${list.status})`,
    )
  return pick
}

/** A chat model the key may use (the first the list offers), for profiles that need any model at all. */
export async function anyChatModel(ctx: PlanContext, slot: KeySlotName): Promise<string> {
  const list = await ctx.getJson('/v1/models', slot)
  const data = isObject(list.body) && Array.isArray(list.body.data) ? list.body.data.filter(isObject) : []
  const tier = /^tier(\d)$/.exec(slot)?.[1]
  const usable = data.find(
    (m) =>
      typeof m.id === 'string' &&
      m.mode === 'chat' &&
      (tier === undefined || typeof m.min_tier !== 'number' || m.min_tier <= Number(tier)),
  )
  if (list.status === 429)
    throw new ConfigError(
      `GET /v1/models with the ${slot} key was refused (429): the account's rate limit is spent; wait a minute and run again`,
    )
  if (!usable)
    throw new ConfigError(`GET /v1/models with the ${slot} key lists no chat model it may use (status ${list.status})`)
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

export function tierModelProfile(tier: number): Profile {
  const name = `tier-${tier}-model`
  return {
    name,
    description: `A chat model's RPM and TPM buckets (section 8.3) with the tier-${tier} key, at twice the limits its extra.rate_limits.current gives`,
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
      const perMinute = ceiling === null ? 2 * model.rpm : Math.min(2 * model.rpm, Math.floor(0.9 * ceiling))
      const unreachable =
        ctx.rate === null && perMinute <= model.rpm
          ? `the organization's ceiling of ${ceiling} calls per minute (x-ratelimit-limit-requests of GET /v1/models) leaves no room past ${model.id}'s RPM of ${model.rpm}: the model's bucket cannot be reached`
          : undefined
      const rpmRate = ratePerSecond(ctx, perMinute)
      // A token bucket (or sliding window) admits L + L·T/minute from rest, so an overload of f times the RPM
      // meets its first 429 only after 1 / (f - 1) minutes: the phase lasts a fifth longer than that.
      const overload = perMinute / model.rpm
      const rpmMinutes = overload > 1 ? Math.min(RPM_MAX_MINUTES, Math.max(2.2, 1.2 / (overload - 1))) : 2.2
      const phases: PhasePlan[] = [
        {
          name: 'rpm',
          description: `${model.id}: ${overload.toFixed(2)}x its RPM of ${model.rpm}, one-token calls (${rpmRate.toFixed(2)} calls/s) for ${rpmMinutes.toFixed(1)} minutes`,
          ...(unreachable ? { skip: unreachable } : {}),
          engine: rpmRate >= 50 && Number.isInteger(rpmRate) ? 'autocannon' : 'scheduler',
          slot,
          requests: [chatCall(model.id, 1)],
          rate: rpmRate,
          connections: connectionsFor(ctx, rpmRate),
          durationMs: phaseMs(ctx, rpmMinutes),
          bucket: 'requests',
          expectedLimit: model.rpm,
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
          description: `${model.id}: 2x its TPM of ${model.tpm} in calls of ${words} words at a quarter of its RPM (${rate.toFixed(2)} calls/s)`,
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
