/**
 * `--abort-on-fail`, and a capacity step that has already broken: while a phase runs, its objectives are judged
 * on the figures so far, once the phase has a minimum sample (k6's delayAbortEval), and one that the calls still
 * planned can no longer bring back within its bound stops it (objectives.ts beyondRecovery).
 */
import type { PhaseRecorder } from './engine/recorder.ts'
import type { StreamStats } from './engine/stream-stats.ts'
import { beyondRecovery, countsOf, type Measured } from './objectives.ts'
import type { Objective, PhasePlan } from './types.ts'

export const ABORT = {
  minCalls: 50, // calls ended in the phase before any objective is judged on its figures so far
}

function liveMeasured(recorder: PhaseRecorder, stream: StreamStats | undefined): Measured & { ended: number } {
  const histograms = {
    e2e: recorder.okLatency,
    lag: recorder.lag,
    ttft: stream?.ttft,
    itl: stream?.interToken,
    tpot: stream?.tpot,
  }
  return {
    histogram: (metric) => histograms[metric] ?? null,
    ...countsOf(recorder.counts().byStatus, recorder.series.buckets(), recorder.errorsNamed('stopped')),
  }
}

/** The calls the phase will have made by its end: its plan's, or, closed loop, its pace so far over its length. */
function plannedCalls(plan: PhasePlan, recorder: PhaseRecorder, now: number): number {
  if (plan.rate !== null) return Math.floor((plan.rate * plan.durationMs) / 1000)
  const elapsed = Math.max(1, now - recorder.startedAt)
  return Math.ceil((recorder.sent * plan.durationMs) / elapsed)
}

/** One line naming the first objective breached beyond recovery, or null. */
export function breachedBeyondRecovery(
  objectives: readonly Objective[],
  plan: PhasePlan,
  recorder: PhaseRecorder,
  stream: StreamStats | undefined,
  now: number,
): string | null {
  if (objectives.length === 0) return null
  const measured = liveMeasured(recorder, stream)
  if (measured.ended < ABORT.minCalls) return null
  const planned = Math.max(measured.ended, plannedCalls(plan, recorder, now))
  for (const o of objectives) {
    const figure = beyondRecovery(o, measured, measured.ended, planned)
    if (figure !== null)
      return (
        `${o.name} breached beyond recovery in phase ${plan.name} after ${measured.ended} ` +
        `of ${planned} calls: ${figure}`
      )
  }
  return null
}
