/** The caller's tier as the target itself reports it (Part 1 §2.3: extra.rate_limits.current of a retrieved model). */
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/setup/config.ts'
import type { TargetClient } from '../../harness/worker/http-client.ts'

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
  return isObject(current) && typeof current.tier === 'number' ? current.tier : undefined
}
