/**
 * Limiter accuracy: at twice the limit, does every whole window admit exactly the limit? The tier-2-usage
 * profile's `double` phase (scheduler engine, 2x the /user/v1 limit, the other tiers' probe beside it) against
 * the embedded gateway on a one-second minute, judged with the same wholeWindows as the load verdicts. In
 * process is fine here: the load is about a hundred calls a second, far from what either side can do.
 */
import { newRunId } from '../../harness/target.ts'
import { startEmbeddedGateway } from '../../gateway/embedded.ts'
import { usageLimitPerMinute } from '../../harness/limits.ts'
import { jsonGetter, type PlanContext } from '../../load/profile.ts'
import { tierUsageProfile } from '../../load/profiles/tier-usage.ts'
import { runProfile } from '../../load/runner.ts'
import type { KeySlotName } from '../../load/types.ts'
import { limitOf, wholeWindows } from '../../load/verdicts.ts'
import type { Row } from './table.ts'

export interface LimiterAccuracyOptions {
  /** Whole windows the run must see; the phase lasts this many minutes and a half, so that the last one ends in it. */
  windows: number
}

export const LIMITER_ACCURACY = {
  tier: 2,
  minuteMs: 1000,
  timeoutMs: 10_000, // per call: on loopback an answer takes milliseconds
}

export async function limiterAccuracy(o: LimiterAccuracyOptions): Promise<Row> {
  const { tier, minuteMs } = LIMITER_ACCURACY
  // The first window opens a little after the phase starts and each lasts from its first call: half a minute
  // more than the count leaves room for the last one to close before the phase ends.
  const durationMs = (o.windows + 1.5) * minuteMs
  const gateway = await startEmbeddedGateway({ minuteMs })
  try {
    const keys = { ...gateway.keys } as Partial<Record<KeySlotName, string>>
    const ctx: PlanContext = { baseUrl: gateway.url, embedded: true, minuteMs, keys, tier: null, durationMs, rate: null, connections: null, timeoutMs: LIMITER_ACCURACY.timeoutMs, runId: newRunId(), getJson: jsonGetter(gateway.url, keys, LIMITER_ACCURACY.timeoutMs) }
    const result = await runProfile({
      profile: tierUsageProfile(tier),
      context: ctx,
      runId: 'bench-limiter-accuracy',
      shard: null,
      phases: ['double'],
      // The phase, its wait for a fresh window and the clean-up, with room for a slow machine; never a hang.
      signal: AbortSignal.timeout(durationMs + 4 * minuteMs + 30_000),
      toolVersion: 'bench',
    })
    const phase = result.phases[0]
    if (phase === undefined || result.partial) throw new Error(`the double phase did not complete: ${result.stopReason ?? 'no phase result'}`)
    const limit = limitOf(phase) ?? (usageLimitPerMinute(tier) as number)
    const whole = wholeWindows(phase, minuteMs)
    const over = whole.map((w) => w.admitted - limit)
    const min = over.length > 0 ? Math.min(...over) : Number.NaN
    const max = over.length > 0 ? Math.max(...over) : Number.NaN
    const admission = result.verdicts.find((v) => v.id === 'admission')
    const refused = whole.filter((w) => w.refused > 0).length
    return {
      benchmark: 'limiter accuracy (admitted - limit per whole window at 2x)',
      measured: `min ${min}, max ${max}`,
      baseline: `limit ${limit} per ${minuteMs} ms`,
      figure: `${whole.length} windows`,
      goal: `0 in each of >= ${o.windows}`,
      met: whole.length >= o.windows && min === 0 && max === 0,
      note:
        `tier-${tier}-usage phase double (${phase.plan.rate?.toFixed(0)} calls/s offered, ${phase.achievedRate.toFixed(1)}/s achieved, ${phase.plan.connections} connections) for ${(durationMs / 1000).toFixed(1)} s ` +
        `against the embedded gateway on a ${minuteMs} ms minute; ${refused} of ${whole.length} whole windows were loaded past the limit; ` +
        `admitted per window: ${whole.map((w) => w.admitted).join(', ') || 'none'}; the load verdict: admission ${admission?.status ?? 'not judged'}.`,
    }
  } finally {
    await gateway.close()
  }
}
