/** summary.json: everything a run found, for machines (CI gates, dashboards, the merge of shards). */
import type { Counts, RequirementResult, Verdict } from '../results.ts'

export const SUMMARY_SCHEMA_VERSION = 1

export interface Summary {
  schemaVersion: number
  runId: string
  tool: { name: string; version: string }
  startedAt: string
  finishedAt: string
  durationMs: number
  target: { baseUrl: string; embedded: boolean }
  asOf: string
  budgetUsd: number | null
  selection: { families: string[] | null; grep: string | null; filters: string[] }
  verdict: Verdict
  exitCode: number
  totals: Counts
  families: Record<string, Counts>
  tests: { total: number; passed: number; failed: number; skipped: number }
  requirements: RequirementResult[]
  /** MUST requirements of the selected families that no test checks. */
  uncheckedMust: string[]
  observations: Array<{ test: string; topic: string; detail: string }>
  retries: Array<{ test: string; method: string; path: string; attempt: number; status?: number }>
  /** Calls the client held back until an empty bucket's announced reset (harness/pacing.ts). */
  pacing: Array<{ test: string; method: string; path: string; waitedMs: number }>
  harnessErrors: string[]
  /** Billable calls: what the tests estimated and reserved, and what the credit record says was spent. */
  spend: SpendSummary
}

export interface SpendSummary {
  budgetUsd: number | null
  estimatedUsd: number
  /** Remaining credit before minus after, in USD; null when /user/v1/credit did not answer or was not read. */
  measuredUsd: number | null
  items: Array<{ test: string; usd: number; what: string }>
}
