/**
 * summary.json: everything a run found, for machines (CI gates, dashboards, the merge of shards). Its published
 * shape is schemas/report/summary.schema.json; a self-test validates real runs against it, so change both together.
 */
import type { BaselineSummary } from './baseline.ts'
import type { KeySlot } from '../keys.ts'
import type { ExchangeExcerpt } from '../exchange.ts'
import type { Counts, RequirementResult, Verdict } from './results.ts'
import type { Scope } from './scope.ts'
import type { FixFirst } from './causes.ts'

export const SUMMARY_SCHEMA_VERSION = 1

export interface Summary {
  schemaVersion: number
  runId: string
  /** Which suite judged (harness/report/attribution.ts); commit and catalogue hash are absent from older summaries. */
  tool: { name: string; version: string; commit?: string | null; catalogueSha256?: string }
  startedAt: string
  finishedAt: string
  durationMs: number
  target: { baseUrl: string; embedded: boolean }
  asOf: string
  /** Account tiers 0 to 5: whether the run had a key for each, and how many calls it made with it. */
  tiers: TierUse[]
  budgetUsd: number | null
  /** level: --level must; shard: --shard i/n (null for a whole run). Always written; optional for older summaries. */
  selection: {
    families: string[] | null
    grep: string | null
    filters: string[]
    level?: 'MUST' | null
    shard?: { index: number; count: number } | null
  }
  /** The baseline the run was judged with (--baseline; harness/report/baseline.ts), or null. Always written. */
  baseline?: BaselineSummary | null
  /** A merge of shards or runs (harness/report/merge.ts): the runs it merged. */
  mergedFrom?: Array<{ runId: string; dir: string; shard: { index: number; count: number } | null }>
  verdict: Verdict
  exitCode: number
  /** Whole run or a selection (harness/report/scope.ts): only a whole run's verdict is one on the gateway. Always written. */
  scope?: Scope
  totals: Counts
  families: Record<string, Counts>
  tests: { total: number; passed: number; failed: number; skipped: number }
  requirements: RequirementResult[]
  /** MUST requirements of the selected families that no test checks. */
  uncheckedMust: string[]
  /** The run's causes, largest first (harness/report/causes.ts). Always written; absent from older summaries. */
  fixFirst?: FixFirst[]
  observations: Array<{ test: string; topic: string; detail: string }>
  retries: Array<{ test: string; method: string; path: string; attempt: number; status?: number }>
  /** Calls the client held back until an empty bucket's announced reset (harness/worker/pacing.ts). */
  pacing: Array<{ test: string; method: string; path: string; waitedMs: number }>
  harnessErrors: string[]
  /** Why the run stopped calling the target before its end (harness/setup/run-stop.ts): its report is partial, exit 2. */
  stopped?: string
  /** Billable calls: what the tests estimated and reserved, and what the credit record says was spent. */
  spend: SpendSummary
}

interface SpendSummary {
  budgetUsd: number | null
  estimatedUsd: number
  /** Remaining credit before minus after, in USD; null when /user/v1/credit did not answer or was not read. */
  measuredUsd: number | null
  /** Each reservation; `refused`, the 4xx that refused its call, released it (not in estimatedUsd). */
  items: Array<{ test: string; usd: number; what: string; refused?: number }>
}

interface TierUse {
  tier: number
  keyGiven: boolean
  calls: number
}

const TIERS = [0, 1, 2, 3, 4, 5] as const

/** Which tier keys a run was given and used: a tier is tested when some call carried its key. */
export function tierUse(
  keys: Partial<Record<KeySlot, string>>,
  exchanges: Iterable<Pick<ExchangeExcerpt, 'key'>>,
): TierUse[] {
  const calls = new Map<string, number>()
  for (const ex of exchanges) if (ex.key !== null) calls.set(ex.key, (calls.get(ex.key) ?? 0) + 1)
  return TIERS.map((tier) => ({
    tier,
    keyGiven: keys[`tier${tier}`] !== undefined,
    calls: calls.get(`tier${tier}`) ?? 0,
  }))
}
