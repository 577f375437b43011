/**
 * `npm run load -- merge <dirs>`: the shards of one profile (`--shard i/n` on several generators) made into one
 * result. Counts add, HDR histograms add, time series add slice by slice (the admissions by send time with them),
 * rate-limit facts add up; the verdicts are then judged again on the whole, as if one generator had run it.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError } from '../harness/errors.ts'
import { mergeSummaries } from './engine/histogram.ts'
import { goodputFigures } from './engine/recorder.ts'
import { mergeSeries } from './engine/series.ts'
import { REPORT_FILES } from './report/write.ts'
import type {
  AlgorithmSigns,
  ClientFigures,
  HeaderCounts,
  HistogramSummary,
  LoadResult,
  PhaseResult,
  RateLimitFacts,
  ScheduleFigures,
  StreamFigures,
} from './types.ts'
import { judge, observeAlgorithm, outcomeOf } from './verdicts.ts'

export async function readResult(dir: string): Promise<LoadResult> {
  const path = join(dir, REPORT_FILES.json)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    throw new ConfigError(`cannot read ${path}: give the report directory of a load run (reports/load/<run-id>)`)
  }
  try {
    const result = JSON.parse(text) as LoadResult
    if (result.schemaVersion !== 1 || !Array.isArray(result.phases)) throw new Error('not a load result')
    return result
  } catch {
    throw new ConfigError(`${path} is not a load result.json of this tool`)
  }
}

const add = (a: Record<string, number>, b: Record<string, number>): Record<string, number> => {
  const out = { ...a }
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v
  return out
}

function mergeHeaders(list: HeaderCounts[]): HeaderCounts {
  return list.reduce(
    (a, b) =>
      add(a as unknown as Record<string, number>, b as unknown as Record<string, number>) as unknown as HeaderCounts,
  )
}

/** Histograms that a result may lack (written without objectives in mind): merged when every part has one. */
function mergeOptional(list: Array<HistogramSummary | undefined>): HistogramSummary | undefined {
  return list.every((h): h is HistogramSummary => h !== undefined) && list.length > 0 ? mergeSummaries(list) : undefined
}

function mergeSchedule(list: Array<ScheduleFigures | null>): ScheduleFigures | null {
  const present = list.filter((s): s is ScheduleFigures => s !== null)
  if (present.length === 0) return null
  return {
    maxBehindCalls: present.reduce((n, s) => n + s.maxBehindCalls, 0),
    maxAheadCalls: present.reduce((n, s) => n + s.maxAheadCalls, 0),
    boundCalls: present.reduce((n, s) => n + s.boundCalls, 0),
    lagP99Ms: Math.max(...present.map((s) => s.lagP99Ms ?? 0)),
    ...((lag) => (lag ? { lag } : {}))(mergeOptional(present.map((s) => s.lag))),
    // Each shard judged its own slice against its own bound; the whole holds its schedule when every slice did.
    conclusive: present.every((s) => s.conclusive),
  }
}

function mergeClients(list: ClientFigures[]): ClientFigures {
  const first = list[0] as ClientFigures
  return {
    policy: first.policy,
    workers: list.reduce((n, c) => n + c.workers, 0),
    maxAttempts: first.maxAttempts,
    tasks: list.reduce((n, c) => n + c.tasks, 0),
    successes: list.reduce((n, c) => n + c.successes, 0),
    gaveUp: list.reduce((n, c) => n + c.gaveUp, 0),
    attempts: list.reduce((n, c) => n + c.attempts, 0),
    refusals: list.reduce((n, c) => n + c.refusals, 0),
    refusedAfterWait: list.reduce((n, c) => n + c.refusedAfterWait, 0),
    retryAfterTotalMs: list.reduce((n, c) => n + c.retryAfterTotalMs, 0),
    retryAfterCount: list.reduce((n, c) => n + c.retryAfterCount, 0),
    recovery: mergeSummaries(list.map((c) => c.recovery)),
  }
}

function mergeStream(list: StreamFigures[]): StreamFigures {
  return {
    ttft: mergeSummaries(list.map((s) => s.ttft)),
    interToken: mergeSummaries(list.map((s) => s.interToken)),
    endToEnd: mergeSummaries(list.map((s) => s.endToEnd)),
    tokensPerSecond: mergeSummaries(list.map((s) => s.tokensPerSecond)),
    ...((tpot) => (tpot ? { tpot } : {}))(mergeOptional(list.map((s) => s.tpot))),
    completed: list.reduce((n, s) => n + s.completed, 0),
    truncated: list.reduce((n, s) => n + s.truncated, 0),
  }
}

const minOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b))

/** Counts add; the longest reset and the earliest announced instant are the whole's. */
function mergeSigns(a: AlgorithmSigns, b: AlgorithmSigns): AlgorithmSigns {
  const firstFullAt = [a.firstFullAt, b.firstFullAt].filter((t): t is number => t !== undefined)
  return {
    answers: a.answers + b.answers,
    still: a.still + b.still,
    period: a.period + b.period,
    whole: a.whole + b.whole,
    partial: a.partial + b.partial,
    other: a.other + b.other,
    maxResetMs: Math.max(a.maxResetMs, b.maxResetMs),
    ...(firstFullAt.length > 0 ? { firstFullAt: Math.min(...firstFullAt) } : {}),
  }
}

/** Each shard's facts are its own view: counts add, the promises that look broken are judged together. */
function mergeRateLimit(list: RateLimitFacts[]): RateLimitFacts {
  return {
    firstRefusedSentAt: list.map((f) => f.firstRefusedSentAt).reduce(minOf, null),
    refusedWithRoom: list.map((f) => f.refusedWithRoom).reduce(add, {}),
    refusedReportingRoom: list.map((f) => f.refusedReportingRoom).reduce(add, {}),
    tested: {
      reset: list.reduce((n, f) => n + f.tested.reset, 0),
      retryAfter: list.reduce((n, f) => n + f.tested.retryAfter, 0),
    },
    suspects: list.flatMap((f) => f.suspects),
    limits: list.map((f) => f.limits).reduce(add, {}),
    algorithm: list.map((f) => f.algorithm).reduce(mergeSigns),
  }
}

function mergeMix(mixes: NonNullable<PhaseResult['mix']>[]): NonNullable<PhaseResult['mix']> {
  const out: NonNullable<PhaseResult['mix']> = {}
  for (const mix of mixes) {
    for (const [label, c] of Object.entries(mix)) {
      const to = out[label] ?? { sent: 0, ok: 0 }
      out[label] = to
      to.sent += c.sent
      to.ok += c.ok
    }
  }
  return out
}

export function mergePhase(parts: PhaseResult[]): PhaseResult {
  const first = parts[0] as PhaseResult
  const startedAt = Math.min(...parts.map((p) => p.startedAt))
  const endedAt = Math.max(...parts.map((p) => p.endedAt))
  const sent = parts.reduce((n, p) => n + p.sent, 0)
  const sum = (pick: (p: PhaseResult) => number | null): number | null =>
    parts.every((p) => pick(p) === null) ? null : parts.reduce((n, p) => n + (pick(p) ?? 0), 0)
  const series = mergeSeries(parts.map((p) => p.series))
  const byStatus = parts.map((p) => p.byStatus).reduce(add, {})
  const okLatency = mergeOptional(parts.map((p) => p.okLatency))
  const answerTime = mergeOptional(parts.map((p) => p.answerTime))
  const merged: PhaseResult = {
    plan: {
      ...first.plan,
      rate: sum((p) => p.plan.rate),
      connections: parts.reduce((n, p) => n + p.plan.connections, 0),
      ...(first.plan.client
        ? {
            client: {
              ...first.plan.client,
              workers: parts.reduce((n, p) => n + (p.plan.client?.workers ?? 0), 0),
              pacePerSecond: sum((p) => p.plan.client?.pacePerSecond ?? null),
            },
          }
        : {}),
      ...(first.plan.probe
        ? { probe: { ...first.plan.probe, rate: parts.reduce((n, p) => n + (p.plan.probe?.rate ?? 0), 0) } }
        : {}),
    },
    startedAt,
    endedAt,
    sent,
    answered: parts.reduce((n, p) => n + p.answered, 0),
    byStatus,
    errors: parts.map((p) => p.errors).reduce(add, {}),
    retries: parts.reduce((n, p) => n + p.retries, 0),
    achievedRate: sent / Math.max(0.001, (endedAt - startedAt) / 1000),
    latency: mergeSummaries(parts.map((p) => p.latency)),
    ...(okLatency ? { okLatency } : {}),
    ...(answerTime ? { answerTime } : {}),
    goodput: goodputFigures(byStatus, series, (endedAt - startedAt) / 1000),
    schedule: mergeSchedule(parts.map((p) => p.schedule)),
    series,
    // Shards' calls overlap in time: their in-flight counts add up.
    maxInFlight: parts.reduce((n, p) => n + p.maxInFlight, 0),
    rateLimit: mergeRateLimit(parts.map((p) => p.rateLimit)),
    algorithm: null,
    headers: mergeHeaders(parts.map((p) => p.headers)),
  }
  const mixes = parts.map((p) => p.mix).filter((m): m is NonNullable<PhaseResult['mix']> => m !== undefined)
  if (mixes.length > 0) merged.mix = mergeMix(mixes)
  const clients = parts.map((p) => p.clients).filter((c): c is ClientFigures => c !== undefined)
  if (clients.length > 0) merged.clients = mergeClients(clients)
  merged.algorithm = observeAlgorithm(merged)
  const streams = parts.map((p) => p.stream).filter((s): s is StreamFigures => s !== undefined)
  if (streams.length > 0) merged.stream = mergeStream(streams)
  const probes = parts.map((p) => p.probe).filter((p): p is NonNullable<PhaseResult['probe']> => p !== undefined)
  if (probes.length > 0) {
    merged.probe = {
      sent: probes.reduce((n, p) => n + p.sent, 0),
      answered: probes.reduce((n, p) => n + p.answered, 0),
      refused: probes.reduce((n, p) => n + p.refused, 0),
    }
  }
  return merged
}

export function mergeResults(results: LoadResult[], dirs: string[], runId: string): LoadResult {
  const first = results[0]
  if (!first) throw new ConfigError('merge needs at least one report directory')
  for (const [i, r] of results.entries()) {
    if (r.profile.name !== first.profile.name)
      throw new ConfigError(`${dirs[i]} ran ${r.profile.name}, not ${first.profile.name}: merge shards of one profile`)
    if (r.target.baseUrl !== first.target.baseUrl && !(r.target.embedded && first.target.embedded)) {
      throw new ConfigError(
        `${dirs[i]} loaded ${r.target.baseUrl}, not ${first.target.baseUrl}: merge shards of one target`,
      )
    }
    if (r.phases.length !== first.phases.length)
      throw new ConfigError(
        `${dirs[i]} has ${r.phases.length} phases, not ${first.phases.length}: was one shard stopped early?`,
      )
  }
  const slo = (r: LoadResult): string => JSON.stringify(r.objectives ?? [])
  const other = results.findIndex((r) => slo(r) !== slo(first))
  if (other > 0)
    throw new ConfigError(
      `${dirs[other]} was judged by other objectives (--slo) than ${dirs[0]}: merge shards of one run`,
    )
  if (results.some((r) => r.capacity !== undefined))
    throw new ConfigError(
      'a capacity search adapts each step to what its one generator measured: its runs cannot be merged as shards',
    )
  const indices = results.map((r) => r.shard?.index).filter((i): i is number => i !== undefined)
  if (new Set(indices).size !== indices.length)
    throw new ConfigError(`two of the directories are the same shard (${indices.join(', ')}); give each shard once`)
  const minuteMs = first.target.minuteMs
  const phases = first.phases.map((_, i) => mergePhase(results.map((r) => r.phases[i] as PhaseResult)))
  const verdicts = judge(phases, minuteMs, results.length, first.objectives ?? [])
  const partial = results.some((r) => r.partial)
  const { outcome, exitCode } =
    partial && !verdicts.some((v) => v.status === 'fail')
      ? { outcome: 'inconclusive' as const, exitCode: 3 as const }
      : outcomeOf(verdicts)
  // A shard's spread over its own repeats is not the whole's.
  const { repeats: _ownSpread, ...shared } = first
  return {
    ...shared,
    runId,
    startedAt: results.map((r) => r.startedAt).sort()[0] as string,
    endedAt: results
      .map((r) => r.endedAt)
      .sort()
      .at(-1) as string,
    partial,
    stopReason: results.map((r) => r.stopReason).find((s) => s !== null) ?? null,
    shard: null,
    mergedFrom: dirs,
    phases,
    verdicts,
    outcome,
    exitCode,
  }
}
