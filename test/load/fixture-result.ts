/**
 * A synthetic but realistic `LoadResult` for the report tests: a tier usage phase that meets its limit (429s and
 * falling remaining values in every minute), a streaming phase and a backoff phase with client figures. Seeded,
 * so every run draws the same page.
 */
import * as hdr from 'hdr-histogram-js'
import type { HistogramSummary, LoadResult, PhaseResult, RateLimitFacts, SeriesBucket } from '../../load/types.ts'

/** A route no target would have, to prove every string from the result is escaped. */
export const HOSTILE_ROUTE = '/v1/<script>alert(1)</script>'
export const HOSTILE_DETAIL = 'limit | remaining <b>not</b> decreasing & "quoted"'

const BUCKET_MS = 100
const MINUTE_MS = 6_000
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0)

/** Mulberry32: a tiny seeded generator, so the fixture is the same on every run. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Records milliseconds as microseconds, as the recorder does, and summarises them. */
export function histogram(valuesMs: number[]): HistogramSummary {
  const h = hdr.build()
  for (const v of valuesMs) h.recordValue(Math.max(1, Math.round(v * 1000)))
  const at = (p: number): number => h.getValueAtPercentile(p) / 1000
  const summary: HistogramSummary = {
    count: h.totalCount,
    min: h.totalCount === 0 ? 0 : h.minNonZeroValue / 1000,
    mean: h.mean / 1000,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    max: h.maxValue / 1000,
    encoded: hdr.encodeIntoCompressedBase64(h),
  }
  h.destroy()
  return summary
}

function latencies(rand: () => number, count: number, baseMs: number, spreadMs: number): number[] {
  // A long tail: most calls near the base, a few far out.
  return Array.from({ length: count }, () => baseMs + spreadMs * -Math.log(1 - rand() * 0.999))
}

function emptyBucket(t: number): SeriesBucket {
  return {
    t,
    sent: 0,
    ok: 0,
    refused: 0,
    clientErrors: 0,
    serverErrors: 0,
    errors: 0,
    retries: 0,
    admittedSent: 0,
    refusedSent: 0,
    failedSent: 0,
    minRemaining: null,
    maxRemaining: null,
    limit: null,
  }
}

/** Rate-limit facts of a phase whose headers showed fixed windows and kept every promise. */
function facts(limit: number, firstRefusedSentAt: number | null, answers: number): RateLimitFacts {
  return {
    firstRefusedSentAt,
    refusedWithRoom: {},
    refusedReportingRoom: {},
    tested: { reset: 3, retryAfter: 12 },
    suspects: [],
    limits: { [limit]: answers },
    algorithm: { answers, still: answers - 3, period: 3, whole: 0, partial: 0, other: 0, maxResetMs: MINUTE_MS },
  }
}

/** The series' answers counted again by the slice their calls were sent in (the fixture's calls answer within one). */
function bySend(series: SeriesBucket[]): SeriesBucket[] {
  for (const b of series) {
    b.admittedSent = b.ok + b.clientErrors + b.serverErrors
    b.refusedSent = b.refused
    b.failedSent = b.clientErrors
  }
  return series
}

/** 20 calls a second against 50 a window: each window admits 50 calls, then refuses until it ends. */
function usagePhase(rand: () => number): PhaseResult {
  const startedAt = T0 + 40
  const durationMs = 3 * MINUTE_MS
  const limit = 50
  const series: SeriesBucket[] = []
  let sent = 0,
    ok = 0,
    refused = 0,
    clientErrors = 0,
    errors = 0
  for (let i = 0; i < durationMs / BUCKET_MS; i += 1) {
    const b = emptyBucket(Math.floor(startedAt / BUCKET_MS) + i)
    const inWindow = (i * BUCKET_MS) % MINUTE_MS
    const admittedBefore = Math.floor(inWindow / BUCKET_MS) * 2
    b.sent = 2
    const admitted = Math.max(0, Math.min(2, limit - admittedBefore))
    b.refused = 2 - admitted
    // One deliberate 404 every few seconds: section 7 counts it toward the limit.
    if (admitted > 0 && i % 30 === 0) b.clientErrors = 1
    b.ok = admitted - b.clientErrors
    if (i === 13) {
      b.ok -= 1
      b.errors = 1
    }
    b.minRemaining = admitted > 0 ? limit - admittedBefore - admitted : 0
    b.maxRemaining = admitted > 0 ? limit - admittedBefore - 1 : 0
    b.limit = limit
    sent += b.sent
    ok += b.ok
    refused += b.refused
    clientErrors += b.clientErrors
    errors += b.errors
    series.push(b)
  }
  // A gap: the target answered nothing for half a second (a sparse series must still chart).
  series.splice(120, 5)
  return {
    plan: {
      name: 'tier1-requests',
      description: 'Tier 1 key, 20 calls/s against a limit of 50 a minute: every window is met and overrun',
      engine: 'scheduler',
      slot: 'tier1',
      rate: 20,
      connections: 16,
      durationMs,
      bucket: 'requests',
      expectedLimit: limit,
      fromRest: true,
      verdicts: ['admission', 'headers', 'recovery', 'failed-calls', 'isolation'],
      routes: ['/v1/models', HOSTILE_ROUTE],
      probe: { slot: 'tier2', rate: 1, routes: ['/v1/models'] },
    },
    startedAt,
    endedAt: startedAt + durationMs,
    sent,
    answered: sent - errors,
    byStatus: { '200': ok, '429': refused, '404': clientErrors },
    errors: { ECONNRESET: errors },
    retries: 0,
    achievedRate: sent / (durationMs / 1000),
    latency: histogram(latencies(rand, sent, 4, 6)),
    schedule: { maxBehindCalls: 2, maxAheadCalls: 0, boundCalls: 5, lagP99Ms: 3.4, conclusive: true },
    series: bySend(series),
    maxInFlight: 4,
    rateLimit: facts(limit, startedAt + 2_510, sent - errors),
    algorithm:
      'fixed windows of about 6 s: the instant the bucket is full again held still between calls and moved by a whole period at once',
    headers: {
      responses: sent - errors,
      refused,
      missing: 0,
      missingOnRefused: 0,
      unparsable: 0,
      refusedWithoutRetryAfter: 3,
      resetFractional: 0,
      limitNotTable: 0,
      remainingOverLimit: 0,
      resetOverPeriod: 0,
    },
    probe: { sent: 18, refused: 0, answered: 18 },
  }
}

function streamingPhase(rand: () => number): PhaseResult {
  const startedAt = T0 + 20_000
  const durationMs = 10_000
  const series: SeriesBucket[] = []
  for (let i = 0; i < durationMs / BUCKET_MS; i += 1) {
    const b = emptyBucket(Math.floor(startedAt / BUCKET_MS) + i)
    if (i % 2 === 0) {
      b.sent = 1
      b.ok = 1
    }
    series.push(b)
  }
  const streams = 50
  return {
    plan: {
      name: 'streaming',
      description: 'Five streamed chat completions a second: time to first token and token pace',
      engine: 'scheduler',
      slot: 'main',
      rate: 5,
      connections: 8,
      durationMs,
      bucket: null,
      expectedLimit: null,
      fromRest: false,
      verdicts: ['streaming'],
      routes: ['/v1/chat/completions'],
    },
    startedAt,
    endedAt: startedAt + durationMs,
    sent: streams,
    answered: streams,
    byStatus: { '200': streams },
    errors: {},
    retries: 0,
    achievedRate: 5,
    latency: histogram(latencies(rand, streams, 900, 200)),
    schedule: { maxBehindCalls: 1, maxAheadCalls: 0, boundCalls: 3, lagP99Ms: 1.2, conclusive: true },
    series: bySend(series),
    maxInFlight: 2,
    rateLimit: facts(0, null, 0),
    algorithm: null,
    headers: {
      responses: streams,
      refused: 0,
      missing: 0,
      missingOnRefused: 0,
      unparsable: 0,
      refusedWithoutRetryAfter: 0,
      resetFractional: 0,
      limitNotTable: 0,
      remainingOverLimit: 0,
      resetOverPeriod: 0,
    },
    stream: {
      ttft: histogram(latencies(rand, streams, 120, 40)),
      interToken: histogram(latencies(rand, streams * 40, 18, 4)),
      endToEnd: histogram(latencies(rand, streams, 900, 200)),
      // Tokens per second go in as value * 1000 milliseconds (types.ts): 50 tokens/s reads 50 000 in the summary.
      tokensPerSecond: histogram(latencies(rand, streams, 50, 5)),
      completed: 49,
      truncated: 1,
    },
  }
}

/** Eight workers under the section 7 client rules: 429s early in each window, retries after the reset. */
function backoffPhase(rand: () => number): PhaseResult {
  const startedAt = T0 + 31_000
  const durationMs = 2 * MINUTE_MS
  const limit = 40
  const series: SeriesBucket[] = []
  let sent = 0,
    ok = 0,
    refused = 0,
    retries = 0
  for (let i = 0; i < durationMs / BUCKET_MS; i += 1) {
    const b = emptyBucket(Math.floor(startedAt / BUCKET_MS) + i)
    const inWindow = Math.floor(((i * BUCKET_MS) % MINUTE_MS) / BUCKET_MS)
    if (inWindow < 20) {
      b.sent = 2
      b.ok = 2
    } else if (inWindow < 24) {
      b.sent = 2
      b.refused = 2
      b.retries = 1
    } else if (inWindow % 10 === 0) {
      b.sent = 1
      b.refused = 1
      b.retries = 1
    }
    if (b.sent > 0) {
      const used = Math.min(limit, (inWindow + 1) * 2)
      b.minRemaining = limit - used
      b.maxRemaining = Math.min(limit - 1, limit - used + 1)
      b.limit = limit
    }
    sent += b.sent
    ok += b.ok
    refused += b.refused
    retries += b.retries
    series.push(b)
  }
  return {
    plan: {
      name: 'backoff-spec7',
      description: 'Eight workers retrying by the section 7 rules against a limit of 40 a minute',
      engine: 'clients',
      slot: 'tier3',
      rate: null,
      connections: 8,
      durationMs,
      bucket: 'requests',
      expectedLimit: limit,
      fromRest: true,
      verdicts: ['backoff'],
      routes: ['/v1/models'],
      client: { policy: 'spec7', workers: 8, maxAttempts: 5, pacePerSecond: null },
    },
    startedAt,
    endedAt: startedAt + durationMs,
    sent,
    answered: sent,
    byStatus: { '200': ok, '429': refused },
    errors: {},
    retries,
    achievedRate: sent / (durationMs / 1000),
    latency: histogram(latencies(rand, sent, 3, 2)),
    schedule: null,
    series: bySend(series),
    maxInFlight: 8,
    rateLimit: facts(limit, startedAt + 2_000, sent),
    algorithm: null,
    headers: {
      responses: sent,
      refused,
      missing: 0,
      missingOnRefused: 0,
      unparsable: 0,
      refusedWithoutRetryAfter: 0,
      resetFractional: 0,
      limitNotTable: 0,
      remainingOverLimit: 0,
      resetOverPeriod: 0,
    },
    clients: {
      policy: 'spec7',
      workers: 8,
      maxAttempts: 5,
      tasks: ok + 2,
      successes: ok,
      gaveUp: 2,
      attempts: sent,
      refusals: refused,
      refusedAfterWait: 0,
      retryAfterTotalMs: refused * 3_000,
      retryAfterCount: refused,
      recovery: histogram(latencies(rand, 30, 3_100, 400)),
    },
  }
}

export function fixtureResult(): LoadResult {
  const rand = random(7)
  const phases = [usagePhase(rand), streamingPhase(rand), backoffPhase(rand)]
  return {
    schemaVersion: 1,
    runId: '2025-01-15T12-00-00Z-tier1',
    tool: { name: 'gateway-load', version: '0.1.0' },
    startedAt: new Date(T0).toISOString(),
    endedAt: new Date(T0 + 44_000).toISOString(),
    partial: false,
    stopReason: null,
    target: { baseUrl: 'http://127.0.0.1:8787', embedded: true, minuteMs: MINUTE_MS },
    profile: {
      name: 'tier1',
      description: 'Tier 1 limits, streaming pace and client backoff',
      tier: 1,
      durationMs: 44_000,
      rate: null,
      connections: null,
    },
    shard: null,
    mergedFrom: [],
    bucketMs: BUCKET_MS,
    phases,
    verdicts: [
      {
        id: 'admission',
        phase: 'tier1-requests',
        status: 'pass',
        figure: 'admitted 50/50/50 per window, limit 50',
        detail: 'Every window admitted exactly its limit.',
        section: 'P1-8.1',
      },
      {
        id: 'headers',
        phase: 'tier1-requests',
        status: 'fail',
        figure: '3 rises of remaining',
        detail: HOSTILE_DETAIL,
        section: 'P1-4.1',
      },
      {
        id: 'recovery',
        phase: 'tier1-requests',
        status: 'pass',
        figure: 'first admitted 4 ms after the promised end',
        detail: 'Calls were admitted again once the window ended.',
        section: 'P1-8.2',
      },
      {
        id: 'failed-calls',
        phase: 'tier1-requests',
        status: 'pass',
        figure: '6 deliberate 404s counted',
        detail: 'Failed calls counted toward the limit.',
        section: 'P1-7',
      },
      {
        id: 'isolation',
        phase: 'tier1-requests',
        status: 'inconclusive',
        figure: 'probe: 18 sent, 0 refused',
        detail: 'The probe ran too few calls to prove isolation.',
        section: 'P1-8.3',
      },
      {
        id: 'streaming',
        phase: 'streaming',
        status: 'pass',
        figure: 'ttft p99 310 ms',
        detail: 'Every stream started and ended.',
        section: 'P1-5.2',
      },
      {
        id: 'backoff',
        phase: 'backoff-spec7',
        status: 'pass',
        figure: 'goodput 40/40 per window',
        detail: 'The section 7 client held the limit with 2 tasks given up.',
        section: 'P1-7',
      },
      {
        id: 'throughput',
        phase: 'tier1-requests',
        status: 'skip',
        figure: '-',
        detail: 'No saturation phase in this profile.',
        section: 'P1-9',
      },
    ],
    outcome: 'fail',
    exitCode: 1,
  }
}
