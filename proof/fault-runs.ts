/**
 * The fault proof's engine (the faults command, scripts/faults.ts, parses its flags and calls runFaults).
 *
 * The fault score: runs the conformance suites against the reference gateway under every named fault and prints
 * a table: the fault, the requirements it breaks, whether the run detected it (exactly those requirements failed
 * and the exit code says so), and anything else that failed (collateral). Exit 0 when every fault is detected
 * with no collateral. Each fault runs the families its requirements belong to (--scope families, the default),
 * or only the suite files that check them (--scope files, which npm test uses to stay quick; there a fault of the
 * tiers family gets the keys of the lowest tiers only, see keysFor).
 *
 * --limiters proves the rate-limit checks against every algorithm the reference allows: the families that judge
 * limits run against the faithful gateway in each mode, where nothing may fail, and each fault of the limiter
 * (`limiter: true`) runs again against a sliding-window and a token-bucket gateway (a clock-aligned window shares
 * the fixed window's counting, so its faults are the same code).
 *
 * All runs share a few vitest instances (one per worker slot) instead of starting a process per fault, and each
 * instance its worker thread with the modules it loaded (harness/setup/kept-threads.ts): the target changes between
 * runs through vitest's provide(), and every run has a run id of its own (a worker keeps the routes it saw served by
 * run). Faults whose suite files do not overlap share a run: each has a gateway of its own and each file faces its
 * fault's gateway alone (harness/worker/run-config.ts fileTargets), so a failure is its fault's by construction; a
 * file that called another gateway voids that fault's share, and a fault not judged exactly in a shared run is run
 * again alone.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  createVitest,
  type Reporter,
  type SerializedError,
  type TestModule,
  type TestSpecification,
  type Vitest,
} from 'vitest/node'
import { type EmbeddedGateway, startEmbeddedGateway } from '../gateway/embedded.ts'
import type { FaultDefinition } from '../gateway/faults/registry.ts'
import { LIMITER_ALGORITHMS, type LimiterAlgorithm } from '../gateway/limiter.ts'
import { CONFORMANCE_PROJECTS } from '../harness/setup/projects.ts'
import { requirements } from '../harness/requirements.ts'
import { DEFAULT_NATIVE_KEY_HEADER, DEFAULTS, type RunOptions, type TargetConfig } from '../harness/setup/config.ts'
import type { KeySlot } from '../harness/keys.ts'
import { FAULT_RUN_DEFAULTS } from './run-defaults.ts'
import { todayUtc } from '../harness/clock.ts'
import { ConformanceReporter } from '../harness/report/reporter.ts'
import { REQ } from '../harness/report/audit.ts'
import type { ExchangeExcerpt } from '../harness/exchange.ts'
import { collectChecks } from '../harness/setup/list-requirements.ts'
import { newRunId } from '../harness/setup/target.ts'
import { EXIT } from '../harness/report/results.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const AUDITED = new Set<string>(Object.values(REQ))

export interface FaultResult {
  /** The fault's name, or CLEAN for the faithful gateway. */
  fault: string
  limiter: LimiterAlgorithm
  breaks: string[]
  families: string[]
  /** Requirements that ended fail or warn. */
  failing: string[]
  errors: string[]
  exitCode: number
  expectedExitCode: number
  detected: boolean
  collateral: string[]
  /** For each collateral requirement, what its first failing test saw (one line), so a flaky check can be found. */
  collateralSeen: Record<string, string>
  /** The run's duration: with `sharedBy` above 1, a run that judged that many faults side by side. */
  durationMs: number
  sharedBy: number
  /** For each requirement the fault breaks that did not fail: its status and why, so a missed fault can be read. */
  missedSeen: Record<string, string>
  /** A run that was made twice (see runFaults): what the first try failed. */
  firstTry?: { failing: string[]; collateralSeen: Record<string, string>; missedSeen: Record<string, string> }
}

/** One fault's share of a run: its gateway, the suite files that face it, and the reporter that judges them. */
interface Part {
  job: Job
  gateway: EmbeddedGateway
  target: TargetConfig
  reporter: ConformanceReporter
  families: string[]
  files: Set<string>
  /** Files of this part that called a gateway other than its own. */
  strayFiles: string[]
}

/** Hands each file's events to the reporter of the fault it faced: a vitest instance keeps its reporters for life. */
class PartsReporter implements Reporter {
  parts: Part[] = []
  onTestModuleEnd(module: TestModule): void {
    this.parts.find((part) => part.files.has(module.moduleId))?.reporter.onTestModuleEnd(module)
  }
  async onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>): Promise<void> {
    await Promise.all(
      this.parts.map((part) => {
        const own = modules.filter((module) => part.files.has(module.moduleId))
        part.strayFiles = own
          .filter((module) => exchangesOf(module).some((ex) => !ex.url.startsWith(`${part.gateway.url}/`)))
          .map((module) => relative(ROOT, module.moduleId))
        // An error outside any file cannot be told apart: every fault of the run gets it.
        return part.reporter.onTestRunEnd(own, errors)
      }),
    )
  }
}

function exchangesOf(module: TestModule): ExchangeExcerpt[] {
  return [
    ...(module.meta().exchanges ?? []),
    ...[...module.children.allTests()].flatMap((test) => test.meta().exchanges ?? []),
  ]
}

interface Slot {
  vitest: Vitest
  reporter: PartsReporter
}

function familiesOf(fault: FaultDefinition): string[] {
  return [...new Set(fault.breaks.map((id) => requirements().get(id)?.family ?? 'unknown'))].sort()
}

/** The name of a run against the faithful gateway, where nothing may fail. */
export const CLEAN = 'clean'

/** The families whose checks judge rate limits: the faithful gateway must pass them under every limiter. */
const LIMIT_FAMILIES = ['headers', 'tiers']

const CLEAN_RUN: FaultDefinition = { name: CLEAN, breaks: [], description: 'the faithful gateway' }

/** The algorithms, beside the default, under which the limiter faults are proven again. */
export const FAULTED_LIMITERS: readonly LimiterAlgorithm[] = ['sliding-window', 'token-bucket']

/** One run: a fault (or CLEAN) against a gateway whose buckets use `limiter`. */
interface Job {
  fault: FaultDefinition
  limiter: LimiterAlgorithm
}

/** Where a result is filed: the fault's name, and its limiter where that is not the default. */
export function resultKey(fault: string, limiter: LimiterAlgorithm): string {
  return limiter === 'fixed-window' ? fault : `${fault}@${limiter}`
}

function jobsFor(selected: readonly FaultDefinition[], limiters: boolean): Job[] {
  const jobs: Job[] = selected.map((fault) => ({ fault, limiter: 'fixed-window' }))
  if (!limiters) return jobs
  for (const limiter of LIMITER_ALGORITHMS.filter((l) => l !== 'fixed-window')) {
    jobs.push({ fault: CLEAN_RUN, limiter })
    if (FAULTED_LIMITERS.includes(limiter))
      for (const fault of selected.filter((f) => f.limiter)) jobs.push({ fault, limiter })
  }
  return jobs
}

/**
 * Which suite files a fault's run covers. `families`: every file of the families its requirements belong to, so
 * that collateral anywhere in those families shows. `files` (quicker, for npm test): only the files that check
 * its requirements, and the family folder for requirements that the audit of every response checks.
 */
export type Scope = 'files' | 'families'

/** The generation phase's suite folder (suites/generated/). */
const GENERATED_SUITES = 'suites/generated/'

function filtersFor(fault: FaultDefinition, scope: Scope, checks: Map<string, string[]>): string[] {
  if (fault === CLEAN_RUN) return LIMIT_FAMILIES.map((f) => `suites/${f}/`)
  if (scope === 'families') return familiesOf(fault).map((f) => `suites/${f}/`)
  const filters = new Set<string>()
  for (const id of fault.breaks) {
    const files = checks.get(id)
    if (files === undefined || AUDITED.has(id)) filters.add(`suites/${requirements().get(id)?.family ?? 'unknown'}/`)
    // The generation phase files cases under requirements of every family: in scope files it would join most faults'
    // runs, every route's cases each time; test/cli/generated.test.ts proves it against faults of its own. A
    // requirement only the phase checks (a body that is not JSON) is proven here, by the phase.
    const own = (files ?? []).filter((file) => !file.startsWith(GENERATED_SUITES))
    for (const file of own.length > 0 ? own : (files ?? [])) filters.add(file)
  }
  return [...filters]
}

/**
 * The keys a run is given: every key the gateway seeds, except that in scope files the tiers family (a fault of it,
 * or a clean run under another limiter) gets only the tier keys of FAULT_RUN_DEFAULTS.tierKeys. That family's checks
 * are the same for every tier and spend calls in proportion to its limit: the lowest tiers show a fault, and an
 * algorithm's effect, in the fewest calls, where the bursts of the highest tiers, three limiters at once in one
 * process, starved its gateways past the call deadline. Scope families judges every tier under every limiter, and
 * the whole runs of npm test every tier under the default one.
 */
function keysFor(job: Job, scope: Scope, seeded: EmbeddedGateway['keys']): TargetConfig['keys'] {
  // A clean run judges the limit families, the tiers family among them.
  const tiers = job.fault === CLEAN_RUN || familiesOf(job.fault).includes('tiers')
  if (scope === 'families' || !tiers) return { ...seeded }
  return Object.fromEntries(
    Object.entries(seeded).filter(
      ([slot]) => !slot.startsWith('tier') || FAULT_RUN_DEFAULTS.tierKeys.includes(slot as KeySlot),
    ),
  )
}

/** Run ids handed out in this process: a kept thread keeps what it saw served by run (worker/served-routes.ts). */
const runIds = new Set<string>()

function uniqueRunId(): string {
  let id = newRunId()
  while (runIds.has(id)) id = newRunId()
  runIds.add(id)
  return id
}

async function startPart(job: Job, planned: PlannedJob, scratch: string, files: Set<string>): Promise<Part> {
  const { fault, limiter } = job
  const { filters, scope } = planned
  const clean = fault === CLEAN_RUN
  const families = clean ? LIMIT_FAMILIES : familiesOf(fault)
  const asOf = fault.asOf ?? todayUtc()
  const key = resultKey(fault.name, limiter)
  const gateway = await startEmbeddedGateway({
    faults: clean ? [] : [fault.name],
    limiter,
    minuteMs: FAULT_RUN_DEFAULTS.minuteMs,
    ...(fault.asOf ? { now: `${fault.asOf}T12:00:00Z` } : {}),
  })
  const target: TargetConfig = {
    baseUrl: gateway.url,
    embedded: false,
    keys: keysFor(job, scope, gateway.keys),
    asOf,
    budgetUsd: null,
    timeoutMs: DEFAULTS.timeoutMs,
    largeUploads: false,
    models: { ...gateway.models },
    nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
    minuteMs: FAULT_RUN_DEFAULTS.minuteMs,
    settleMs: DEFAULTS.embeddedSettleMs,
    runId: uniqueRunId(),
  }
  const options: RunOptions = {
    baseUrl: gateway.url,
    keys: target.keys,
    asOf,
    asOfExplicit: fault.asOf !== undefined,
    budgetUsd: null,
    timeoutMs: target.timeoutMs,
    largeUploads: false,
    models: target.models,
    nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
    families,
    grep: null,
    reportDir: scratch,
    filters: families.every((f) => filters.includes(`suites/${f}/`)) ? [] : filters,
  }
  const reporter = new ConformanceReporter({
    target,
    options,
    runDir: join(scratch, key.replace('@', '-')),
    reportRoot: scratch,
    root: ROOT,
    tool: { name: 'faults', version: '0' },
    write: () => {},
    writeReports: false,
  })
  return { job, gateway, target, reporter, families, files, strayFiles: [] }
}

/** The line of a requirement's first evidence that says what was seen, or its first line. */
function seenLine(result: { evidence: Array<{ message: string }> } | undefined): string {
  const lines = (result?.evidence[0]?.message ?? '').split('\n')
  return lines.find((line) => line.trim().startsWith('Seen:'))?.trim() ?? lines[0] ?? ''
}

function judge(part: Part, durationMs: number, sharedBy: number): FaultResult {
  const { fault, limiter } = part.job
  const summary = part.reporter.summary
  const failing = (summary?.requirements ?? [])
    .filter((r) => r.status === 'fail' || r.status === 'warn')
    .map((r) => r.id)
    .sort()
  const errors = [
    ...(summary?.requirements ?? []).filter((r) => r.status === 'error').map((r) => r.id),
    ...(summary?.harnessErrors ?? []),
    ...part.strayFiles.map((file) => `${file} called a gateway other than its fault's`),
  ]
  const breaks = [...fault.breaks].sort()
  const expectedExitCode = breaks.some((id) => requirements().get(id)?.level === 'MUST')
    ? EXIT['non-conformant']
    : EXIT.conformant
  const exitCode = part.reporter.exitCode
  const collateral = failing.filter((id) => !breaks.includes(id))
  const resultOf = (id: string) => summary?.requirements.find((r) => r.id === id)
  const collateralSeen = Object.fromEntries(collateral.map((id) => [id, seenLine(resultOf(id))]))
  const missedSeen = Object.fromEntries(
    breaks
      .filter((id) => !failing.includes(id))
      .map((id) => {
        const r = resultOf(id)
        return [id, `${r?.status ?? 'not run'}: ${r?.reason ?? seenLine(r)}`]
      }),
  )
  return {
    fault: fault.name,
    limiter,
    breaks,
    families: part.families,
    failing,
    errors,
    exitCode,
    expectedExitCode,
    detected: breaks.every((id) => failing.includes(id)) && exitCode === expectedExitCode && errors.length === 0,
    collateral,
    collateralSeen,
    missedSeen,
    durationMs,
    sharedBy,
  }
}

/**
 * One run of the suite files of several faults whose files do not overlap (or of one fault): each fault gets a
 * gateway of its own, its files face it alone, and its reporter judges only its files.
 */
async function runTogether(slot: Slot, jobs: readonly Job[], scratch: string, plan: Plan): Promise<FaultResult[]> {
  const started = performance.now()
  const parts: Part[] = []
  try {
    // Each vitest instance globs its own: a specification carries its instance's project, and with it the target
    // that instance provides.
    const specs: TestSpecification[] = []
    for (const job of jobs) {
      const planned = plan.get(job) as PlannedJob
      const own = await slot.vitest.globTestSpecifications(planned.filters)
      specs.push(...own)
      parts.push(await startPart(job, planned, scratch, new Set(own.map((spec) => spec.moduleId))))
    }
    const fileTargets = Object.fromEntries(
      parts.flatMap((part) => [...part.files].map((file) => [file, part.target] as const)),
    )
    slot.reporter.parts = parts
    slot.vitest.provide('runConfig', (parts[0] as Part).target)
    slot.vitest.provide('fileTargets', fileTargets)
    await slot.vitest.runTestSpecifications(specs)
    const durationMs = Math.round(performance.now() - started)
    return parts.map((part) => judge(part, durationMs, parts.length))
  } finally {
    slot.reporter.parts = []
    for (const part of parts) await part.gateway.close()
  }
}

/** A job's scope, its suite-file filters and the test files they select. */
interface PlannedJob {
  scope: Scope
  filters: string[]
  files: Set<string>
}
type Plan = Map<Job, PlannedJob>

/**
 * Packs jobs into shared runs, each job into the first run none of whose files it needs (largest jobs first).
 * The number of runs is at least the number of jobs that need the busiest file.
 */
export function packRuns<T>(jobs: readonly T[], filesOf: (job: T) => ReadonlySet<string>): T[][] {
  const runs: Array<{ jobs: T[]; files: Set<string> }> = []
  for (const job of [...jobs].sort((a, b) => filesOf(b).size - filesOf(a).size)) {
    const files = filesOf(job)
    let run = runs.find((r) => ![...files].some((file) => r.files.has(file)))
    if (run === undefined) {
      run = { jobs: [], files: new Set() }
      runs.push(run)
    }
    run.jobs.push(job)
    for (const file of files) run.files.add(file)
  }
  return runs.map((run) => run.jobs)
}

/** Runs that mostly wait for rate-limit windows: they get lanes of their own beside the others. */
function waits({ fault }: Job): boolean {
  return fault === CLEAN_RUN || familiesOf(fault).includes('tiers')
}

export async function runFaults(
  selected: readonly FaultDefinition[],
  workers: number,
  scope: Scope,
  limiters = false,
  /** Each result as soon as it is final, so that a run stopped early still leaves what it judged. */
  onResult: (result: FaultResult) => void = () => {},
): Promise<FaultResult[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'gc-faults-'))
  const slots: Slot[] = []
  // requirement id -> the suite files whose tests check it
  const checks = new Map<string, string[]>()
  if (scope === 'files') {
    for (const [id, tests] of await collectChecks(ROOT))
      checks.set(id, [...new Set(tests.map((t) => t.split(' > ')[0] as string))])
  }
  const newSlot = async (): Promise<Slot> => {
    const reporter = new PartsReporter()
    const vitest = await createVitest('test', {
      root: ROOT,
      project: CONFORMANCE_PROJECTS,
      watch: false,
      maxWorkers: FAULT_RUN_DEFAULTS.threadsPerRun,
      reporters: [reporter],
    })
    const slot = { vitest, reporter }
    slots.push(slot)
    return slot
  }
  try {
    const jobs = jobsFor(selected, limiters)
    const first = await newSlot()
    const plan: Plan = new Map()
    for (const job of jobs) {
      const filters = filtersFor(job.fault, scope, checks)
      const files = new Set((await first.vitest.globTestSpecifications(filters)).map((spec) => spec.moduleId))
      plan.set(job, { scope, filters, files })
    }
    const filesOf = (job: Job) => (plan.get(job) as PlannedJob).files
    // The clean runs judge two whole families and take longest: started first, they do not end the proof alone.
    const waiting = jobs.filter(waits).sort((a, b) => Number(b.fault === CLEAN_RUN) - Number(a.fault === CLEAN_RUN))
    const waitingRuns = { runs: waiting.map((job) => [job]), next: 0 }
    const sharedRuns = {
      runs: packRuns(
        jobs.filter((job) => !waits(job)),
        filesOf,
      ),
      next: 0,
    }
    // The lanes for runs that use the CPU take waiting runs once theirs are done.
    const lanes = [
      ...Array.from({ length: Math.min(workers, sharedRuns.runs.length) }, () => [sharedRuns, waitingRuns]),
      ...Array.from({ length: Math.min(FAULT_RUN_DEFAULTS.waitingLanes, waitingRuns.runs.length) }, () => [
        waitingRuns,
      ]),
    ]
    // Each vitest instance listens for the process's exit and signals.
    process.setMaxListeners(process.getMaxListeners() + 2 * lanes.length)
    const results = new Map<string, FaultResult>()
    // Lanes start one after another: vitest instances made all at once would hold both cores for seconds.
    const laneSlots: Array<Promise<Slot>> = []
    for (const [lane] of lanes.entries())
      laneSlots.push(lane === 0 ? Promise.resolve(first) : (laneSlots[lane - 1] as Promise<Slot>).then(newSlot))
    await Promise.all(
      lanes.map(async (queues, lane) => {
        const slot = await (laneSlots[lane] as Promise<Slot>)
        for (const queue of queues) {
          while (queue.next < queue.runs.length) {
            const run = queue.runs[queue.next] as Job[]
            queue.next += 1
            const tries = await runTogether(slot, run, scratch, plan)
            for (const [i, job] of run.entries()) {
              let result = tries[i] as FaultResult
              // Some checks hang on timing that a machine shared by many runs can starve: the tiers runs count calls
              // in rate-limit windows, a dropped connection must reach the gateway while it still listens. One more
              // run, alone, tells that apart from a fault the suite misses or that fails more than it declares; both
              // are reported.
              if (!result.detected || result.collateral.length > 0) {
                const { failing, collateralSeen, missedSeen } = result
                const firstTry = { failing, collateralSeen, missedSeen }
                result = { ...((await runTogether(slot, [job], scratch, plan))[0] as FaultResult), firstTry }
              }
              results.set(resultKey(job.fault.name, job.limiter), result)
              onResult(result)
            }
          }
        }
      }),
    )
    // The table keeps the registry's order, the default limiter first.
    return jobs.map((job) => results.get(resultKey(job.fault.name, job.limiter)) as FaultResult)
  } finally {
    for (const slot of slots) await slot.vitest.close()
    rmSync(scratch, { recursive: true, force: true })
  }
}

export function faultTable(results: readonly FaultResult[]): string {
  const rows = [
    ['fault', 'breaks', 'detected', 'collateral', 'seconds'],
    ...results.map((r) => [
      resultKey(r.fault, r.limiter),
      r.breaks.join(', ') || '(nothing)',
      r.detected
        ? `yes${r.firstTry ? ` (second try; the first failed: ${r.firstTry.failing.join(', ') || 'nothing'})` : ''}`
        : `NO (failing: ${r.failing.join(', ') || 'none'}; exit ${r.exitCode}${r.errors.length ? `; errors: ${r.errors.join(', ')}` : ''})`,
      r.collateral.join(', ') || '-',
      `${(r.durationMs / 1000).toFixed(1)}${r.sharedBy > 1 ? ` (run of ${r.sharedBy})` : ''}`,
    ]),
  ]
  const widths = (rows[0] as string[]).map((_, c) => Math.max(...rows.map((row) => (row[c] as string).length)))
  return rows
    .map((row) =>
      row
        .map((cell, c) => cell.padEnd(widths[c] as number))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
