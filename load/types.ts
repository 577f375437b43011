/**
 * The load harness's data: what a profile plans, what a run records, and what `result.json` holds.
 *
 * Everything a verdict needs is an aggregate that merges exactly across shards (sums, minima, maxima, HDR
 * histograms, 100 ms time-series buckets keyed by absolute time, rate-limit windows keyed by the instant the
 * target announced for their end), so `npm run load -- merge` recomputes the verdicts of the whole from the parts.
 */

/** The rate-limit buckets whose headers Part 1 section 4.1 names. */
export type BucketName = 'requests' | 'tokens' | 'project-tokens'

export type KeySlotName = 'tier0' | 'tier1' | 'tier2' | 'tier3' | 'tier4' | 'tier5' | 'main'

/** One HTTP call a phase makes; bodies are prepared once, so the generator does no work per call. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  headers?: Record<string, string>
  body?: Buffer | string
  /** Marks calls sent to fail on purpose (a 4xx): they must still count toward the limit (section 7). */
  deliberateFailure?: boolean
  /** Streamed responses: the generator times each server-sent event. */
  stream?: boolean
  /** The answer's `id` names something the call created (an upload): the run deletes it afterwards. */
  collectId?: boolean
}

/** How a phase's load is driven. */
export type EngineName = 'autocannon' | 'scheduler' | 'clients'

/** The retry policies of the backoff profile (Part 1 section 7 client rules against two others). */
export type ClientPolicyName = 'spec7' | 'naive' | 'openai-node'

export interface PhasePlan {
  name: string
  /** One line a reader of the report understands: what load, against which limit, and why. */
  description: string
  engine: EngineName
  slot: KeySlotName
  /** Calls are made from this list in turn. */
  requests: RequestSpec[]
  /** Offered arrival rate in calls per second; null: closed loop, as fast as `connections` allow. */
  rate: number | null
  connections: number
  durationMs: number
  /** The bucket whose headers this phase judges (null: none; saturation and streaming judge no limit). */
  bucket: BucketName | null
  /** The limit the phase is measured against, when known before the run (tables of the reference); else from headers. */
  expectedLimit: number | null
  /** Wait for a fresh window of `bucket` before starting, so that windows are whole. */
  freshWindow: boolean
  /** The verdicts to judge from this phase. */
  verdicts: VerdictId[]
  /** Clients engine only: the policy and the number of workers looping calls. */
  client?: {
    policy: ClientPolicyName
    workers: number
    maxAttempts: number
    /** At most this many calls a second across the workers (null: unpaced), so that a client that never waits stays bounded. */
    pacePerSecond: number | null
  }
  /** Set when the plan cannot load what the phase measures on this target: the phase is not run, its verdicts are skipped with this reason. */
  skip?: string
  /** A second account's key loaded beside the phase at a low rate: it must not be throttled (isolation). */
  probe?: { slot: KeySlotName; rate: number; requests: RequestSpec[] }
}

export type VerdictId = 'admission' | 'headers' | 'recovery' | 'failed-calls' | 'isolation' | 'backoff' | 'throughput' | 'streaming'

export type VerdictStatus = 'pass' | 'fail' | 'inconclusive' | 'skip'

export interface Verdict {
  id: VerdictId
  phase: string
  status: VerdictStatus
  /** The figure the verdict rests on, e.g. "admitted 50/50/50 per window, limit 50". */
  figure: string
  /** Why it passed, failed or proved nothing, in one or two sentences. */
  detail: string
  /** Section of the reference that the verdict checks, e.g. "P1-8.1". */
  section: string
}

/** An HDR histogram of milliseconds (stored as microseconds), compressed, plus its percentiles for readers. */
export interface HistogramSummary {
  count: number
  /** Milliseconds. */
  min: number
  mean: number
  p50: number
  p90: number
  p99: number
  max: number
  /** hdr-histogram-js `encodeIntoCompressedBase64` of microseconds; merges exactly. */
  encoded: string
}

/** One 100 ms slice of a phase, keyed by absolute time (epoch ms / bucketMs), so shards sum exactly. */
export interface SeriesBucket {
  /** floor(epochMs / bucketMs). */
  t: number
  sent: number
  ok: number // 2xx
  refused: number // 429
  clientErrors: number // 4xx but 429
  serverErrors: number // 5xx
  errors: number // no HTTP answer: timeout, reset, refused connection
  retries: number
  /** Of the phase's bucket, over the responses of the slice; null when none carried the header. */
  minRemaining: number | null
  maxRemaining: number | null
  limit: number | null
}

/** One rate-limit window of the phase's bucket, as its responses announced it. */
export interface WindowRecord {
  /** Median-ish anchor: the first announced end (epoch ms, local clock) that opened this record. */
  announcedEnd: number
  /** Spread of the announced ends that joined it (ms): how precise the target's reset header is. */
  announcedEndMin: number
  announcedEndMax: number
  limit: number | null
  /** Responses whose limit header differed from `limit`. */
  limitChanges: number
  firstSentAt: number
  lastSentAt: number
  /** Answers other than 429 (deliberate failures included: section 7 counts them). */
  admitted: number
  deliberateFailures: number
  refused: number
  /** 429s whose remaining (of this bucket) still showed room beyond the calls in flight: remaining did not count down. */
  refusedWithRoom: number
  /** Send time of the latest 429: a call sent after the promised end and still refused breaks the promise. */
  lastRefusedSentAt: number | null
  /** Send time of the first 429 and the earliest end it promised (reset or Retry-After, whichever is later). */
  firstRefusedSentAt: number | null
  firstRefusedReceivedAt: number | null
  promisedEnd: number | null
  retryAfterEnd: number | null
  /** Send time of the earliest admitted call. */
  firstAdmittedSentAt: number | null
  minRemaining: number | null
  maxRemaining: number | null
  /**
   * The most that remaining rose above the lowest value seen before it in this window. Answers overtaking each
   * other explain a rise up to the calls in flight together (maxInFlight - 1, over every shard); more is a fault.
   */
  maxRise: number
  negativeRemaining: number
  /** Calls in flight at most while this window was open (the leak bound). */
  maxInFlight: number
}

/**
 * One refusal episode: from a 429 (after an admitted call) to the next admitted call. The first 429's reset and
 * Retry-After are the promises; every 429 sent after a promise had passed breaks it. Kept per episode rather
 * than per window so that a target whose reset headers lie cannot hide it by scattering the windows.
 */
export interface RecoveryRecord {
  firstRefusedSentAt: number
  /** Received-at of the first 429 plus its reset of the phase's bucket. */
  promisedEnd: number
  /** Received-at of the first 429 plus its Retry-After, when it had one. */
  retryAfterEnd: number | null
  lastRefusedSentAt: number
  /** Send time of the call that ended the episode; null when the phase ended first. */
  firstAdmittedSentAt: number | null
}

export interface HeaderCounts {
  responses: number
  refused: number
  /** Responses (of which 429s) missing the limit, remaining or reset header of the phase's bucket. */
  missing: number
  missingOnRefused: number
  unparsable: number
  /** 429s without Retry-After (a MAY: counted, not judged). */
  refusedWithoutRetryAfter: number
  /** Reset values with a fractional second; when there are none the target rounds to whole seconds (tolerance 1 s). */
  resetFractional: number
  /** Limit headers that differ from the reference's table for this tier (when the phase knows the table's value). */
  limitNotTable: number
}

export interface ScheduleFigures {
  /** Largest gap between calls planned by then and calls sent by then, in calls. */
  maxBehindCalls: number
  maxAheadCalls: number
  /** The bound past which the run proves nothing, in calls. */
  boundCalls: number
  /** Sends later than planned by more than this many ms, p99 (scheduler only). */
  lagP99Ms: number | null
  conclusive: boolean
}

export interface ClientFigures {
  policy: ClientPolicyName
  workers: number
  maxAttempts: number
  tasks: number
  successes: number
  /** Tasks that ended without success: attempts exhausted or an error that is not retried. */
  gaveUp: number
  attempts: number
  refusals: number
  /** Successful calls per whole window against the limit. */
  goodputPerWindow: number[]
  /** Retries refused in the same window as the 429 before them, although they waited what its Retry-After asked. */
  refusedAfterWait: number
  /** From a task's first 429 to its success. */
  recovery: HistogramSummary
}

export interface StreamFigures {
  ttft: HistogramSummary
  interToken: HistogramSummary
  endToEnd: HistogramSummary
  /** Output tokens per second of each stream (count = streams): its min, mean and percentiles are tokens per second, not ms. */
  tokensPerSecond: HistogramSummary
  completed: number
  truncated: number
}

export interface PhaseResult {
  plan: Omit<PhasePlan, 'requests' | 'probe'> & {
    routes: string[]
    probe?: { slot: KeySlotName; rate: number; routes: string[] }
  }
  startedAt: number
  endedAt: number
  sent: number
  answered: number
  byStatus: Record<string, number>
  errors: Record<string, number>
  retries: number
  achievedRate: number
  latency: HistogramSummary
  schedule: ScheduleFigures | null
  series: SeriesBucket[]
  windows: WindowRecord[]
  recoveries: RecoveryRecord[]
  headers: HeaderCounts
  clients?: ClientFigures
  stream?: StreamFigures
  probe?: { sent: number; refused: number; answered: number; windows: WindowRecord[] }
}

export interface LoadResult {
  schemaVersion: 1
  runId: string
  tool: { name: string; version: string }
  startedAt: string
  endedAt: string
  /** True when the run was stopped early (Ctrl-C, a cap) and what it holds is what had been measured by then. */
  partial: boolean
  stopReason: string | null
  target: { baseUrl: string; embedded: boolean; minuteMs: number }
  profile: { name: string; description: string; tier: number | null; durationMs: number; rate: number | null; connections: number | null }
  shard: { index: number; count: number } | null
  mergedFrom: string[]
  bucketMs: number
  phases: PhaseResult[]
  verdicts: Verdict[]
  outcome: 'pass' | 'fail' | 'inconclusive' | 'error'
  exitCode: 0 | 1 | 2 | 3
}
