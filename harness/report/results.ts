/**
 * From what tests and audits saw to one status per requirement, a verdict and an exit code. Pure: the
 * reporter feeds it, self-tests feed it directly.
 *
 * Per requirement: a failure anywhere wins (fail, or warn for SHOULD); then a harness error; then a pass (marked
 * partial when some of its tests were skipped); then skip. A requirement no test reached is disabled when its
 * family or its tests were not selected or the catalogue marks it untestable, and skipped ("no test checks it")
 * otherwise. A run that selected one level (--level must) disables the requirements of the other; a shard
 * (--shard i/n) disables what it did not reach, which another shard may have checked (harness/report/merge.ts).
 *
 * A failed MUST test is run once more at once (harness/worker/rerun.ts); when that re-run passed, the requirement still
 * fails but is marked flaky. A baseline (harness/report/baseline.ts) turns failures it lists into known failures.
 */
import type { Level, Requirement } from '../requirements.ts'
import type { ExchangeExcerpt } from '../exchange.ts'

/** The reason prefix that marks a skip as not observed: the rule's situation did not arise on this target. */
export const NOT_OBSERVED = 'not observed: '

/** `known`: a fail or warn that the run's baseline lists (harness/report/baseline.ts); it does not fail the run. */
/**
 * `not-observed`: a rule no client can provoke (a job that fails to start) whose situation this run did not meet
 * (harness/worker/assert.ts notObserved); unlike a skip, it never makes a run incomplete.
 */
export type Status = 'pass' | 'fail' | 'warn' | 'skip' | 'not-observed' | 'error' | 'disabled' | 'known'
export type OutcomeStatus = 'pass' | 'fail' | 'skip' | 'error' | 'unselected'

export interface Outcome {
  requirement: string
  status: OutcomeStatus
  /** The test that produced it; audits name the test whose exchange they judged. */
  test: string
  file: string
  source: 'test' | 'audit'
  message?: string
  exchange?: ExchangeExcerpt
  /** A failed test that was run once more at once: what that re-run gave (harness/worker/rerun.ts). */
  rerun?: RerunResult
  /** A skip's cause: the requirement it waits on (harness/worker/recorder.ts SkipCause). */
  needs?: string
}

/**
 * The second try of a failed test: `no-time` when too little of the test's timeout was left to make it, `reused`
 * when it made no call (its exchanges are a fixture the file made once), so it tried nothing again.
 */
export type RerunResult = 'pass' | 'fail' | 'skip' | 'error' | 'no-time' | 'reused'

export interface TestSummary {
  name: string
  file: string
  status: OutcomeStatus
  durationMs?: number
  rerun?: RerunResult
}

interface Evidence {
  test: string
  source: 'test' | 'audit'
  message: string
  exchange?: ExchangeExcerpt
}

export interface RequirementResult {
  id: string
  part: number
  section: string
  family: string
  level: Level
  rule: string
  /** The reference's words the rule rests on (the catalogue's quote). */
  quote?: string
  status: Status
  reason?: string
  partial?: boolean
  tests: TestSummary[]
  audit?: { checked: number; failed: number }
  evidence: Evidence[]
  /** Failed, and every failing test passed when run again at once: a failure still, labelled so. */
  flaky?: boolean
  /** What the run's baseline says of this requirement, when it lists it (harness/report/baseline.ts). */
  baseline?: BaselineMark
  /** The requirements its skipped tests wait on: the causes Fix first counts it under (harness/report/causes.ts). */
  needs?: string[]
}

/**
 * A baseline entry judged against the run: `known` (it failed as listed; `was` keeps the status it had), `stale`
 * (it passes now: the entry must go), `not-run` (this selection did not judge it).
 */
export interface BaselineMark {
  state: 'known' | 'stale' | 'not-run'
  reason: string
  was?: 'fail' | 'warn'
}

/** `stale-baseline`: nothing failed beyond the baseline, but some of its entries pass now. */
export type Verdict = 'conformant' | 'non-conformant' | 'incomplete' | 'error' | 'stale-baseline'

export const EXIT = {
  conformant: 0,
  'non-conformant': 1,
  'stale-baseline': 1,
  error: 2,
  incomplete: 3,
} as const satisfies Record<Verdict, number>

export const MAX_EVIDENCE = 5 // per requirement: enough to see a pattern, few enough to read

interface AggregateInput {
  requirements: Iterable<Requirement>
  outcomes: Outcome[]
  selectedFamilies: readonly string[] | null
  /** True when a name filter (--grep) deselected tests: unreached requirements are then disabled, not skipped. */
  filtered: boolean
  /** --level: the levels that were selected; null for all. */
  levels?: readonly Level[] | null
  /** --shard i/n: requirements this shard did not reach are left to the others (disabled here). */
  shard?: { index: number; count: number } | null
}

export function aggregate(input: AggregateInput): RequirementResult[] {
  const byRequirement = new Map<string, Outcome[]>()
  for (const outcome of input.outcomes) {
    const list = byRequirement.get(outcome.requirement) ?? []
    list.push(outcome)
    byRequirement.set(outcome.requirement, list)
  }
  const results: RequirementResult[] = []
  for (const req of input.requirements) {
    const outcomes = byRequirement.get(req.id) ?? []
    const testOutcomes = outcomes.filter((o) => o.source === 'test')
    const auditOutcomes = outcomes.filter((o) => o.source === 'audit')
    const result: RequirementResult = {
      id: req.id,
      part: req.part,
      section: req.section,
      family: req.family,
      level: req.level,
      rule: req.rule,
      ...(req.quote === undefined ? {} : { quote: req.quote }),
      status: 'skip',
      tests: testOutcomes.map((o) => ({
        name: o.test,
        file: o.file,
        status: o.status,
        ...(o.rerun ? { rerun: o.rerun } : {}),
      })),
      evidence: [],
    }
    const needs = [...new Set(outcomes.flatMap((o) => (o.status === 'skip' && o.needs ? [o.needs] : [])))]
    if (needs.length > 0) result.needs = needs
    if (auditOutcomes.length > 0) {
      result.audit = { checked: auditOutcomes.length, failed: auditOutcomes.filter((o) => o.status === 'fail').length }
    }
    const has = (status: OutcomeStatus): boolean => outcomes.some((o) => o.status === status)
    const evidenceOf = (status: OutcomeStatus): Evidence[] =>
      outcomes
        .filter((o) => o.status === status)
        .slice(0, MAX_EVIDENCE)
        .map((o) => ({
          test: o.test,
          source: o.source,
          message: o.message ?? '',
          ...(o.exchange ? { exchange: o.exchange } : {}),
        }))
    if (input.levels && !input.levels.includes(req.level)) {
      // Audits judge every response whatever was selected; a level left out is not judged at all.
      result.status = 'disabled'
      result.reason = `level not selected (--level ${input.levels.join(',').toLowerCase()})`
    } else if (has('fail')) {
      result.status = req.level === 'MUST' ? 'fail' : 'warn'
      result.evidence = evidenceOf('fail')
      const failing = outcomes.filter((o) => o.status === 'fail')
      if (failing.every((o) => o.rerun === 'pass')) result.flaky = true
    } else if (has('error')) {
      result.status = 'error'
      result.evidence = evidenceOf('error')
    } else if (has('pass')) {
      result.status = 'pass'
      if (outcomes.some((o) => o.status === 'skip' && !isNotObserved(o))) {
        result.partial = true
        result.reason = reasons(outcomes)
      }
    } else if (has('skip') && outcomes.filter((o) => o.status === 'skip').every(isNotObserved)) {
      result.status = 'not-observed'
      result.reason = reasons(outcomes)
    } else if (has('skip')) {
      result.status = 'skip'
      result.reason = reasons(outcomes)
    } else if (input.selectedFamilies !== null && !input.selectedFamilies.includes(req.family)) {
      result.status = 'disabled'
      result.reason = 'family not selected (--family)'
    } else if (req.untestable !== undefined) {
      // No run can judge it (the catalogue says why): neither checked nor missing, so it does not make a run incomplete.
      result.status = 'disabled'
      result.reason = `untestable: ${req.untestable}`
    } else if (input.filtered || has('unselected')) {
      result.status = 'disabled'
      result.reason = UNSELECTED_REASON
    } else if (input.shard) {
      result.status = 'disabled'
      result.reason = `${SHARD_REASON} (--shard ${input.shard.index}/${input.shard.count})`
    } else {
      result.status = 'skip'
      result.reason = UNCHECKED_REASON
    }
    results.push(result)
  }
  return results
}

/** The start of the reason a shard gives what it did not reach; the merge of shards looks for it. */
export const SHARD_REASON = 'not in this shard'

/** The reason of a requirement that no test reached (uncheckedMust lists the MUSTs among them). */
export const UNCHECKED_REASON = 'no test checks this requirement'
export const UNSELECTED_REASON = 'no test selected (--grep or a file filter)'

/** The MUST requirements that no test reached, for summary.json's uncheckedMust. */
export function uncheckedMustIds(results: readonly RequirementResult[]): string[] {
  return results.filter((r) => r.level === 'MUST' && r.reason === UNCHECKED_REASON).map((r) => r.id)
}

function isNotObserved(outcome: Outcome): boolean {
  return outcome.message?.startsWith(NOT_OBSERVED) === true
}

function reasons(outcomes: Outcome[]): string {
  return [...new Set(outcomes.filter((o) => o.status === 'skip').map((o) => o.message ?? 'skipped'))].join('; ')
}

export function verdictOf(results: readonly RequirementResult[], harnessErrors: number): Verdict {
  if (harnessErrors > 0 || results.some((r) => r.status === 'error')) return 'error'
  if (results.some((r) => r.level === 'MUST' && r.status === 'fail')) return 'non-conformant'
  if (results.some((r) => r.baseline?.state === 'stale')) return 'stale-baseline'
  if (results.some((r) => r.level === 'MUST' && r.status === 'skip')) return 'incomplete'
  return 'conformant'
}

export type Counts = Record<Status, number>

function emptyCounts(): Counts {
  return { pass: 0, fail: 0, warn: 0, skip: 0, 'not-observed': 0, error: 0, disabled: 0, known: 0 }
}

export function countByFamily(results: readonly RequirementResult[]): Map<string, Counts> {
  const map = new Map<string, Counts>()
  for (const r of results) {
    const counts = map.get(r.family) ?? emptyCounts()
    counts[r.status] += 1
    map.set(r.family, counts)
  }
  return new Map([...map].sort(([a], [b]) => a.localeCompare(b)))
}

export function totals(results: readonly RequirementResult[]): Counts {
  const counts = emptyCounts()
  for (const r of results) counts[r.status] += 1
  return counts
}
