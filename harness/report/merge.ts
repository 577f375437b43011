/**
 * `npm run conformance -- merge <dirs...>`: one report from the reports of shards (--shard i/n) or of runs split
 * by family. Per requirement, the shards' results combine as one run's tests would: fail beats warn beats error
 * beats pass beats skip beats disabled; counts are summed. The baseline the shards ran with is judged again on the
 * merged results (an entry one shard did not run may be stale in another). Reports of different targets, as-of
 * dates, catalogues or baselines are refused, and so are incomplete or repeated shard sets.
 */
import { scopeOf } from './scope.ts'
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { judgeBaseline, summarizeBaseline, targetName, rawStatus, type Baseline } from './baseline.ts'
import { ConfigError } from '../errors.ts'
import {
  countByFamily,
  EXIT,
  MAX_EVIDENCE,
  SHARD_REASON,
  totals,
  UNCHECKED_REASON,
  uncheckedMustIds,
  verdictOf,
  type RequirementResult,
  type Status,
} from './results.ts'
import { writeSummaryFiles } from './files.ts'
import { SUMMARY_SCHEMA_VERSION, type Summary } from './summary.ts'
import { fixFirst } from './causes.ts'

export interface MergeInput {
  dir: string
  summary: Summary
}

type Shard = { index: number; count: number }

// A skip in one shard outranks not-observed in another: the run could not judge what one shard needed.
const RANK: Record<Exclude<Status, 'known'>, number> = {
  fail: 7,
  warn: 6,
  error: 5,
  pass: 4,
  skip: 3,
  'not-observed': 2,
  disabled: 1,
}

function label(input: MergeInput): string {
  const shard = input.summary.selection.shard
  return shard ? `shard ${shard.index}/${shard.count} (${input.dir})` : input.dir
}

/** Refuses what cannot be one report; every reason is one line. */
export function checkMergeable(inputs: readonly MergeInput[]): void {
  if (inputs.length === 0)
    throw new ConfigError('merge needs at least one report folder: npm run conformance -- merge <dir> [<dir>...]')
  const first = inputs[0] as MergeInput
  const differ = (what: string, value: (s: Summary) => string): void => {
    const other = inputs.find((i) => value(i.summary) !== value(first.summary))
    if (other)
      throw new ConfigError(
        `cannot merge runs with different ${what}: ${value(first.summary)} (${first.dir}) and ${value(other.summary)} (${other.dir})`,
      )
  }
  differ('summary versions', (s) => String(s.schemaVersion))
  if (first.summary.schemaVersion !== SUMMARY_SCHEMA_VERSION)
    throw new ConfigError(
      `${first.dir}: summary version ${first.summary.schemaVersion}, this tool reads ${SUMMARY_SCHEMA_VERSION}`,
    )
  differ('targets', (s) => targetName(s.target))
  differ('as-of dates', (s) => s.asOf)
  differ('requirement catalogues', (s) =>
    s.requirements
      .map((r) => r.id)
      .sort()
      .join(','),
  )
  differ('baselines', (s) => JSON.stringify([...(s.baseline?.entries ?? [])].sort((a, b) => a.id.localeCompare(b.id))))
  const runIds = new Map<string, string>()
  for (const i of inputs) {
    const seen = runIds.get(i.summary.runId)
    if (seen !== undefined) throw new ConfigError(`run ${i.summary.runId} is given twice (${seen} and ${i.dir})`)
    runIds.set(i.summary.runId, i.dir)
  }
  // Whole runs may join one complete set of shards (say, the tiers family run in a job of its own).
  const sharded = inputs.filter((i) => i.summary.selection.shard)
  const firstShard = sharded[0]
  if (firstShard === undefined) return
  const other = sharded.find((i) => i.summary.selection.shard?.count !== firstShard.summary.selection.shard?.count)
  if (other)
    throw new ConfigError(`cannot merge runs with different shard counts: ${label(firstShard)} and ${label(other)}`)
  const count = (firstShard.summary.selection.shard as Shard).count
  const byIndex = new Map<number, string>()
  for (const i of sharded) {
    const index = (i.summary.selection.shard as Shard).index
    const seen = byIndex.get(index)
    if (seen !== undefined) throw new ConfigError(`shard ${index}/${count} is given twice (${seen} and ${i.dir})`)
    byIndex.set(index, i.dir)
  }
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !byIndex.has(k))
  if (missing.length > 0)
    throw new ConfigError(
      `shard${missing.length > 1 ? 's' : ''} ${missing.map((k) => `${k}/${count}`).join(', ')} missing: merge every shard of the run`,
    )
}

/** One requirement from its result in each run (baseline marks removed: the merge judges the baseline again). */
export function mergeRequirement(parts: readonly RequirementResult[]): RequirementResult {
  const base = parts[0] as RequirementResult
  const statuses = parts.map((p) => rawStatus(p) as Exclude<Status, 'known'>)
  const status = statuses.reduce((a, b) => (RANK[b] > RANK[a] ? b : a))
  const { baseline: _mark, partial: _partial, reason: _reason, flaky: _flaky, ...plain } = base
  const merged: RequirementResult = { ...plain, status, tests: parts.flatMap((p) => p.tests), evidence: [] }
  const audits = parts.filter((p) => p.audit !== undefined)
  if (audits.length > 0)
    merged.audit = {
      checked: audits.reduce((n, p) => n + (p.audit?.checked ?? 0), 0),
      failed: audits.reduce((n, p) => n + (p.audit?.failed ?? 0), 0),
    }
  const same = parts.filter((_, k) => statuses[k] === status)
  const needs = [...new Set(parts.flatMap((p) => p.needs ?? []))]
  if (needs.length > 0) merged.needs = needs
  else delete merged.needs
  merged.evidence = same.flatMap((p) => p.evidence).slice(0, MAX_EVIDENCE)
  const reasons = (list: readonly RequirementResult[]): string =>
    [...new Set(list.map((p) => p.reason).filter((r): r is string => r !== undefined && r !== ''))].join('; ')
  if ((status === 'fail' || status === 'warn') && same.every((p) => p.flaky === true)) merged.flaky = true
  if (status === 'pass') {
    const skipped = parts.filter((p, k) => statuses[k] === 'skip' || p.partial === true)
    if (skipped.length > 0) {
      merged.partial = true
      merged.reason = reasons(skipped)
    }
  } else if (status === 'skip') {
    merged.reason = reasons(same)
  } else if (status === 'disabled') {
    // Every run left it out. A shard says so only because another shard may have it: if none had it, no test checks it.
    const real = parts.filter((p) => !(p.reason ?? '').startsWith(SHARD_REASON))
    if (real.length > 0) merged.reason = reasons(real)
    else {
      merged.status = 'skip'
      merged.reason = UNCHECKED_REASON
    }
  }
  return merged
}

function union<T>(lists: ReadonlyArray<readonly T[] | null>): T[] | null {
  if (lists.some((l) => l === null)) return null
  return [...new Set(lists.flatMap((l) => l ?? []))]
}

function overlapping(summaries: readonly Summary[]): boolean {
  const spans = summaries
    .map((s) => [Date.parse(s.startedAt), Date.parse(s.finishedAt)] as const)
    .sort((a, b) => a[0] - b[0])
  return spans.some((span, k) => k > 0 && span[0] < (spans[k - 1] as readonly [number, number])[1])
}

/** The merged summary. Pure: `runId` and the inputs are all it reads. */
export function mergeSummaries(inputs: readonly MergeInput[], runId: string): Summary {
  checkMergeable(inputs)
  const summaries = inputs.map((i) => i.summary)
  const first = summaries[0] as Summary
  const byId = new Map<string, RequirementResult[]>()
  for (const s of summaries) for (const r of s.requirements) byId.set(r.id, [...(byId.get(r.id) ?? []), r])
  const baselineEntries = first.baseline?.entries
  const baseline: Baseline | null = first.baseline
    ? { ...(first.baseline.target ? { target: first.baseline.target } : {}), entries: baselineEntries ?? [] }
    : null
  const results = judgeBaseline([...byId.values()].map(mergeRequirement), baseline)
  const harnessErrors = inputs.flatMap((i) => i.summary.harnessErrors.map((e) => `${label(i)}: ${e}`))
  // A shard that stopped calling (harness/setup/run-stop.ts) leaves the merged report partial too.
  const stopped = inputs
    .filter((i) => i.summary.stopped !== undefined)
    .map((i) => `${label(i)}: ${i.summary.stopped}`)
    .join('; ')
  const verdict = stopped === '' ? verdictOf(results, harnessErrors.length) : 'error'
  const startedAt = Math.min(...summaries.map((s) => Date.parse(s.startedAt)))
  const finishedAt = Math.max(...summaries.map((s) => Date.parse(s.finishedAt)))
  const observations: Summary['observations'] = []
  for (const o of summaries.flatMap((s) => s.observations))
    if (!observations.some((seen) => seen.topic === o.topic && seen.detail === o.detail)) observations.push(o)
  const sum = (pick: (s: Summary) => number): number => summaries.reduce((n, s) => n + pick(s), 0)
  const measured = summaries.map((s) => s.spend.measuredUsd)
  const greps = [...new Set(summaries.map((s) => s.selection.grep).filter((g): g is string => g !== null))]
  // The shards of one run make a whole: a merge is a selection only where its runs narrowed by more than a shard.
  const selection: Summary['selection'] = {
    families: union(summaries.map((s) => s.selection.families)),
    grep: greps.length === 0 ? null : greps.join('|'),
    filters: union(summaries.map((s) => s.selection.filters)) ?? [],
    level: summaries.every((s) => s.selection.level === 'MUST') ? 'MUST' : null,
    shard: null,
  }
  return {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    runId,
    tool: first.tool,
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: new Date(finishedAt).toISOString(),
    durationMs: finishedAt - startedAt,
    target: first.target,
    asOf: first.asOf,
    tiers: first.tiers.map((t) => {
      const same = summaries.map((s) => s.tiers.find((u) => u.tier === t.tier))
      return {
        tier: t.tier,
        keyGiven: same.some((u) => u?.keyGiven === true),
        calls: same.reduce((n, u) => n + (u?.calls ?? 0), 0),
      }
    }),
    budgetUsd: first.budgetUsd,
    selection,
    baseline: baseline && first.baseline ? summarizeBaseline(results, first.baseline.file, baseline) : null,
    mergedFrom: inputs.map((i) => ({ runId: i.summary.runId, dir: i.dir, shard: i.summary.selection.shard ?? null })),
    verdict,
    exitCode: EXIT[verdict],
    scope: scopeOf(results, selection),
    totals: totals(results),
    families: Object.fromEntries(countByFamily(results)),
    tests: {
      total: sum((s) => s.tests.total),
      passed: sum((s) => s.tests.passed),
      failed: sum((s) => s.tests.failed),
      skipped: sum((s) => s.tests.skipped),
    },
    requirements: results,
    uncheckedMust: uncheckedMustIds(results),
    fixFirst: fixFirst(results),
    observations,
    retries: summaries.flatMap((s) => s.retries),
    pacing: summaries.flatMap((s) => s.pacing),
    harnessErrors,
    ...(stopped === '' ? {} : { stopped }),
    spend: {
      budgetUsd: first.spend.budgetUsd,
      estimatedUsd: Math.round(sum((s) => s.spend.estimatedUsd) * 1e6) / 1e6,
      // Runs that overlapped in time read the same credit: each one's before-minus-after holds the others' spend too.
      measuredUsd:
        measured.some((m) => m === null) || overlapping(summaries)
          ? null
          : Math.round(measured.reduce((n: number, m) => n + (m ?? 0), 0) * 1e6) / 1e6,
      items: summaries.flatMap((s) => s.spend.items),
    },
  }
}

const OPEN = /<testsuites\b([^>]*)>/

function attribute(tag: string, name: string): number {
  return Number(new RegExp(`\\b${name}="(\\d+)"`).exec(tag)?.[1] ?? 0)
}

/** junit.xml of the merge: every run's testsuites one after another, the totals summed. */
export function mergeJunit(xmls: readonly string[]): string {
  let tests = 0,
    failures = 0,
    errors = 0
  const suites: string[] = []
  for (const xml of xmls) {
    const open = OPEN.exec(xml)
    const end = xml.lastIndexOf('</testsuites>')
    if (open === null || end < 0) continue
    tests += attribute(open[1] ?? '', 'tests')
    failures += attribute(open[1] ?? '', 'failures')
    errors += attribute(open[1] ?? '', 'errors')
    const inner = xml.slice(open.index + open[0].length, end).replace(/^\n+|\n+$/g, '')
    if (inner !== '') suites.push(inner)
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="gateway-conformance" tests="${tests}" failures="${failures}" errors="${errors}">\n${suites.join('\n')}\n</testsuites>\n`
}

/**
 * exchanges.har of the merge in pieces: the runs' entries one after another (each run already capped its own) under
 * the first run's log head. One run's HAR is read and parsed at a time, so a merge holds one run's HAR, not all.
 */
export function* mergeHarChunks(runs: ReadonlyArray<() => string>): Generator<string> {
  let count = 0
  const pages: unknown[] = []
  for (const [k, read] of runs.entries()) {
    const {
      entries,
      pages: runPages,
      comment: _comment,
      ...head
    } = (JSON.parse(read()) as { log: { entries?: unknown[]; pages?: unknown[] } & Record<string, unknown> }).log
    if (k === 0) yield `{"log":${JSON.stringify(head).slice(0, -1)},"entries":[\n`
    for (const entry of entries ?? []) yield `${count++ === 0 ? '' : ',\n'}${JSON.stringify(entry)}`
    pages.push(...(runPages ?? []))
  }
  if (runs.length === 0) return
  yield `\n]${pages.length > 0 ? `,"pages":${JSON.stringify(pages)}` : ''},"comment":${JSON.stringify(`${count} exchanges merged from ${runs.length} runs`)}}}\n`
}

/** Reads a run's summary.json; a folder that is not a run's report is one clear line. */
function readRun(dir: string): MergeInput {
  const file = join(dir, 'summary.json')
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    throw new ConfigError(`${dir}: no summary.json (give a run's report folder, e.g. reports/<run-id>)`)
  }
  let summary: Summary
  try {
    summary = JSON.parse(text) as Summary
  } catch (error) {
    throw new ConfigError(`${file} is not JSON (${(error as Error).message})`)
  }
  if (
    typeof summary !== 'object' ||
    summary === null ||
    !Array.isArray(summary.requirements) ||
    typeof summary.runId !== 'string'
  ) {
    throw new ConfigError(`${file} is not a conformance summary`)
  }
  return { dir, summary }
}

/** Copies every run's allure-results into the merge's; a name that two runs share keeps both. */
function copyAllure(dirs: readonly string[], into: string): number {
  let copied = 0
  mkdirSync(into, { recursive: true })
  dirs.forEach((dir, k) => {
    const from = join(dir, 'allure-results')
    if (!existsSync(from)) return
    for (const name of readdirSync(from)) {
      const target = existsSync(join(into, name)) ? join(into, `${k + 1}-${name}`) : join(into, name)
      copyFileSync(join(from, name), target)
      copied += 1
    }
  })
  return copied
}

/**
 * Merges the runs in `dirs` into `runDir`: summary.json, summary.md, coverage.md, junit.xml, allure-results/ and,
 * where the runs wrote them, exchanges.har.
 */
export function mergeRuns(
  dirs: readonly string[],
  runDir: string,
  runId: string,
): { summary: Summary; allureFiles: number } {
  const inputs = dirs.map(readRun)
  const summary = mergeSummaries(inputs, runId)
  writeSummaryFiles(runDir, summary)
  const junits = dirs
    .map((d) => join(d, 'junit.xml'))
    .filter(existsSync)
    .map((f) => readFileSync(f, 'utf8'))
  writeFileSync(join(runDir, 'junit.xml'), mergeJunit(junits))
  const hars = dirs.map((d) => join(d, 'exchanges.har')).filter(existsSync)
  if (hars.length > 0) {
    const fd = openSync(join(runDir, 'exchanges.har'), 'w')
    try {
      for (const chunk of mergeHarChunks(hars.map((f) => () => readFileSync(f, 'utf8')))) writeSync(fd, chunk)
    } finally {
      closeSync(fd)
    }
  }
  const allureFiles = copyAllure(dirs, join(runDir, 'allure-results'))
  return { summary, allureFiles }
}

/** One line per merged run, for the console. */
export function describeInputs(summary: Summary): string {
  return (summary.mergedFrom ?? [])
    .map((m) => `  ${m.shard ? `shard ${m.shard.index}/${m.shard.count}` : 'run'} ${m.runId} (${m.dir})`)
    .join('\n')
}
