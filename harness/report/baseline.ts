/**
 * Baselines for vendors (`--baseline FILE`): the requirements known to fail on one target, each with a reason.
 * A listed requirement that fails is a known failure: reported, but it does not fail the run. A listed
 * requirement that passes is stale and fails the run, so that the file cannot rot. One that this selection did not
 * judge (another family, a skip, a shard) is neither: "not run".
 *
 * The file is JSON: { "$schema"?, "target"?, "entries": [{ "id", "reason" }] }. `target` ("embedded" or a host
 * root) ties the file to the target it was written for. `--update-baseline` writes it from a run.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { ConfigError } from '../errors.ts'
import type { JunitCase } from './junit.ts'
import type { BaselineMark, RequirementResult, Status } from './results.ts'
import { isObject } from '../../common/json.ts'

interface BaselineEntry {
  id: string
  reason: string
}

export interface Baseline {
  target?: string
  entries: BaselineEntry[]
}

/** What summary.json says of the baseline a run was judged with. */
export interface BaselineSummary {
  file: string
  target: string | null
  entries: BaselineEntry[]
  known: string[]
  stale: string[]
  notRun: string[]
  /** With --update-baseline: what the run changed in the file (the run is judged with the file it wrote). */
  updated?: { added: string[]; removed: string[] }
}

const TOP_KEYS = ['$schema', 'target', 'entries']
const ENTRY_KEYS = ['id', 'reason']
const MAX_REASON = 300 // a generated reason: the first line of what was seen, enough to recognise the failure

/** The name a baseline gives a target: an embedded gateway has a new port each run, so it is one name. */
export function targetName(target: { baseUrl: string; embedded: boolean }): string {
  return target.embedded ? 'embedded' : target.baseUrl
}

/** Validates a baseline's text; every problem is one ConfigError line naming the file and the place. */
export function parseBaseline(text: string, file: string, isRequirement: (id: string) => boolean): Baseline {
  const fail = (what: string): never => {
    throw new ConfigError(`baseline ${file}: ${what}`)
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    fail(`not JSON (${(error as Error).message.split('\n')[0]})`)
  }
  if (!isObject(raw) || !Array.isArray(raw.entries))
    fail('must be an object with "entries": [{ "id": ..., "reason": ... }]')
  const top = raw as Record<string, unknown>
  const extra = Object.keys(top).find((k) => !TOP_KEYS.includes(k))
  if (extra !== undefined) fail(`unknown property "${extra}" (allowed: ${TOP_KEYS.join(', ')})`)
  if (top.target !== undefined && (typeof top.target !== 'string' || top.target.trim() === ''))
    fail('"target" must be a non-empty string: "embedded" or the host root it was written for')
  const seen = new Map<string, number>()
  const entries = (top.entries as unknown[]).map((entry, i): BaselineEntry => {
    const where = `entries[${i}]`
    if (!isObject(entry)) return fail(`${where} must be an object { "id": ..., "reason": ... }`)
    const unknownKey = Object.keys(entry).find((k) => !ENTRY_KEYS.includes(k))
    if (unknownKey !== undefined)
      fail(`${where} has unknown property "${unknownKey}" (allowed: ${ENTRY_KEYS.join(', ')})`)
    if (typeof entry.id !== 'string' || entry.id === '') fail(`${where}.id must be a requirement id`)
    const id = entry.id as string
    if (!isRequirement(id)) fail(`${where}.id "${id}" is not a requirement in schemas/requirements.json`)
    if (typeof entry.reason !== 'string' || entry.reason.trim() === '')
      fail(`${where}.reason must say why ${id} fails on this target`)
    const before = seen.get(id)
    if (before !== undefined) fail(`${id} is listed twice (entries[${before}] and ${where})`)
    seen.set(id, i)
    return { id, reason: (entry.reason as string).trim() }
  })
  return { ...(typeof top.target === 'string' ? { target: top.target.trim() } : {}), entries }
}

/** Reads a baseline file. A missing file is an error unless the run is about to write it (`mayBeMissing`). */
export function readBaseline(
  file: string,
  isRequirement: (id: string) => boolean,
  mayBeMissing: boolean,
): Baseline | null {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && mayBeMissing) return null
    if (code === 'ENOENT') throw new ConfigError(`baseline ${file} does not exist; write one with --update-baseline`)
    throw new ConfigError(`cannot read baseline ${file}: ${(error as Error).message}`)
  }
  return parseBaseline(text, file, isRequirement)
}

/** A baseline written for another target is refused: its known failures say nothing about this one. */
export function checkBaselineTarget(baseline: Baseline | null, file: string, target: string): void {
  if (baseline?.target === undefined || baseline.target === target) return
  throw new ConfigError(
    `baseline ${file} is for target ${baseline.target}, not ${target}; drop its "target" to use it here`,
  )
}

/** The status a requirement had before a baseline judged it. */
export function rawStatus(r: RequirementResult): Status {
  return r.status === 'known' ? (r.baseline?.was ?? 'fail') : r.status
}

/** Marks what the baseline lists: fail and warn become known, a pass makes the entry stale, the rest is not run. */
export function judgeBaseline(results: readonly RequirementResult[], baseline: Baseline | null): RequirementResult[] {
  const reasons = new Map((baseline?.entries ?? []).map((e) => [e.id, e.reason]))
  return results.map((r) => {
    const { baseline: _previous, ...plain } = r
    const status = rawStatus(r)
    const reason = reasons.get(r.id)
    if (reason === undefined) return { ...plain, status }
    let mark: BaselineMark
    if (status === 'fail' || status === 'warn') mark = { state: 'known', reason, was: status }
    else if (status === 'pass') mark = { state: 'stale', reason }
    else mark = { state: 'not-run', reason }
    return { ...plain, status: mark.state === 'known' ? 'known' : status, baseline: mark }
  })
}

export function summarizeBaseline(
  results: readonly RequirementResult[],
  file: string,
  baseline: Baseline,
): BaselineSummary {
  const ids = (state: BaselineMark['state']): string[] =>
    results.filter((r) => r.baseline?.state === state).map((r) => r.id)
  return {
    file,
    target: baseline.target ?? null,
    entries: baseline.entries,
    known: ids('known'),
    stale: ids('stale'),
    notRun: ids('not-run'),
  }
}

function firstSeen(r: RequirementResult): string {
  const message = r.evidence[0]?.message ?? ''
  const line = message.split('\n').find((l) => l.startsWith('Seen:')) ?? message.split('\n')[0] ?? ''
  return line.replace(/^Seen:\s*/, '').slice(0, MAX_REASON)
}

/**
 * The baseline a run asks for with --update-baseline: every MUST that failed (with the reason the file gave it, or
 * what was seen), the file's entries that still fail or warn or that this run did not judge; entries that pass
 * now are dropped. SHOULD warnings are not added: they do not fail a run, so they need no entry.
 */
export function updateBaseline(
  results: readonly RequirementResult[],
  previous: Baseline | null,
  target: string,
  asOf: string,
): { baseline: Baseline; added: string[]; removed: string[] } {
  const before = new Map((previous?.entries ?? []).map((e) => [e.id, e.reason]))
  const entries: BaselineEntry[] = []
  const added: string[] = []
  const removed: string[] = []
  for (const r of results) {
    const status = rawStatus(r)
    const reason = before.get(r.id)
    if (reason !== undefined) {
      if (status === 'pass') removed.push(r.id)
      else entries.push({ id: r.id, reason })
    } else if (status === 'fail') {
      entries.push({ id: r.id, reason: `${r.flaky ? 'flaky, ' : ''}failing as of ${asOf}: ${firstSeen(r) || r.rule}` })
      added.push(r.id)
    }
  }
  const known = new Set(results.map((r) => r.id))
  // Entries of requirements the catalogue no longer has cannot be judged; keeping them would hide that.
  for (const id of before.keys()) if (!known.has(id)) removed.push(id)
  return { baseline: { target: previous?.target ?? target, entries }, added, removed }
}

export function renderBaseline(baseline: Baseline): string {
  const entries = [...baseline.entries].sort((a, b) => a.id.localeCompare(b.id))
  return `${JSON.stringify({ ...(baseline.target === undefined ? {} : { target: baseline.target }), entries }, null, 2)}\n`
}

export function writeBaseline(file: string, baseline: Baseline): void {
  writeFileSync(file, renderBaseline(baseline))
}

/**
 * Judges a run's results with its baseline (or, with --update-baseline, with the file that the run writes), and
 * says what to report. `baseline` is null when the run has none.
 */
export function settleBaseline(
  results: readonly RequirementResult[],
  run: { file: string; baseline: Baseline | null; update: boolean } | undefined,
  target: string,
  asOf: string,
): { results: RequirementResult[]; summary: BaselineSummary | null; written?: Baseline } {
  if (run === undefined) return { results: [...results], summary: null }
  if (!run.update) {
    const judged = judgeBaseline(results, run.baseline)
    return { results: judged, summary: summarizeBaseline(judged, run.file, run.baseline ?? { entries: [] }) }
  }
  const next = updateBaseline(results, run.baseline, target, asOf)
  const judged = judgeBaseline(results, next.baseline)
  return {
    results: judged,
    summary: {
      ...summarizeBaseline(judged, run.file, next.baseline),
      updated: { added: next.added, removed: next.removed },
    },
    written: next.baseline,
  }
}

/** JUnit for a baselined run: a known failure is a skipped testcase that says so, not a red one. */
export function baselineJunit(cases: JunitCase[], results: readonly RequirementResult[]): JunitCase[] {
  const known = new Map(results.filter((r) => r.status === 'known').map((r) => [r.id, r.baseline?.reason ?? '']))
  return cases.map((c) => {
    const reason = known.get(c.requirement)
    if (reason === undefined || c.status !== 'fail') return c
    // One line: JUnit shows a skip's message as its reason; the full failure is in summary.json.
    const seen = (c.message ?? '').split('\n').find((l) => l.startsWith('Seen:'))
    return {
      ...c,
      status: 'skip',
      message: `known failure (baseline): ${reason}${seen ? ` (${seen.slice(0, MAX_REASON)})` : ''}`,
    }
  })
}

/** What the console prints after the failures; empty without a baseline. */
export function baselineConsole(
  summary: BaselineSummary | null | undefined,
  results: readonly RequirementResult[],
): string {
  if (!summary) return ''
  const out = [
    `Baseline ${summary.file}: ${summary.known.length} known failures, ${summary.stale.length} stale, ${summary.notRun.length} not run`,
  ]
  if (summary.updated)
    out.push(
      `  written: ${summary.updated.added.length} added${list(summary.updated.added)}, ${summary.updated.removed.length} removed${list(summary.updated.removed)}`,
    )
  const byId = new Map(results.map((r) => [r.id, r]))
  for (const id of summary.known)
    out.push(
      `  KNOWN ${id}${byId.get(id)?.flaky ? ' (flaky)' : ''}: known failure (baseline): ${byId.get(id)?.baseline?.reason ?? ''}`,
    )
  for (const id of summary.stale)
    out.push(`  STALE ${id}: passes now; remove it from the baseline (or run with --update-baseline)`)
  return out.join('\n')
}

function list(ids: string[]): string {
  return ids.length === 0 ? '' : ` (${ids.join(', ')})`
}

/** One line for summary.md's head: the file and what its entries came to. */
export function baselineLine(summary: BaselineSummary): string {
  const written = summary.updated
    ? `; written by this run (added ${summary.updated.added.join(', ') || 'none'}, removed ${summary.updated.removed.join(', ') || 'none'})`
    : ''
  const notRun = summary.notRun.length > 0 ? ` (${summary.notRun.join(', ')})` : ''
  return `baseline: ${summary.file}, ${summary.entries.length} entries: ${summary.known.length} known failures, ${summary.stale.length} stale, ${summary.notRun.length} not run${notRun}${written}`
}
