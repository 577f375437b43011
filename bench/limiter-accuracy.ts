/**
 * Limiter accuracy: the tier-2-usage profile's `double` phase (scheduler engine, 2x the /user/v1 limit, the other
 * tiers' probe beside it) against the embedded gateway on a one-second minute, once per --limiter, judged with
 * the same bounds as the load verdicts. In process is fine here: the load is about a hundred calls a second, far
 * from what either side can do.
 */
import { newRunId } from '../harness/setup/target.ts'
import { startEmbeddedGateway } from '../gateway/embedded.ts'
import { usageLimitPerMinute } from '../harness/limits.ts'
import { jsonGetter, type PlanContext } from '../load/profiles/profile.ts'
import { tierUsageProfile } from '../load/profiles/tier-usage.ts'
import { runProfile } from '../load/runner.ts'
import type { KeySlotName } from '../load/types.ts'
import { limitOf } from '../load/verdicts.ts'
import { admissionFigures } from '../load/bounds.ts'
import { LIMITER_ALGORITHMS, type LimiterAlgorithm } from '../gateway/limiter.ts'
import type { Row } from './table.ts'

interface LimiterAccuracyOptions {
  /** Minutes the phase loads; it lasts this many and a half. */
  minutes: number
}

const LIMITER_ACCURACY = {
  tier: 2,
  minuteMs: 1000,
  timeoutMs: 10_000, // per call: on loopback an answer takes milliseconds
}

interface ModeFigures {
  limiter: LimiterAlgorithm
  /** Admitted before the first 429, plus the calls in flight that may have overtaken it, less the limit: never below 0 (no early throttle). */
  first: number | null
  /** The tightest span's bound less what it admitted: never below 0 (no leak); near 0 when the limiter is exact. */
  margin: number | null
  admission: string
}

async function runMode(limiter: LimiterAlgorithm, durationMs: number): Promise<ModeFigures> {
  const { tier, minuteMs } = LIMITER_ACCURACY
  const gateway = await startEmbeddedGateway({ minuteMs, limiter })
  try {
    const keys = { ...gateway.keys } as Partial<Record<KeySlotName, string>>
    const ctx: PlanContext = {
      baseUrl: gateway.url,
      embedded: true,
      minuteMs,
      limiter,
      keys,
      tier: null,
      durationMs,
      rate: null,
      connections: null,
      timeoutMs: LIMITER_ACCURACY.timeoutMs,
      runId: newRunId(),
      getJson: jsonGetter(gateway.url, keys, LIMITER_ACCURACY.timeoutMs),
    }
    const result = await runProfile({
      profile: tierUsageProfile(tier),
      context: ctx,
      runId: `bench-limiter-accuracy-${limiter}`,
      shard: null,
      phases: ['double'],
      // The phase, its wait for rest and the clean-up, with room for a slow machine; never a hang.
      signal: AbortSignal.timeout(durationMs + 4 * minuteMs + 30_000),
      toolVersion: 'bench',
    })
    const phase = result.phases[0]
    if (phase === undefined || result.partial)
      throw new Error(`${limiter}: the double phase did not complete: ${result.stopReason ?? 'no phase result'}`)
    const limit = limitOf(phase) ?? (usageLimitPerMinute(tier) as number)
    const f = admissionFigures(phase, limit, minuteMs)
    return {
      limiter,
      first: f.beforeFirstRefusal === null ? null : f.beforeFirstRefusal + f.inFlight - limit,
      margin: f.tightest === null ? null : Math.floor(f.tightest.bound + 1e-9) - f.tightest.admitted,
      admission: result.verdicts.find((v) => v.id === 'admission')?.status ?? 'not judged',
    }
  } finally {
    await gateway.close()
  }
}

/**
 * Limiter accuracy, in each algorithm the reference gateway offers: at twice the limit from rest, the admissions
 * against the bounds every allowed limiter meets (load/bounds.ts): none refused before the limit, none admitted
 * past L + L·T/minute (or 2L + L·T/minute over a span not from rest).
 */
export async function limiterAccuracy(o: LimiterAccuracyOptions): Promise<Row> {
  const { tier, minuteMs } = LIMITER_ACCURACY
  const durationMs = (o.minutes + 0.5) * minuteMs
  const modes = await Promise.all(LIMITER_ALGORITHMS.map((limiter) => runMode(limiter, durationMs)))
  const show = (n: number | null): string => (n === null ? '-' : String(n))
  return {
    benchmark:
      'limiter accuracy (2x from rest, per --limiter: admitted before the first 429 and in flight, less L; tightest bound less admitted)',
    measured: modes.map((m) => `${m.limiter} ${show(m.first)}; ${show(m.margin)}`).join(', '),
    baseline: `limit ${usageLimitPerMinute(tier)} per ${minuteMs} ms`,
    figure: `${o.minutes} minutes each`,
    goal: '>= 0; >= 0 in each mode',
    met: modes.every(
      (m) => m.first !== null && m.first >= 0 && m.margin !== null && m.margin >= 0 && m.admission === 'pass',
    ),
    note: `tier-${tier}-usage phase double for ${(durationMs / 1000).toFixed(1)} s in each mode against the embedded gateway on a ${minuteMs} ms minute; the load verdict admission: ${modes.map((m) => `${m.limiter} ${m.admission}`).join(', ')}.`,
  }
}
