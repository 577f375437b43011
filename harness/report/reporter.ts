/**
 * The conformance reporter: collects every test's requirement, result and exchanges, audits the exchanges
 * against the shared-header rules, aggregates per requirement and writes reports/<run-id>/ (summary.json,
 * summary.md, coverage.md, exchanges.har, junit.xml; allure-results/ is written by allure-vitest beside them)
 * and reports/latest.
 */
import { writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node'
import { auditExchange, duplicateIds, REQ } from './audit.ts'
import { ledgerFindings } from './ledger.ts'
import { baselineJunit, settleBaseline, targetName, type Baseline } from './baseline.ts'
import { requirements } from '../requirements.ts'
import type { RunOptions, TargetConfig } from '../setup/config.ts'
import type { CreditReading } from '../setup/credit.ts'
import { curlLine } from '../worker/curl.ts'
import { errorLine, FAILURE_NAMES } from '../errors.ts'
import { describeExchange } from '../worker/failure.ts'
import type { ExchangeExcerpt } from '../exchange.ts'
import type { ConformanceMeta, SkipCause } from '../worker/recorder.ts'
import { routeOf } from '../routes.ts'
import { fixFirst, routeFailures, type AbsentRoute } from './causes.ts'
import { Redactor } from '../redact.ts'
import { rerunNote } from '../worker/rerun.ts'
import { NOT_BEGUN_NOTE } from '../setup/run-stop.ts'
import {
  aggregate,
  countByFamily,
  EXIT,
  totals,
  UNCHECKED_REASON,
  UNSELECTED_REASON,
  uncheckedMustIds,
  verdictOf,
  type Outcome,
  type OutcomeStatus,
  type RequirementResult,
} from './results.ts'
import { scopeOf } from './scope.ts'
import { attribution, attributionProperties } from './attribution.ts'
import { endOfRun } from './console.ts'
import type { ProgressReporter } from './progress.ts'
import { pointLatest, shownPath, writeSummaryFiles } from './files.ts'
import { renderJunit, type JunitCase } from './junit.ts'
import { writeHar, type HarSource } from './har.ts'
import { SUMMARY_SCHEMA_VERSION, tierUse, type Summary } from './summary.ts'

interface ReporterOptions {
  target: TargetConfig
  options: RunOptions
  runDir: string
  reportRoot: string
  root: string
  tool: { name: string; version: string }
  write?: (text: string) => void
  /** False for runs whose summary is read in memory (the fault runner): no files are written. */
  writeReports?: boolean
  /** Reads the main key's remaining credit in USD (harness/setup/credit.ts), before and after the run, to measure spend. */
  readCredit?: () => Promise<CreditReading>
  /** --baseline: the file, what it held (null when --update-baseline is about to create it), and whether to rewrite it. */
  baseline?: { file: string; baseline: Baseline | null; update: boolean }
  /** Why the run stopped calling the target before its end, if it did (harness/setup/run-stop.ts): the verdict is then error. */
  stopReason?: () => string | undefined
  /** How far the run is, added to each file's line (harness/report/progress.ts). */
  progress?: ProgressReporter
}

interface Collected {
  outcomes: Outcome[]
  junit: JunitCase[]
  exchanges: ExchangeExcerpt[]
  /** Every exchange with the test that made it, for exchanges.har (references to the excerpts above, no copies). */
  har: HarSource[]
  observations: Summary['observations']
  retries: Summary['retries']
  pacing: Summary['pacing']
  harnessErrors: string[]
  tests: Summary['tests']
  spend: Summary['spend']['items']
  /** Skips that met a route the target does not serve: the route's requirement fails once on the first of them. */
  absentRoutes: AbsentRoute[]
}

export class ConformanceReporter implements Reporter {
  readonly #o: ReporterOptions
  readonly #startedAt = new Date()
  readonly #write: (text: string) => void
  readonly #redactor: Redactor
  exitCode: number = EXIT.error
  summary: Summary | undefined
  /** With --update-baseline: the baseline the run judged itself with, for the command to write. */
  writtenBaseline: Baseline | undefined
  #creditBefore: CreditReading | null = null
  /** Why the run stopped calling the target, if it did. */
  #stopped: string | undefined

  constructor(options: ReporterOptions) {
    this.#o = options
    this.#write = options.write ?? ((text) => process.stdout.write(text))
    this.#redactor = new Redactor(options.target.keys)
  }

  #file(module: TestModule): string {
    return relative(this.#o.root, module.moduleId)
  }

  async onTestRunStart(): Promise<void> {
    if (this.#o.readCredit) this.#creditBefore = await this.#o.readCredit()
  }

  onTestModuleEnd(module: TestModule): void {
    let passed = 0,
      failed = 0,
      skipped = 0
    for (const test of module.children.allTests()) {
      const state = test.result().state
      if (state === 'passed') passed += 1
      else if (state === 'failed') failed += 1
      else skipped += 1
    }
    const mark = failed > 0 ? 'x' : 'v'
    const progress = this.#o.progress ? `  ${this.#o.progress.fileDone(module)}` : ''
    this.#write(
      `  ${mark} ${this.#file(module)}  ${passed} passed${failed ? `, ${failed} failed` : ''}${skipped ? `, ${skipped} skipped` : ''}${progress}\n`,
    )
  }

  async onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): Promise<void> {
    this.#stopped = this.#o.stopReason?.()
    const collected = this.#collect(modules, unhandledErrors)
    const creditAfter = this.#o.readCredit && this.#creditBefore?.usd != null ? await this.#o.readCredit() : null
    const before = this.#creditBefore?.usd ?? null
    const after = creditAfter?.usd ?? null
    // The credit reads are calls of the run too: in the HAR with the tests' calls.
    const creditCalls = [...(this.#creditBefore?.exchanges ?? []), ...(creditAfter?.exchanges ?? [])]
    if (creditCalls.length > 0)
      collected.har.push({
        test: "the run: the main key's credit before and after (measured spend)",
        file: '(run)',
        exchanges: creditCalls,
      })
    const aggregated = aggregate({
      requirements: requirements().values(),
      outcomes: collected.outcomes,
      selectedFamilies: this.#o.options.families,
      filtered: this.#o.options.grep !== null || this.#o.options.filters.length > 0,
      levels: this.#o.options.level ? [this.#o.options.level] : null,
      shard: this.#o.options.shard ?? null,
    })
    const settled = settleBaseline(aggregated, this.#o.baseline, targetName(this.#o.target), this.#o.target.asOf)
    const selected = this.#o.options.grep === null && this.#o.options.filters.length === 0 && !this.#o.options.level
    const results =
      this.#stopped === undefined
        ? settled.results
        : settled.results.map((r) => notBegun(r, this.#stopped as string, selected))
    this.writtenBaseline = settled.written
    const stopped = this.#stopped
    const verdict = stopped === undefined ? verdictOf(results, collected.harnessErrors.length) : 'error'
    this.exitCode = EXIT[verdict]
    const finishedAt = new Date()
    const families = countByFamily(results)
    const summary: Summary = {
      schemaVersion: SUMMARY_SCHEMA_VERSION,
      runId: this.#o.target.runId,
      // Name and version only: callers may hand over the whole package.json.
      tool: attribution(this.#o.root, { name: this.#o.tool.name, version: this.#o.tool.version }),
      startedAt: this.#startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - this.#startedAt.getTime(),
      target: { baseUrl: this.#o.target.baseUrl, embedded: this.#o.target.embedded },
      asOf: this.#o.target.asOf,
      tiers: tierUse(this.#o.target.keys, collected.exchanges),
      budgetUsd: this.#o.target.budgetUsd,
      selection: {
        families: this.#o.options.families,
        grep: this.#o.options.grep,
        filters: this.#o.options.filters,
        level: this.#o.options.level ?? null,
        shard: this.#o.options.shard ?? null,
      },
      baseline: settled.summary,
      verdict,
      exitCode: this.exitCode,
      scope: scopeOf(results, this.#o.options),
      totals: totals(results),
      families: Object.fromEntries(families),
      tests: collected.tests,
      requirements: results,
      uncheckedMust: uncheckedMustIds(results),
      fixFirst: fixFirst(results),
      observations: collected.observations,
      retries: collected.retries,
      pacing: collected.pacing,
      harnessErrors: collected.harnessErrors,
      ...(stopped === undefined ? {} : { stopped }),
      spend: {
        budgetUsd: this.#o.target.budgetUsd,
        estimatedUsd:
          Math.round(
            collected.spend.reduce((sum, item) => sum + (item.refused === undefined ? item.usd : 0), 0) * 1e6,
          ) / 1e6,
        measuredUsd: before !== null && after !== null ? Math.round((before - after) * 1e6) / 1e6 : null,
        items: collected.spend,
      },
    }
    this.summary = summary
    if (this.#o.writeReports !== false)
      this.#writeReports(summary, baselineJunit(collected.junit, results), collected.har)

    this.#write(`\n${endOfRun(summary)}\n`)
    if (this.#o.writeReports !== false)
      this.#write(
        `Reports: ${shownPath(this.#o.runDir)}/ (summary.md, summary.json, coverage.md, exchanges.har, junit.xml, allure-results/)\n`,
      )
  }

  #collect(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): Collected {
    const c: Collected = {
      outcomes: [],
      junit: [],
      exchanges: [],
      har: [],
      observations: [],
      retries: [],
      pacing: [],
      harnessErrors: [],
      tests: { total: 0, passed: 0, failed: 0, skipped: 0 },
      spend: [],
      absentRoutes: [],
    }
    for (const error of unhandledErrors) c.harnessErrors.push(`unhandled: ${errorLine(error)}`)
    for (const module of modules) {
      const file = this.#file(module)
      for (const error of module.errors()) c.harnessErrors.push(`${file}: ${errorLine(error)}`)
      for (const test of module.children.allTests()) this.#collectTest(test, file, c)
      // A file's afterAll calls (cleanup), which no test took (suites/setup.ts): in the HAR, not judged.
      const after = (module.meta() as ConformanceMeta).exchanges ?? []
      if (after.length > 0) c.har.push({ test: `${file} (after all tests)`, file, exchanges: after })
    }
    this.#auditUniqueness(c)
    this.#auditLedger(c)
    this.#auditRoutes(c)
    if (c.tests.passed + c.tests.failed === 0)
      c.harnessErrors.push(
        'no test ran: the selection (--grep, --family, file filters) matched nothing, or every test was skipped',
      )
    return c
  }

  #collectTest(test: TestCase, file: string, c: Collected): void {
    const meta = test.meta() as ConformanceMeta
    const result = test.result()
    c.tests.total += 1
    if (result.state === 'passed') c.tests.passed += 1
    else if (result.state === 'failed') c.tests.failed += 1
    else c.tests.skipped += 1
    const exchanges = meta.exchanges ?? []
    c.exchanges.push(...exchanges)
    const harSource: HarSource = {
      test: test.fullName,
      file,
      ...(meta.requirement === undefined ? {} : { requirement: meta.requirement }),
      exchanges,
    }
    c.har.push(harSource)
    for (const o of meta.observations ?? []) {
      // The same fact seen by several tests is one observation.
      if (!c.observations.some((seen) => seen.topic === o.topic && seen.detail === o.detail))
        c.observations.push({ test: test.fullName, ...o })
    }
    for (const item of meta.spend ?? []) c.spend.push({ test: test.fullName, ...item })
    for (const ex of exchanges) {
      if (ex.pacedMs !== undefined)
        c.pacing.push({ test: test.fullName, method: ex.method, path: ex.path, waitedMs: ex.pacedMs })
      if (ex.attempt > 1)
        c.retries.push({
          test: test.fullName,
          method: ex.method,
          path: ex.path,
          attempt: ex.attempt,
          ...(ex.status ? { status: ex.status } : {}),
        })
    }
    const requirementId = meta.requirement
    if (requirementId === undefined) {
      c.harnessErrors.push(`${file}: test "${test.fullName}" names no requirement; declare it with check()`)
      return
    }
    let status: OutcomeStatus
    let message: string | undefined
    if (result.state === 'passed') status = 'pass'
    else if (result.state === 'skipped' && this.#stopped !== undefined && result.note === NOT_BEGUN_NOTE) {
      // Not begun because the run stopped calling: not judged.
      status = 'error'
      message = `not run: ${this.#stopped}`
    } else if (result.state === 'skipped') {
      status = result.note ? 'skip' : 'unselected'
      message = result.note
    } else if (result.state === 'failed') {
      const error = result.errors[0]
      status = error !== undefined && FAILURE_NAMES.has(error.name ?? '') ? 'fail' : 'error'
      message = error === undefined ? 'failed' : status === 'fail' ? error.message : errorLine(error)
    } else {
      status = 'unselected'
    }
    // A failed test tried once more (harness/worker/rerun.ts): its evidence is the first try's; the note says what the second gave.
    const rerun = status === 'fail' ? test.meta().rerun : undefined
    if (rerun) message = `${message ?? ''}\n${rerunNote(rerun.result)}`
    const last = meta.failureExchange ?? exchanges[(rerun?.exchangesBefore ?? exchanges.length) - 1]
    harSource.outcome = status
    const needs = status === 'skip' ? skipNeeds(meta.cause, message) : undefined
    const { route, exchange: met, requirement: stated } = meta.cause ?? {}
    if (status === 'skip' && route !== undefined && met !== undefined && stated !== undefined)
      c.absentRoutes.push({ route, requirement: stated, exchange: met, test: test.fullName })
    c.outcomes.push({
      requirement: requirementId,
      status,
      test: test.fullName,
      file,
      source: 'test',
      ...(rerun ? { rerun: rerun.result } : {}),
      ...(needs === undefined ? {} : { needs }),
      ...(message ? { message: this.#redactor.text(message) } : {}),
      ...(status === 'fail' && last ? { exchange: last } : {}),
    })
    const level = requirements().get(requirementId)?.level ?? 'MUST'
    c.junit.push({
      name: test.fullName,
      file,
      requirement: requirementId,
      level,
      status,
      ...(message ? { message: this.#redactor.text(message) } : {}),
      durationMs: test.diagnostic()?.duration ?? 0,
    })
    this.#auditTest(test.fullName, file, exchanges, c)
  }

  /** One audit outcome per (test, audited requirement): the first failing exchange is the evidence. */
  #auditTest(testName: string, file: string, exchanges: ExchangeExcerpt[], c: Collected): void {
    const perRequirement = new Map<string, { failed?: { detail: string; ex: ExchangeExcerpt }; count: number }>()
    for (const ex of exchanges) {
      for (const finding of auditExchange(ex, this.#o.target.asOf)) {
        const entry = perRequirement.get(finding.requirement) ?? { count: 0 }
        entry.count += 1
        if (!finding.ok && entry.failed === undefined) entry.failed = { detail: finding.detail, ex }
        perRequirement.set(finding.requirement, entry)
      }
    }
    for (const [requirementId, entry] of perRequirement) {
      const failed = entry.failed
      c.outcomes.push({
        requirement: requirementId,
        status: failed ? 'fail' : 'pass',
        test: testName,
        file,
        source: 'audit',
        ...(failed
          ? { message: this.#auditMessage(requirementId, failed.detail, failed.ex), exchange: failed.ex }
          : {}),
      })
    }
  }

  #auditUniqueness(c: Collected): void {
    const withIds = c.exchanges.filter((ex) => ex.responseHeaders?.['svc-request-id'])
    if (withIds.length < 2) return
    const duplicates = duplicateIds(withIds)
    if (duplicates.size === 0) {
      c.outcomes.push({
        requirement: REQ.svcRequestIdUnique,
        status: 'pass',
        test: `all ${withIds.length} responses of the run`,
        file: 'audit',
        source: 'audit',
      })
      return
    }
    for (const [id, list] of [...duplicates].slice(0, 5)) {
      const calls = list
        .slice(0, 4)
        .map((ex) => `${ex.method} ${ex.path} -> ${ex.status}`)
        .join(', ')
      const first = list[0] as ExchangeExcerpt
      c.outcomes.push({
        requirement: REQ.svcRequestIdUnique,
        status: 'fail',
        test: `all ${withIds.length} responses of the run`,
        file: 'audit',
        source: 'audit',
        message: this.#auditMessage(
          REQ.svcRequestIdUnique,
          `svc-request-id ${id} was given to ${list.length} calls: ${calls}`,
          first,
        ),
        exchange: first,
      })
    }
  }

  /** A route the target does not serve fails the requirement that states it, once (harness/report/causes.ts). */
  #auditRoutes(c: Collected): void {
    c.outcomes.push(
      ...routeFailures(c.outcomes, c.absentRoutes, (absent, detail) =>
        this.#auditMessage(absent.requirement, detail, absent.exchange, 'routes the run met'),
      ),
    )
  }

  /** Every record seen more than once, and every echo, across the run's exchanges (harness/report/ledger.ts). */
  #auditLedger(c: Collected): void {
    const afterAll = c.har
      .filter((source) => source.file !== '(run)' && source.test.endsWith('(after all tests)'))
      .flatMap((source) => source.exchanges)
    for (const finding of ledgerFindings([...c.exchanges, ...afterAll])) {
      c.outcomes.push({
        requirement: finding.requirement,
        status: finding.ok ? 'pass' : 'fail',
        test: finding.ok ? `the record ledger of the run: ${finding.detail}` : 'the record ledger of the run',
        file: 'audit',
        source: 'audit',
        ...(finding.exchange
          ? {
              message: this.#auditMessage(
                finding.requirement,
                finding.detail,
                finding.exchange,
                'record ledger of the run',
              ),
              exchange: finding.exchange,
            }
          : {}),
      })
    }
  }

  #auditMessage(requirementId: string, detail: string, ex: ExchangeExcerpt, scope = 'audit of every response'): string {
    const req = requirements().get(requirementId)
    return [
      `${requirementId} · ${req?.level ?? ''} · Part ${req?.part ?? '?'} §${req?.section ?? '?'} (${scope})`,
      `Rule: ${req?.rule ?? ''}`,
      ...(req?.quote === undefined ? [] : [`Reference: "${req.quote}"`]),
      `Seen: ${detail}`,
      `Exchange: ${describeExchange(ex).join('\n')}`,
      `Reproduce: ${curlLine(ex)}`,
    ].join('\n')
  }

  #writeReports(summary: Summary, junit: JunitCase[], har: HarSource[]): void {
    // Defence in depth: whatever slipped past redaction at the source is redacted once more on the way out.
    const redact = (text: string): string => this.#redactor.text(text)
    writeSummaryFiles(this.#o.runDir, summary, redact)
    writeHar(join(this.#o.runDir, 'exchanges.har'), har, { creator: summary.tool }, redact)
    writeFileSync(
      join(this.#o.runDir, 'junit.xml'),
      redact(
        renderJunit(
          junit,
          summary.requirements.filter((r) => r.audit !== undefined),
          {
            ...attributionProperties(summary.tool, summary.asOf),
            verdict: summary.verdict,
            ...scopeProperties(summary),
          },
        ),
      ),
    )
    pointLatest(this.#o.reportRoot, this.#o.runDir)
  }
}

/**
 * In a run that stopped calling, a requirement whose tests never began was not judged: its file was cancelled before
 * it was collected, or after (its tests then look unselected, which they are not when no --grep or filter was given).
 */
function notBegun(result: RequirementResult, stopped: string, everySelected: boolean): RequirementResult {
  const cancelled =
    (result.status === 'skip' && result.reason === UNCHECKED_REASON) ||
    (everySelected && result.status === 'disabled' && result.reason === UNSELECTED_REASON)
  if (!cancelled) return result
  const message = `not run: ${stopped}`
  return { ...result, status: 'error', reason: message, evidence: [{ test: '(not begun)', source: 'test', message }] }
}

/**
 * The requirement a skipped test waits on: the one it named (as data, or in the words "needs <id>" of a skip
 * rethrown from another test's call), else, for a failed set-up call, the requirement that states the route it went to.
 */
function skipNeeds(cause: SkipCause | undefined, note: string | undefined): string | undefined {
  if (cause?.requirement !== undefined) return cause.requirement
  const named = /^needs (P\d-[\w.-]+?)[,:]/.exec(note ?? '')?.[1]
  if (named !== undefined) return named
  const ex = cause?.exchange
  return ex === undefined ? undefined : routeOf(ex.method, ex.path)?.requirement
}

/** The JUnit properties that say whether the verdict is one on the gateway or on a selection. */
function scopeProperties(summary: Summary): Record<string, string> {
  if (summary.scope === undefined) return {}
  return {
    scope: summary.scope.whole ? 'whole' : 'partial',
    'requirements.selected': String(summary.scope.selected),
    'requirements.total': String(summary.scope.total),
  }
}
