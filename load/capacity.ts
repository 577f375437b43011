/**
 * The capacity search: the highest arrival rate at which the target meets the objectives. Open-loop steps of
 * rising rate (doubling from the start rate up to the ceiling), then a bisection between the last rate that
 * held and the first that broke, to a resolution. A step breaks when it breaches an objective, when it shows
 * over-saturation (the generator behind its plan, calls in flight growing through the step; GuideLLM stops a
 * sweep on the same signs), or when 429s pass the errors objective's share: a refusal is a limit speaking, so
 * the search ends there and says the limit, not the target's capacity, was met first.
 *
 * Every decision is a function of the steps' results alone, so result.json's steps explain the search.
 */
import { countsOf, evaluate, figureOf, measuredOf } from './objectives.ts'
import type { CapacityResult, CapacityStep, Objective, PhaseResult, StepOutcome, Verdict } from './types.ts'

export const CAPACITY = {
  startRate: 5, // calls/s of the first step, unless --rate
  maxRate: 5000, // calls/s: the search's own ceiling without --tier (one generator sends no more)
  stepMs: 15_000, // each step's length, unless --duration
  maxSteps: 14,
  resolution: 0.1, // the bisection stops when the first broken rate is within 10 % of the last held
  // with --tier, the highest step offers 90 % of the limit's rate: at the limit itself a window's jitter refuses a call
  // now and then
  limitShare: 0.9,
  minSentShare: 0.9, // a step whose generator sent less than 90 % of its plan (and 4 calls less) is behind it...
  maxBehindS: 1, // ...and so is one that was ever a second of arrivals (and 4 calls) behind
  queueGrowth: 2, // calls in flight in the step's last third at least twice those of its first third...
  queueGrowthMinS: 0.25, // ...and more by at least a quarter second of arrivals (and 4 calls): the queue grows
  // answers under 90 % of the calls sent through the step's last two thirds (and 4 calls; the bisection's resolution):
  // the target serves less than it is sent
  minServedShare: 0.9,
}

/** Objectives when --slo gives none; and errors=1% is added when --slo names no errors share. */
export const DEFAULT_OBJECTIVES: readonly Objective[] = [
  { name: 'e2e_p99', metric: 'e2e', stat: 99, bound: 5000 },
  { name: 'errors', metric: 'errors', stat: 'share', bound: 0.01 },
]

export function searchObjectives(given: readonly Objective[]): Objective[] {
  if (given.length === 0) return [...DEFAULT_OBJECTIVES]
  return given.some((o) => o.metric === 'errors') ? [...given] : [...given, DEFAULT_OBJECTIVES[1] as Objective]
}

export interface Judged {
  rate: number
  outcome: StepOutcome
  why: string
}

const pct = (share: number): string => `${Number((share * 100).toPrecision(3))}%`
const r = (rate: number): string => `${Number(rate.toPrecision(4))}/s`

/**
 * Mean calls in flight (sent so far less ended so far) in the first and the last third of the step's sending
 * time; the slices after it, where the last calls drain, say nothing of a queue.
 */
function queueSigns(phase: PhaseResult, bucketMs: number): { first: number; last: number } | null {
  const from = Math.floor(phase.startedAt / bucketMs)
  const to = Math.floor((phase.startedAt + phase.plan.durationMs) / bucketMs)
  const byT = new Map(phase.series.map((b) => [b.t, b]))
  let open = 0
  const inFlight: number[] = []
  for (let t = from; t < to; t += 1) {
    const b = byT.get(t)
    if (b) open += b.sent - (b.ok + b.refused + b.clientErrors + b.serverErrors + b.errors)
    inFlight.push(open)
  }
  if (inFlight.length < 6) return null
  const third = Math.floor(inFlight.length / 3)
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
  return { first: mean(inFlight.slice(0, third)), last: mean(inFlight.slice(-third)) }
}

/**
 * Calls sent through the last two thirds of the step's sending time, and the answers that came in the same span
 * shifted by the median latency, each counted by its slice: a target that keeps up answers as many calls as it is
 * sent (its latency only shifts them), one past its capacity answers at its own pace. Null when its median latency
 * is a third of the step or more, or the span is under six slices.
 */
function servedSigns(phase: PhaseResult, bucketMs: number): { answered: number; sent: number } | null {
  const durationMs = phase.plan.durationMs
  const p50 = phase.latency.p50
  if (p50 === null || p50 >= durationMs / 3) return null
  const from = Math.ceil((phase.startedAt + durationMs / 3) / bucketMs)
  const to = Math.floor((phase.startedAt + durationMs) / bucketMs)
  if (to - from < 6) return null
  const shift = Math.round(p50 / bucketMs)
  let answered = 0
  let sent = 0
  for (const b of phase.series) {
    if (b.t >= from && b.t < to) sent += b.sent
    if (b.t >= from + shift && b.t < to + shift)
      answered += b.ok + b.refused + b.clientErrors + b.serverErrors + b.errors
  }
  return { answered, sent }
}

type Sign = { outcome: StepOutcome; why: string }

/**
 * The generator behind its plan: the target's doing when every connection was busy (its answers held them), the
 * generator's own ceiling when connections were to spare (it could not send faster: nothing said of the target).
 */
function scheduleSign(phase: PhaseResult, rate: number): Sign | null {
  const ranMs = Math.min(phase.plan.durationMs, phase.endedAt - phase.startedAt)
  const planned = Math.floor((rate * ranMs) / 1000)
  const behind = phase.schedule?.maxBehindCalls ?? 0
  // A few calls short say nothing: a short step on a busy machine misses its last one or two at its end.
  const short = planned - phase.sent
  if (
    !((short > 4 && phase.sent < CAPACITY.minSentShare * planned) || behind > Math.max(4, rate * CAPACITY.maxBehindS))
  )
    return null
  const connections = phase.plan.connections
  const sentWhat =
    `the generator sent ${phase.sent} of ${planned} planned calls and was ` + `up to ${behind} behind its plan`
  if (phase.maxInFlight >= connections)
    return { outcome: 'saturated', why: `${sentWhat}: every one of ${connections} connections was busy` }
  return {
    outcome: 'generator',
    why:
      `${sentWhat} with at most ${phase.maxInFlight} of ${connections} connections busy: the generator's ` +
      `own ceiling, not the target's`,
  }
}

/** A step's outcome: refused, breached, generator, saturated or held, with every sign in one line. */
export function judgeStep(phase: PhaseResult, objectives: readonly Objective[], bucketMs: number): Judged {
  const rate = phase.plan.rate ?? 0
  const counts = countsOf(phase.byStatus, phase.series, phase.errors.stopped ?? 0)
  const errorsBound = objectives.find((o) => o.metric === 'errors')?.bound ?? 0.01
  const signs: Sign[] = []
  const refusedShare = counts.refused / Math.max(1, counts.ended)
  if (counts.refused > 0 && refusedShare > errorsBound)
    signs.push({
      outcome: 'refused',
      why: `${pct(refusedShare)} of calls refused (429), past ${pct(errorsBound)}: a limit`,
    })
  const measured = measuredOf(phase)
  for (const o of objectives) {
    const e = evaluate(o, measured)
    if (e.met === false) signs.push({ outcome: 'breached', why: `${o.name} breached: ${figureOf(e)}` })
  }
  if ((phase.goodput?.ok ?? 0) === 0) signs.push({ outcome: 'breached', why: 'no call was answered 2xx' })
  const schedule = scheduleSign(phase, rate)
  if (schedule) signs.push(schedule)
  const served = servedSigns(phase, bucketMs)
  if (served !== null && served.answered < CAPACITY.minServedShare * served.sent && served.sent - served.answered >= 4)
    signs.push({
      outcome: 'saturated',
      why:
        `the target answered ${served.answered} calls while ${served.sent} were sent through the step's last two ` +
        `thirds: it serves less than it is sent`,
    })
  const queue = queueSigns(phase, bucketMs)
  if (
    queue !== null &&
    queue.last >= CAPACITY.queueGrowth * Math.max(1, queue.first) &&
    queue.last - queue.first >= Math.max(4, rate * CAPACITY.queueGrowthMinS)
  ) {
    signs.push({
      outcome: 'saturated',
      why: `calls in flight grew from ${queue.first.toFixed(1)} to ${queue.last.toFixed(1)} through the step: a queue`,
    })
  }
  const first =
    (['refused', 'breached', 'generator'] as const)
      .map((o) => signs.find((s) => s.outcome === o))
      .find((s) => s !== undefined) ?? signs[0]
  if (first === undefined) return { rate, outcome: 'held', why: 'every objective met, schedule held, no queue' }
  return { rate, outcome: first.outcome, why: signs.map((s) => s.why).join('; ') }
}

export interface SearchBounds {
  start: number
  /** The highest rate the search offers: the tier limit's share, or CAPACITY.maxRate. */
  ceiling: number
  /** The ceiling is the tier's limit (else the search's own). */
  tierBound: boolean
  maxSteps: number
}

export interface Decision {
  /** The next step's rate and kind, or null when the search is over. */
  next: { rate: number; kind: 'ramp' | 'bisect' } | null
  why: string
}

/** What to do after the steps judged so far (in the order they ran). */
export function decide(judged: readonly Judged[], b: SearchBounds): Decision {
  if (judged.length === 0) return { next: { rate: Math.min(b.start, b.ceiling), kind: 'ramp' }, why: 'start' }
  const held = judged.filter((j) => j.outcome === 'held').map((j) => j.rate)
  const broken = judged.filter((j) => j.outcome !== 'held')
  const good = held.length > 0 ? Math.max(...held) : null
  const refused = broken.find((j) => j.outcome === 'refused')
  if (refused)
    return {
      next: null,
      why: `the target refused calls at ${r(refused.rate)} (${refused.why}): its limit was met before its capacity`,
    }
  const generator = broken.find((j) => j.outcome === 'generator')
  if (generator)
    return {
      next: null,
      why:
        `the generator could not send ${r(generator.rate)} (${generator.why}): the target's capacity lies beyond ` +
        `what this generator measures; give it more --workers or cores, or shard`,
    }
  const bad = broken.length > 0 ? broken.reduce((a, j) => (j.rate < a.rate ? j : a)) : null
  if (bad === null) {
    const last = judged.at(-1) as Judged
    if (last.rate >= b.ceiling) {
      const jitter = Math.round((1 - CAPACITY.limitShare) * 100)
      const reached = b.tierBound
        ? `the tier's limit (less ${jitter} % for a window's jitter) was met before the target's capacity`
        : "the search's ceiling was reached"
      return { next: null, why: `every step up to ${r(b.ceiling)} held: ${reached}` }
    }
    if (judged.length >= b.maxSteps)
      return { next: null, why: `the search's cap of ${b.maxSteps} steps was reached while rising` }
    return { next: { rate: Math.min(last.rate * 2, b.ceiling), kind: 'ramp' }, why: `${r(last.rate)} held` }
  }
  if (judged.length >= b.maxSteps)
    return { next: null, why: `the search's cap of ${b.maxSteps} steps was reached; ${r(bad.rate)} broke: ${bad.why}` }
  if (good === null) {
    const lower = bad.rate / 2
    if (lower < b.start / 8) return { next: null, why: `no rate held down to ${r(bad.rate)}: ${bad.why}` }
    return { next: { rate: lower, kind: 'bisect' }, why: `${r(bad.rate)} broke and no rate held yet` }
  }
  if (good > bad.rate) {
    // A lower rate broke after a higher one held: the target is not steady; the lowest broken rate bounds it.
    const held = judged.filter((j) => j.outcome === 'held' && j.rate < bad.rate).map((j) => j.rate)
    if (held.length === 0)
      return {
        next: null,
        why: `${r(bad.rate)} broke after ${r(good)} had held: the target is not steady at these rates (${bad.why})`,
      }
  }
  const below = Math.max(...judged.filter((j) => j.outcome === 'held' && j.rate < bad.rate).map((j) => j.rate))
  if ((bad.rate - below) / below <= CAPACITY.resolution)
    return {
      next: null,
      why:
        `resolved to within ${Math.round(CAPACITY.resolution * 100)} %: ${r(below)} held, ` +
        `${r(bad.rate)} broke (${bad.why})`,
    }
  return {
    next: { rate: (below + bad.rate) / 2, kind: 'bisect' },
    why: `between ${r(below)} held and ${r(bad.rate)} broken`,
  }
}

/** The step table's row of a phase. */
export function stepOf(phase: PhaseResult, judged: Judged, kind: 'ramp' | 'bisect'): CapacityStep {
  const counts = countsOf(phase.byStatus, phase.series, phase.errors.stopped ?? 0)
  return {
    phase: phase.plan.name,
    kind,
    offered: judged.rate,
    achieved: phase.achievedRate,
    throughput: phase.goodput?.throughputPerSecond ?? 0,
    goodput: phase.goodput?.goodputPerSecond ?? 0,
    p50Ms: phase.okLatency?.p50 ?? phase.latency.p50,
    p99Ms: phase.okLatency?.p99 ?? phase.latency.p99,
    errors: counts.judged === 0 ? 0 : counts.failed / counts.judged,
    refused: counts.refused,
    outcome: judged.outcome,
    why: judged.why,
  }
}

/** What broke a step, in the words of the capacity verdict's figure. */
const BROKE_BY: Record<StepOutcome, string> = {
  held: 'held',
  breached: 'an objective breached',
  saturated: "the target's latency: it fell behind the calls offered",
  refused: 'the target refused calls with 429',
  generator: "the generator's own ceiling",
}

/** The search's result and its one verdict: pass with the rate found, fail when no step held. */
export function conclude(
  steps: CapacityStep[],
  decision: Decision,
  o: { objectives: Objective[]; tierLimit: CapacityResult['tierLimit']; stopped: string | null; ceiling: number },
): { capacity: CapacityResult; verdicts: Verdict[] } {
  const held = steps.filter((s) => s.outcome === 'held')
  const broken = steps.filter((s) => s.outcome !== 'held')
  const best = held.length === 0 ? null : held.reduce((a, s) => (s.offered > a.offered ? s : a))
  const firstBroken = broken.length === 0 ? null : Math.min(...broken.map((s) => s.offered))
  const bound: CapacityResult['bound'] = broken.some((s) => s.outcome === 'refused')
    ? 'limit'
    : broken.some((s) => s.outcome === 'generator')
      ? 'generator'
      : firstBroken !== null
        ? 'capacity'
        : best !== null && best.offered >= o.ceiling
          ? o.tierLimit
            ? 'limit'
            : 'ceiling'
          : null
  const stopReason = o.stopped ?? decision.why
  const capacity: CapacityResult = {
    sustainable: best?.offered ?? null,
    firstBroken,
    bound,
    tierLimit: o.tierLimit,
    objectives: o.objectives,
    stopReason,
    steps,
  }
  const section = o.tierLimit ? 'P1-8.3' : '--slo'
  const met =
    bound === 'limit'
      ? "the target's limit"
      : bound === 'capacity'
        ? "the target's capacity"
        : bound === 'ceiling'
          ? "the search's ceiling"
          : bound === 'generator'
            ? "the generator's own ceiling (inconclusive)"
            : 'none'
  const lowest = broken.find((s) => s.offered === firstBroken)
  const brokenText = lowest === undefined ? '-' : `${r(lowest.offered)} (${BROKE_BY[lowest.outcome]})`
  const figure =
    best === null
      ? `no sustainable rate: ${steps.length} steps, the lowest broke at ${brokenText}`
      : `highest sustainable rate ${r(best.offered)} (throughput ${r(best.throughput)}, goodput ${r(best.goodput)}, ` +
        `p99 ${Math.round(best.p99Ms)} ms); first broken ${brokenText}; bound met first: ${met}`
  const base = { id: 'capacity' as const, phase: 'search', figure, section }
  const verdict: Verdict =
    steps.length === 0
      ? { ...base, status: 'inconclusive', detail: `no step ran: ${stopReason}` }
      : bound === 'generator'
        ? {
            ...base,
            status: 'inconclusive',
            detail: `the generator, not the target, stopped the search: ${stopReason}`,
          }
        : best === null
          ? { ...base, status: 'fail', detail: `no step met the objectives: ${stopReason}` }
          : { ...base, status: 'pass', detail: stopReason }
  return { capacity, verdicts: [verdict] }
}
