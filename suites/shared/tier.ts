/**
 * The caller's tier as the target itself reports it (Part 1 §2.3: extra.rate_limits.current of a retrieved model),
 * and as the key slots name it.
 */
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { TargetClient } from '../../harness/worker/http-client.ts'

/**
 * A tier as extra.rate_limits.current.tier gives it: §2.3 gives it no type, and keys `tiers` by the tier number as a
 * string, so the number and the number's string are both the tier; anything else is none.
 */
export function tierOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined
}

/** undefined when the retrieve does not say; callers choose their own fallback. */
export async function reportedTier(
  api: TargetClient,
  modelId: string,
  key: KeySlot = 'main',
): Promise<number | undefined> {
  const body = (await api.get(`/v1/models/${encodeURIComponent(modelId)}`, { key })).json
  const current =
    isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits)
      ? body.extra.rate_limits.current
      : undefined
  return isObject(current) ? tierOf(current.tier) : undefined
}

/**
 * The key with the most room on the usage endpoints (§8.1) and for file operations (§8.4), which grow with the tier,
 * so that checks which spend many calls do not trip the limit they are not about.
 */
export function roomiestKey(api: TargetClient): KeySlot {
  const order: KeySlot[] = ['tier5', 'tier4', 'tier3', 'main', 'tier2', 'tier1', 'tier0']
  return order.find((slot) => api.hasKey(slot)) ?? 'main'
}

/** The tier a tier key's slot names (GATEWAY_API_KEY_TIER3: 3); the main key's tier is not known here. */
export function slotTier(slot: KeySlot): number | undefined {
  const named = /^tier(\d)$/.exec(slot)
  return named ? Number(named[1]) : undefined
}
