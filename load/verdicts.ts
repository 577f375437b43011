/**
 * Verdicts, each with the figure it rests on, computed from a phase's aggregates only (so a merge of shards
 * judges the whole exactly as one run would). A verdict that the run cannot support (the generator fell behind
 * its schedule, no whole window was seen) is `inconclusive`, never a pass.
 */
import type { PhaseResult, Verdict, VerdictId, WindowRecord } from './types.ts'

export interface JudgeContext {
  minuteMs: number
  /** Every phase of the run, for verdicts that compare phases (backoff shows the other clients beside). */
  phases: readonly PhaseResult[]
}

/** The section of the limits a route's calls count against: usage (8.1), files (8.4), models (8.3). */
export function sectionOfRoute(route: string): string {
  if (route.includes('/user/v1')) return 'P1-8.1'
  if (route.includes('/v1/files')) return 'P1-8.4'
  return 'P1-8.3'
}

const sectionOf = (phase: PhaseResult): string => sectionOfRoute(phase.plan.routes[0] ?? '')

function verdict(phase: PhaseResult, id: VerdictId, status: Verdict['status'], figure: string, detail: string, section: string = sectionOf(phase)): Verdict {
  return { id, phase: phase.plan.name, status, figure, detail, section }
}

/** The limit a phase is judged against: the reference's table when the plan knows it, else what the headers said. */
export function limitOf(phase: PhaseResult): number | null {
  if (phase.plan.expectedLimit !== null) return phase.plan.expectedLimit
  const counts = new Map<number, number>()
  for (const w of phase.windows) if (w.limit !== null) counts.set(w.limit, (counts.get(w.limit) ?? 0) + w.admitted + w.refused)
  let best: number | null = null
  for (const [limit, n] of counts) if (best === null || n > (counts.get(best) ?? 0)) best = limit
  return best
}

/**
 * Windows that the phase loaded from their first call to their end: the first one only when the phase began in
 * a fresh window, and only windows that ended before the phase did.
 */
export function wholeWindows(phase: PhaseResult, minuteMs: number): WindowRecord[] {
  // An announced end is received-at plus reset, so it is late by the answer's way back; a busy machine makes
  // that hundreds of milliseconds. The earliest announced end of a window is the least delayed.
  const slack = Math.max(20, minuteMs / 10, 2 * phase.latency.p99)
  return phase.windows.filter((w, i) => {
    if (w.announcedEndMin > phase.endedAt) return false
    if (i === 0 && !phase.plan.freshWindow) return false
    // A window announced as longer than a minute from its first call is not one this phase saw whole.
    return w.announcedEndMin - w.firstSentAt <= minuteMs + slack
  })
}

function behindSchedule(phase: PhaseResult): string | null {
  const s = phase.schedule
  if (s === null || s.conclusive) return null
  return `the generator was up to ${s.maxBehindCalls} calls behind its plan (bound ${s.maxBehindCalls > s.boundCalls ? s.boundCalls : 'met'}) and achieved ${phase.achievedRate.toFixed(2)}/s of ${phase.plan.rate}/s offered, so the windows were not loaded as planned`
}

const list = (values: Array<number | string>, max = 8): string => (values.length <= max ? values.join(', ') : `${values.slice(0, max).join(', ')}, ... (${values.length})`)

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
}

export function judgeAdmission(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'admission', 'inconclusive', '-', behind)
  const limit = limitOf(phase)
  if (limit === null) return verdict(phase, 'admission', 'inconclusive', '-', 'no response carried a limit header and the reference gives no table value for this bucket')
  const expectedWindows = (phase.endedAt - phase.startedAt) / ctx.minuteMs + 2
  if (phase.windows.length > 2 * expectedWindows + 2) {
    return verdict(phase, 'admission', 'inconclusive', `${phase.windows.length} announced windows`, `the announced resets of ${phase.windows.length} answers do not form windows of a minute (about ${Math.ceil(expectedWindows)} expected), so calls cannot be counted per window`)
  }
  const whole = wholeWindows(phase, ctx.minuteMs)
  if (whole.length === 0) return verdict(phase, 'admission', 'inconclusive', 'no whole window', `no window was loaded from its start to its end in ${((phase.endedAt - phase.startedAt) / 1000).toFixed(1)} s; run longer than two minutes' windows`)
  const problems: string[] = []
  for (const w of whole) {
    const allowance = Math.max(0, w.maxInFlight - 1)
    if (w.refused > 0 && w.admitted < limit) problems.push(`throttled early: ${w.admitted} admitted before the first 429 in a window of limit ${limit}`)
    if (w.admitted > limit + allowance) problems.push(`leaked: ${w.admitted} admitted in one window, limit ${limit} plus ${allowance} in flight`)
  }
  const figure = `admitted per whole window: ${list(whole.map((w) => w.admitted))} (limit ${limit})`
  if (problems.length > 0) return verdict(phase, 'admission', 'fail', figure, [...new Set(problems)].slice(0, 3).join('; '))
  const saturated = whole.filter((w) => w.refused > 0).length
  return verdict(phase, 'admission', 'pass', figure, `${whole.length} whole windows, ${saturated} of them loaded past the limit: none throttled before the limit or admitted past it (plus the calls in flight)`)
}

export function judgeHeaders(phase: PhaseResult): Verdict {
  const h = phase.headers
  const sum = (pick: (w: WindowRecord) => number): number => phase.windows.reduce((n, w) => n + pick(w), 0)
  const perCall = phase.plan.bucket === 'requests'
  const rises = perCall ? phase.windows.filter((w) => w.maxRise > Math.max(0, w.maxInFlight - 1)).length : 0
  const withRoom = perCall ? sum((w) => w.refusedWithRoom) : 0
  const negative = sum((w) => w.negativeRemaining)
  const limitChanges = sum((w) => w.limitChanges)
  const problems: string[] = []
  if (h.missing > 0) problems.push(`${h.missing} of ${h.responses} answers (${h.missingOnRefused} of ${h.refused} 429s) lacked a limit, remaining or reset header of the ${phase.plan.bucket} bucket`)
  if (h.unparsable > 0) problems.push(`${h.unparsable} answers had a value that does not parse (remaining below zero included)`)
  if (rises > 0) problems.push(`in ${rises} windows remaining went up by more than the calls in flight could explain`)
  if (withRoom > 0) problems.push(`${withRoom} 429s still reported remaining above zero: remaining does not count down`)
  if (negative > 0) problems.push(`${negative} answers reported negative remaining`)
  if (limitChanges > 0) problems.push(`the limit header changed ${limitChanges} times inside a window`)
  if (h.limitNotTable > 0) problems.push(`${h.limitNotTable} answers reported a limit other than the reference's ${phase.plan.expectedLimit}`)
  const figure = `${h.responses} answers, ${h.missing} without the headers, ${rises} rises, ${withRoom} refusals with room, ${limitChanges} limit changes`
  if (h.responses === 0) return verdict(phase, 'headers', 'inconclusive', figure, 'no answer was received', 'P1-4.1')
  if (problems.length > 0) return verdict(phase, 'headers', 'fail', figure, problems.join('; '), 'P1-4.1')
  return verdict(phase, 'headers', 'pass', figure, `every answer, 429s included, carried the three ${phase.plan.bucket} headers; remaining never rose within a window nor went negative; the limit held still; every reset parsed`, 'P1-4.1')
}

export function judgeRecovery(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'recovery', 'inconclusive', '-', behind, 'P1-7')
  const interval = phase.plan.rate ? 1000 / phase.plan.rate : 0
  const rounding = phase.headers.resetFractional === 0 ? 1000 : 0
  const tolerance = Math.max(50, 2 * phase.latency.p99) + rounding
  const errors: number[] = []
  const retryErrors: number[] = []
  const problems: string[] = []
  // Another generator (a shard, a second client) may take a fresh window before this one's next call: a refusal
  // after the promise then says the new window filled, not that the promise was broken. The windows show it:
  // a later window admitted a call sent before the refusal.
  const refilled = (promise: number, by: number): boolean =>
    phase.windows.some((w) => w.announcedEndMin > promise + tolerance && w.firstAdmittedSentAt !== null && w.firstAdmittedSentAt <= by)
  for (const r of phase.recoveries) {
    if (r.promisedEnd + tolerance + interval > phase.endedAt) continue // the phase ended before the promise could be tried
    if (refilled(r.promisedEnd, r.lastRefusedSentAt)) continue
    if (r.lastRefusedSentAt > r.promisedEnd + tolerance) {
      problems.push(`a call sent ${(r.lastRefusedSentAt - r.promisedEnd).toFixed(0)} ms after the announced reset was still refused`)
    }
    if (r.retryAfterEnd !== null && r.lastRefusedSentAt > r.retryAfterEnd + tolerance) {
      problems.push(`a call sent ${(r.lastRefusedSentAt - r.retryAfterEnd).toFixed(0)} ms after Retry-After had passed was still refused`)
    }
    const success = r.firstAdmittedSentAt
    if (success === null) continue
    errors.push(Math.round(success - r.promisedEnd))
    if (r.retryAfterEnd !== null) retryErrors.push(Math.round(success - r.retryAfterEnd))
    if (success < r.promisedEnd - tolerance) problems.push(`a call was admitted ${(r.promisedEnd - success).toFixed(0)} ms before the announced reset`)
    // A success later than the promise is the target's fault only if a call sent in between was refused, which
    // the check above sees; otherwise it is our schedule (the next call was not due yet, or left late).
  }
  if (errors.length === 0 && problems.length === 0) {
    return verdict(phase, 'recovery', 'inconclusive', 'no 429 followed by a success', 'no refusal was followed by a success within the phase', 'P1-7')
  }
  const figure = `first success minus announced reset: p50 ${percentile(errors, 50)} ms, p99 ${percentile(errors, 99)} ms${retryErrors.length ? `; minus Retry-After: p50 ${percentile(retryErrors, 50)} ms, p99 ${percentile(retryErrors, 99)} ms` : ''} (${errors.length} recoveries, tolerance ${tolerance.toFixed(0)} ms)`
  if (problems.length > 0) return verdict(phase, 'recovery', 'fail', figure, [...new Set(problems)].slice(0, 3).join('; '), 'P1-7')
  return verdict(phase, 'recovery', 'pass', figure, 'after every 429, no call sent after the announced reset or Retry-After was refused, and none was admitted before the reset', 'P1-7')
}

export function judgeFailedCalls(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'failed-calls', 'inconclusive', '-', behind, 'P1-7')
  const limit = limitOf(phase)
  const whole = wholeWindows(phase, ctx.minuteMs).filter((w) => w.deliberateFailures > 0)
  if (limit === null || whole.length === 0) return verdict(phase, 'failed-calls', 'inconclusive', '-', 'no whole window held calls that failed on purpose', 'P1-7')
  const figure = `per whole window, admitted (of which failed on purpose): ${list(whole.map((w) => `${w.admitted} (${w.deliberateFailures})`))}; limit ${limit}`
  const leaking = whole.filter((w) => w.admitted > limit + Math.max(0, w.maxInFlight - 1))
  if (leaking.length > 0) {
    return verdict(phase, 'failed-calls', 'fail', figure, `${leaking.length} windows admitted more than the limit once failed calls are counted: failed calls did not count toward the limit`, 'P1-7')
  }
  const loaded = whole.filter((w) => w.refused > 0)
  if (loaded.length === 0) return verdict(phase, 'failed-calls', 'inconclusive', figure, 'no window with failed calls was loaded past the limit', 'P1-7')
  return verdict(phase, 'failed-calls', 'pass', figure, 'the 429s began once successes and failures together reached the limit', 'P1-7')
}

export function judgeIsolation(phase: PhaseResult): Verdict {
  const probe = phase.probe
  if (!probe || phase.plan.probe === undefined) return verdict(phase, 'isolation', 'skip', '-', 'no second account key was given, so isolation was not measured')
  const saturated = phase.windows.some((w) => w.refused > 0)
  const figure = `other account (${phase.plan.probe.slot}): ${probe.answered} answers, ${probe.refused} refused, while this one had ${phase.byStatus['429'] ?? 0} 429s`
  if (probe.refused > 0) return verdict(phase, 'isolation', 'fail', figure, `calls of another account were refused while this account was saturated: its limit is not its own`)
  if (!saturated) return verdict(phase, 'isolation', 'inconclusive', figure, 'this account was never throttled, so its saturation could not have spilled over')
  if (probe.answered === 0) return verdict(phase, 'isolation', 'inconclusive', figure, 'the other account got no answer')
  return verdict(phase, 'isolation', 'pass', figure, 'saturating this account left the other account untouched')
}

/** Goodput per whole window as a fraction of the limit. */
export function goodputPerWindow(phase: PhaseResult, minuteMs: number): number[] {
  const limit = limitOf(phase)
  if (limit === null || limit === 0) return []
  return wholeWindows(phase, minuteMs).map((w) => Math.round(((w.admitted - w.deliberateFailures) / limit) * 1000) / 1000)
}

const mean = (values: number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length)

export const BACKOFF_GOALS = {
  minGoodput: 0.9, // issue 6: the section 7 client reaches at least 90 % of the limit
  /** 429s per success: one refusal per worker per window is what any client that cannot see the future pays; twice that, or 0.5, at most. */
  wasteFloorFactor: 2,
  minWaste: 0.5,
  /** Retries refused after waiting the Retry-After they were given, per success: a window edge may cost a few. */
  maxRefusedAfterWait: 0.05,
}

export function clientSummary(phase: PhaseResult, minuteMs: number): string {
  const c = phase.clients
  if (!c) return '-'
  const goodput = mean(goodputPerWindow(phase, minuteMs))
  return `${c.policy}: goodput ${(goodput * 100).toFixed(0)}% of the limit, ${(c.refusals / Math.max(1, c.successes)).toFixed(2)} 429s per success, ${c.gaveUp} given up`
}

export function judgeBackoff(phase: PhaseResult, ctx: JudgeContext): Verdict {
  const c = phase.clients
  if (!c) return verdict(phase, 'backoff', 'skip', '-', 'not a clients phase', 'P1-7')
  const others = ctx.phases.filter((p) => p !== phase && p.clients).map((p) => clientSummary(p, ctx.minuteMs))
  const goodputs = goodputPerWindow(phase, ctx.minuteMs)
  const limit = limitOf(phase)
  const figure = [clientSummary(phase, ctx.minuteMs), ...others].join('; ')
  if (goodputs.length === 0 || limit === null) return verdict(phase, 'backoff', 'inconclusive', figure, 'no whole window was measured', 'P1-7')
  const waste = c.refusals / Math.max(1, c.successes)
  const wasteBound = Math.max(BACKOFF_GOALS.minWaste, (BACKOFF_GOALS.wasteFloorFactor * c.workers) / limit)
  const goodput = mean(goodputs)
  const problems: string[] = []
  if (goodput < BACKOFF_GOALS.minGoodput) problems.push(`goodput ${(goodput * 100).toFixed(0)}% of the limit, under ${BACKOFF_GOALS.minGoodput * 100}%: the target's reset or Retry-After sent the client away too long`)
  const broken = c.refusedAfterWait / Math.max(1, c.successes)
  if (broken > BACKOFF_GOALS.maxRefusedAfterWait) problems.push(`${c.refusedAfterWait} retries were refused in the same window although they waited what Retry-After asked (${(broken * 100).toFixed(0)}% of successes): Retry-After is shorter than the wait the limit needs`)
  if (waste > wasteBound) problems.push(`${waste.toFixed(2)} 429s per success, over ${wasteBound.toFixed(2)}: waiting what the target announced did not get the client through`)
  if (problems.length > 0) return verdict(phase, 'backoff', 'fail', figure, problems.join('; '), 'P1-7')
  return verdict(phase, 'backoff', 'pass', figure, `following section 7 (backoff with jitter, Retry-After honoured, ${c.maxAttempts} attempts) reached ${(goodput * 100).toFixed(0)}% of the limit with ${waste.toFixed(2)} 429s per success (bound ${wasteBound.toFixed(2)})`, 'P1-7')
}

export function judgeThroughput(phase: PhaseResult): Verdict {
  const seconds = Math.max(0.001, (phase.endedAt - phase.startedAt) / 1000)
  const ok = Object.entries(phase.byStatus).filter(([s]) => s.startsWith('2')).reduce((n, [, v]) => n + v, 0)
  const server = Object.entries(phase.byStatus).filter(([s]) => s.startsWith('5')).reduce((n, [, v]) => n + v, 0)
  const dropped = Object.values(phase.errors).reduce((a, b) => a + b, 0)
  const figure = `${(phase.answered / seconds).toFixed(0)} answers/s, ${(ok / seconds).toFixed(0)} 2xx/s, ${((phase.byStatus['429'] ?? 0) / seconds).toFixed(0)} 429/s; latency p50 ${phase.latency.p50} ms, p99 ${phase.latency.p99} ms`
  const bad = server + dropped
  if (phase.sent > 0 && bad / phase.sent > 0.01) {
    return verdict(phase, 'throughput', 'fail', figure, `${server} 5xx and ${dropped} calls without an answer (${((bad / phase.sent) * 100).toFixed(1)}%): the target broke under load`, 'P1-7')
  }
  if (ok === 0) return verdict(phase, 'throughput', 'inconclusive', figure, 'no call succeeded', 'P1-7')
  return verdict(phase, 'throughput', 'pass', figure, `sustained over ${seconds.toFixed(1)} s with ${phase.plan.connections} connections`, 'P1-7')
}

export function judgeStreaming(phase: PhaseResult): Verdict {
  const s = phase.stream
  if (!s) return verdict(phase, 'streaming', 'skip', '-', 'not a streaming phase', 'P1-6')
  const figure = `TTFT p50/p90/p99 ${s.ttft.p50}/${s.ttft.p90}/${s.ttft.p99} ms; inter-token ${s.interToken.p50}/${s.interToken.p90}/${s.interToken.p99} ms; end-to-end ${s.endToEnd.p50}/${s.endToEnd.p90}/${s.endToEnd.p99} ms; ${s.tokensPerSecond.p50.toFixed(1)} tokens/s (p50)`
  const behind = behindSchedule(phase)
  if (behind) return verdict(phase, 'streaming', 'inconclusive', figure, behind, 'P1-6')
  if (s.truncated > 0) return verdict(phase, 'streaming', 'fail', figure, `${s.truncated} of ${s.completed + s.truncated} streams ended without response.completed`, 'P1-6')
  if (s.completed === 0) return verdict(phase, 'streaming', 'inconclusive', figure, 'no stream completed', 'P1-6')
  return verdict(phase, 'streaming', 'pass', figure, `${s.completed} streams completed at a constant arrival rate of ${phase.plan.rate}/s`, 'P1-6')
}

const JUDGES: Record<VerdictId, (phase: PhaseResult, ctx: JudgeContext) => Verdict> = {
  admission: judgeAdmission,
  headers: judgeHeaders,
  recovery: judgeRecovery,
  'failed-calls': judgeFailedCalls,
  isolation: judgeIsolation,
  backoff: judgeBackoff,
  throughput: judgeThroughput,
  streaming: judgeStreaming,
}

export function judge(phases: readonly PhaseResult[], minuteMs: number): Verdict[] {
  const ctx: JudgeContext = { minuteMs, phases }
  return phases.flatMap((phase) => phase.plan.verdicts.map((id) => JUDGES[id](phase, ctx)))
}

/** Exit code and outcome: 1 a verdict failed; else 3 something proved nothing; else 0. */
export function outcomeOf(verdicts: readonly Verdict[]): { outcome: 'pass' | 'fail' | 'inconclusive'; exitCode: 0 | 1 | 3 } {
  if (verdicts.some((v) => v.status === 'fail')) return { outcome: 'fail', exitCode: 1 }
  if (verdicts.some((v) => v.status === 'inconclusive')) return { outcome: 'inconclusive', exitCode: 3 }
  return { outcome: 'pass', exitCode: 0 }
}
