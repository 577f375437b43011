/**
 * The load harness's data: what a profile plans, what a run records, and what `result.json` holds.
 *
 * Everything a verdict needs is an aggregate that merges exactly across shards (sums, minima, maxima, HDR histograms,
 * 100 ms time-series buckets keyed by absolute time, counts of the calls admitted and refused by the slice they were
 * sent in, rate-limit facts folded as answers arrive), so `npm run load -- merge` recomputes the verdicts of the whole
 * from the parts.
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
  /**
   * The route kind of a workload file (`responses-stream`, `chat`, ...): calls are counted per label (PhaseResult.mix).
   */
  label?: string
}

/** How a phase's load is driven. */
export type EngineName = 'autocannon' | 'scheduler' | 'clients'

/** The retry policies of the backoff profile (Part 1 section 7 client rules against two others). */
export type ClientPolicyName = 'spec7' | 'naive' | 'openai-node'

/** How an open-loop phase's calls arrive (engine/arrivals.ts); absent: constant, i / rate. */
export interface ArrivalPlan {
  process: 'constant' | 'poisson' | 'gamma'
  /** Gamma's shape: 1 is poisson, below 1 burstier, above 1 more even. */
  burstiness?: number
  /** From `fromRate` (default 0 linear, rate / 100 exponential) to the phase's rate over `spanMs`, then steady. */
  ramp?: { shape: 'linear' | 'exponential'; spanMs: number; fromRate?: number }
  /** The same seed plans the same instants (and, for a workload file, the same bodies in the same order). */
  seed: number
}

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
  /** Scheduler engine: the arrival process of `rate`; absent: constant. */
  arrival?: ArrivalPlan
  /** A workload file's mix: each route label's share of the calls (summing to 1). */
  weights?: Record<string, number>
  connections: number
  durationMs: number
  /** The bucket whose headers this phase judges (null: none; saturation and streaming judge no limit). */
  bucket: BucketName | null
  /**
   * The limit the phase is measured against, when known before the run (tables of the reference); else from headers.
   */
  expectedLimit: number | null
  /**
   * Worker threads that drove the phase (engine/workers.ts; absent: one, the main thread): judged as so many shards.
   */
  workers?: number
  /**
   * The period of `expectedLimit` when it is not the target's minute (a limit the operator stated, e.g. 30 per 10 s).
   */
  periodMs?: number
  /**
   * The limit the operator stated for this phase's route (--limit, a workload file's limits:), as written, and
   * whether it names the headers that announce it (if not, the target's headers may speak of another bucket and
   * are not read: only Retry-After makes promises).
   */
  stated?: { text: string; headers: boolean }
  /**
   * Start from rest: wait a whole minute without calls (any allowed limiter is then full), so that the admission
   * bounds from rest apply from the phase's start.
   */
  fromRest: boolean
  /** The verdicts to judge from this phase (objectives are judged on every phase, from the run's --slo). */
  verdicts: PhaseVerdictId[]
  /** Clients engine only: the policy and the number of workers looping calls. */
  client?: {
    policy: ClientPolicyName
    workers: number
    maxAttempts: number
    /**
     * At most this many calls a second across the workers (null: unpaced), so that a client that never waits stays
     * bounded.
     */
    pacePerSecond: number | null
  }
  /**
   * Set when the plan cannot load what the phase measures on this target: the phase is not run, its verdicts are
   * skipped with this reason.
   */
  skip?: string
  /** A second account's key loaded beside the phase at a low rate: it must not be throttled (isolation). */
  probe?: { slot: KeySlotName; rate: number; requests: RequestSpec[] }
}

export type VerdictId =
  | 'admission'
  | 'headers'
  | 'recovery'
  | 'failed-calls'
  | 'refusal'
  | 'isolation'
  | 'backoff'
  | 'throughput'
  | 'streaming'
  | 'objective'
  | 'capacity'

/** The verdicts a phase's plan names; `objective` comes from --slo, `capacity` from the capacity search. */
export type PhaseVerdictId = Exclude<VerdictId, 'objective' | 'capacity'>

export type ObjectiveMetric = 'e2e' | 'ttft' | 'itl' | 'tpot' | 'lag' | 'errors'

/** One objective of `--slo` (load/objectives.ts): e.g. ttft_p99=2s is { metric ttft, stat 99, bound 2000 }. */
export interface Objective {
  /** As typed: `ttft_p99`, `e2e_mean`, `errors`. */
  name: string
  metric: ObjectiveMetric
  /** A percentile, the mean or the max; `share` for errors. */
  stat: number | 'mean' | 'max' | 'share'
  /** Milliseconds; for errors, a share from 0 to 1. */
  bound: number
}

export type VerdictStatus = 'pass' | 'fail' | 'inconclusive' | 'skip'

export interface Verdict {
  id: VerdictId
  phase: string
  status: VerdictStatus
  /** The figure the verdict rests on, e.g. "admitted 50 before the first 429, limit 50". */
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
  /**
   * Calls that ended in this slice answered 2xx and within every per-call objective (all 2xx without objectives):
   * goodput.
   */
  good?: number
  /**
   * Of the calls sent in this slice: admitted (served: answered below 400, or a deliberate failure answered 4xx,
   * the call's own fault), refused with 429, the deliberate failures among the admitted, and refused otherwise
   * (any other failing status: a 503 for a spent bucket is a refusal in the wrong words, not an admission).
   */
  admittedSent: number
  refusedSent: number
  failedSent: number
  /** Absent in results written before it was counted: there, such calls are among admittedSent. */
  otherSent?: number
  /** Of the phase's bucket, over the responses of the slice; null when none carried the header. */
  minRemaining: number | null
  maxRemaining: number | null
  limit: number | null
}

/**
 * A promise a 429 made that a later refusal may have broken, kept for the verdict to judge with its tolerance (a
 * merge of shards adds the admissions the other shards saw). `reset`: the bucket is full at `promisedAt` (received
 * at plus the reset header), so the first refusal sent after it needs `limit` admissions since the 429.
 * `retry-after`: the first call sent after `promisedAt` (received at plus Retry-After) is admitted unless another
 * call took the room first.
 */
export interface PromiseTest {
  kind: 'reset' | 'retry-after'
  /** Send time of the 429 that made the promise. */
  refusedSentAt: number
  promisedAt: number
  /** Send time of the refused call that tested it. */
  testSentAt: number
  /** Admitted answers received between the 429's send and the test's send (this generator's view). */
  admittedSince: number
  /** Calls in flight beside the test when it was sent or answered, which may have taken the room. */
  othersInFlight: number
  /** Admissions the promise owes before a refusal: the limit for a bucket of calls, one for a bucket of tokens. */
  needs: number
}

/**
 * What the target's headers show of its algorithm, counted over admitted answers: how the announced instant at
 * which the bucket is full again (received at plus reset) moved since the answer before, and what reset the
 * admission announced. A fixed window keeps the instant (`still`) or moves it by about a period (`period`); a
 * sliding window announces a whole period after each admission (`whole`: its newest unit leaves then); a
 * continuous refill announces less than that (`partial`: the tokens left refill sooner). Sums, so shards add up.
 */
export interface AlgorithmSigns {
  answers: number
  still: number
  period: number
  whole: number
  partial: number
  other: number
  /** The longest reset seen (ms): the period the target seems to use. */
  maxResetMs: number
  /** The earliest instant an admitted answer announced the bucket full again: a fixed window's first end. */
  firstFullAt?: number
}

/** The rate-limit facts of a phase, folded as answers arrive; every field merges exactly across shards. */
export interface RateLimitFacts {
  /** Send time of the first 429 (null: none). */
  firstRefusedSentAt: number | null
  /**
   * 429s by `room`: the remaining that the answer before them reported (received before they were sent), less
   * the other calls in flight. Only one generator knows which answer came before: a merge of shards does not judge it.
   */
  refusedWithRoom: Record<string, number>
  /** 429s by the room their own remaining header reported, less the other calls in flight. */
  refusedReportingRoom: Record<string, number>
  /** Promises tested by a later refusal or call, of each kind. */
  tested: { reset: number; retryAfter: number }
  /** The tests that look broken from this generator's view, at most RECORDER_LIMITS.maxPromiseTests. */
  suspects: PromiseTest[]
  /** Admitted answers of each limit header value (a 429 may report the bucket that refused it). */
  limits: Record<string, number>
  algorithm: AlgorithmSigns
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
  /**
   * Limit headers of admitted answers that differ from the reference's table for this tier (when the phase knows it).
   */
  limitNotTable: number
  /** Remaining above the limit of the same answer. */
  remainingOverLimit: number
  /** Resets longer than the bucket's period (a minute) plus the rounding of whole seconds. */
  resetOverPeriod: number
}

export interface ScheduleFigures {
  /** Largest gap between calls planned by then and calls sent by then, in calls. */
  maxBehindCalls: number
  maxAheadCalls: number
  /** The bound past which the run proves nothing, in calls. */
  boundCalls: number
  /** Sends later than planned by more than this many ms, p99 (scheduler only). */
  lagP99Ms: number | null
  /** How late each send left against its plan (scheduler only): the `lag` objective's samples. */
  lag?: HistogramSummary
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
  /** Retries refused although they waited what the 429 before them asked and no call was admitted meanwhile. */
  refusedAfterWait: number
  /** Retry-After of the 429s, summed (ms) and counted: the wait the target asked for on average. */
  retryAfterTotalMs: number
  retryAfterCount: number
  /** From a task's first 429 to its success. */
  recovery: HistogramSummary
}

export interface StreamFigures {
  ttft: HistogramSummary
  interToken: HistogramSummary
  endToEnd: HistogramSummary
  /**
   * Output tokens per second of each stream (count = streams): its min, mean and percentiles are tokens per second, not
   * ms.
   */
  tokensPerSecond: HistogramSummary
  /** Per stream, time per output token after the first (ms): the `tpot` objective's samples. */
  tpot?: HistogramSummary
  completed: number
  truncated: number
}

export interface Goodput {
  ok: number
  good: number
  throughputPerSecond: number
  goodputPerSecond: number
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
  /**
   * From the call's actual send to its end, whatever the plan wanted: how long the target took. The series count
   * calls by their actual send, so the admission bounds stretch their spans by this, not by `latency`.
   */
  answerTime?: HistogramSummary
  /** Latency of the calls answered 2xx whose body ended: the `e2e` objective's samples. */
  okLatency?: HistogramSummary
  /** Calls answered 2xx, and of them the good ones (types.ts SeriesBucket.good), per second of the phase. */
  goodput?: Goodput
  schedule: ScheduleFigures | null
  series: SeriesBucket[]
  /** Calls in flight at most (a merge adds the shards'): what answers overtaking each other can explain. */
  maxInFlight: number
  rateLimit: RateLimitFacts
  /**
   * What the headers show of the target's algorithm: an observation, never a verdict (verdicts.ts observeAlgorithm).
   */
  algorithm: string | null
  headers: HeaderCounts
  clients?: ClientFigures
  stream?: StreamFigures
  probe?: { sent: number; refused: number; answered: number }
  /** Calls sent and answered 2xx per route label (scheduler engine, labelled requests only). */
  mix?: Record<string, { sent: number; ok: number }>
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
  /** `limiter`: the algorithm the embedded gateway was started with (--limiter), when one was named. */
  target: { baseUrl: string; embedded: boolean; minuteMs: number; limiter?: string }
  /** `seed`: the run's (--seed, else drawn at random), from which phases without a seed of their own derive theirs. */
  profile: {
    name: string
    description: string
    tier: number | null
    durationMs: number
    rate: number | null
    connections: number | null
    seed?: number
  }
  shard: { index: number; count: number } | null
  mergedFrom: string[]
  bucketMs: number
  phases: PhaseResult[]
  /** `--slo`, parsed; judged on every phase (a capacity search judges its steps by them instead). */
  objectives?: Objective[]
  /** `--abort-on-fail`: a breached objective beyond recovery stopped the run (stopReason says which). */
  abortOnFail?: boolean
  /** The capacity profile's search: its steps, the rate found and why it stopped. */
  capacity?: CapacityResult
  verdicts: Verdict[]
  outcome: 'pass' | 'fail' | 'inconclusive' | 'error'
  exitCode: 0 | 1 | 2 | 3
  /** Set on the merge of `--repeat k` runs (load/repeat.ts); absent on a single run. */
  repeats?: RepeatSpread
}

/** A figure over the repeats of a run: its value in each, and their spread (load/compare/spread.ts). */
export interface FigureSpread {
  values: number[]
  min: number
  max: number
  mean: number
  /** Sample standard deviation (n - 1); null with fewer than two repeats. */
  stddev: number | null
}

export interface RepeatSpread {
  count: number
  /** Each repeat's report directory, relative to the merged result's. */
  dirs: string[]
  /** Per phase name, per figure name (load/compare/figures.ts): the spread across the repeats that ran the phase. */
  phases: Record<string, Record<string, FigureSpread>>
}

/**
 * How one step of a capacity search ended: its rate held, or what broke: the target (an objective breached, a
 * queue, fewer answers than calls offered), its limit (429s), or the generator itself (it could not send its plan
 * with connections to spare: its own ceiling, which says nothing of the target's).
 */
export type StepOutcome = 'held' | 'breached' | 'saturated' | 'refused' | 'generator'

export interface CapacityStep {
  /** The phase of the step (its figures are there). */
  phase: string
  kind: 'ramp' | 'bisect'
  offered: number
  achieved: number
  throughput: number
  goodput: number
  p50Ms: number
  p99Ms: number
  /** Share of the judged calls without a 2xx (429s apart). */
  errors: number
  refused: number
  outcome: StepOutcome
  /** Why, in one line: the objectives breached, the sign of over-saturation, the share refused. */
  why: string
}

export interface CapacityResult {
  /** The highest offered rate that held (calls per second); null when even the first step broke. */
  sustainable: number | null
  /** The lowest offered rate that broke; null when none did. */
  firstBroken: number | null
  /**
   * Which bound was met first: the target's capacity (objectives or over-saturation), its limit (429s, or the tier's
   * limit reached with every step held), the generator's own ceiling (inconclusive), or neither (the search's own
   * ceiling or a cap).
   */
  bound: 'capacity' | 'limit' | 'ceiling' | 'generator' | null
  /**
   * The tier's request limit per minute the search stayed within (--tier), and as calls per second of the target's
   * minute.
   */
  tierLimit: { perMinute: number; perSecond: number; source: string } | null
  objectives: Objective[]
  stopReason: string
  steps: CapacityStep[]
}

/** The kinds of call a load profile's routes make: read by the profiles and by the stated limits of each route. */
export type RouteKind =
  | 'responses'
  | 'responses-stream'
  | 'chat'
  | 'chat-stream'
  | 'embeddings'
  | 'completions'
  | 'moderations'
  | 'models-list'
