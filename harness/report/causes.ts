/**
 * Fix first: the run's causes, largest first. A cause is a requirement that failed (or warned, for a SHOULD); it
 * decides itself and every requirement left unjudged because of it: skipped naming it (a precondition, a route the
 * target does not serve, a failed set-up call on the route it states), directly or through another skip. Pure:
 * fed the aggregated results, by the reporter and by the merge of shards alike.
 */
import type { Level } from '../requirements.ts'
import type { ExchangeExcerpt } from '../exchange.ts'
import type { Outcome, RequirementResult } from './results.ts'

export interface FixFirst {
  /** The failing requirement. */
  cause: string
  level: Level
  status: 'fail' | 'warn'
  rule: string
  /** The call that shows it, where the failure has one. */
  exchange?: { method: string; path: string; status?: number }
  /** How many requirements of each level it decides: its own failure and every requirement unjudged because of it. */
  decides: { must: number; should: number }
  /** The requirements it leaves unjudged, beside its own. */
  requirements: string[]
}

const UNJUDGED = new Set<RequirementResult['status']>(['skip', 'not-observed'])

export function fixFirst(results: readonly RequirementResult[]): FixFirst[] {
  const byId = new Map(results.map((r) => [r.id, r]))
  const isCause = (r: RequirementResult | undefined): boolean => r?.status === 'fail' || r?.status === 'warn'
  // The failing requirement a result waits on, following skips that wait on skips; a loop or a pass ends nowhere.
  const causeOf = (r: RequirementResult, seen: Set<string>): string | undefined => {
    for (const id of r.needs ?? []) {
      const needed = byId.get(id)
      if (needed === undefined || seen.has(id)) continue
      if (isCause(needed)) return id
      if (UNJUDGED.has(needed.status)) {
        const deeper = causeOf(needed, new Set([...seen, id]))
        if (deeper !== undefined) return deeper
      }
    }
    return undefined
  }
  const decided = new Map<string, string[]>()
  for (const r of results) {
    if (!UNJUDGED.has(r.status)) continue
    const cause = causeOf(r, new Set([r.id]))
    if (cause !== undefined) decided.set(cause, [...(decided.get(cause) ?? []), r.id])
  }
  const entries = results.filter(isCause).map((r): FixFirst => {
    const ids = decided.get(r.id) ?? []
    const levels = [r.level, ...ids.map((id) => byId.get(id)?.level)]
    const ex = r.evidence.find((e) => e.exchange !== undefined)?.exchange
    return {
      cause: r.id,
      level: r.level,
      status: r.status as 'fail' | 'warn',
      rule: r.rule,
      ...(ex === undefined
        ? {}
        : {
            exchange: { method: ex.method, path: ex.path, ...(ex.status === undefined ? {} : { status: ex.status }) },
          }),
      decides: {
        must: levels.filter((l) => l === 'MUST').length,
        should: levels.filter((l) => l === 'SHOULD').length,
      },
      requirements: ids,
    }
  })
  return entries.sort(
    (a, b) =>
      b.decides.must - a.decides.must ||
      b.decides.should - a.decides.should ||
      (a.level === b.level ? 0 : a.level === 'MUST' ? -1 : 1) ||
      a.cause.localeCompare(b.cause),
  )
}

/** A skip that met a route the target does not serve (harness/worker/assert.ts skipIfRouteAbsent). */
export interface AbsentRoute {
  route: string
  /** The requirement whose words state the route. */
  requirement: string
  exchange: ExchangeExcerpt
  /** The test that met it. */
  test: string
}

/**
 * The failures that missing routes earn: the requirement that states a route fails once, on the first call that met
 * it, unless one of its own tests already failed (it said so itself) or passed (it saw the route served: the skips
 * then wait on a requirement that holds, and Fix first counts none of them).
 */
export function routeFailures(
  outcomes: readonly Outcome[],
  absent: readonly AbsentRoute[],
  message: (absent: AbsentRoute, detail: string) => string,
): Outcome[] {
  const judged = new Set(
    outcomes
      .filter((o) => o.source === 'test' && (o.status === 'fail' || o.status === 'pass'))
      .map((o) => o.requirement),
  )
  const failures: Outcome[] = []
  for (const a of absent) {
    if (judged.has(a.requirement)) continue
    judged.add(a.requirement)
    const detail = `the target does not serve ${a.route}: ${a.exchange.method} ${a.exchange.path} answered ${a.exchange.status} (met by "${a.test}")`
    failures.push({
      requirement: a.requirement,
      status: 'fail',
      test: 'the routes the run met',
      file: 'audit',
      source: 'audit',
      message: message(a, detail),
      exchange: a.exchange,
    })
  }
  return failures
}

/** "POST /v1/audio/speech -> 404" for a cause's exchange. */
export function exchangeLine(entry: FixFirst): string {
  const ex = entry.exchange
  return ex === undefined ? '(no exchange)' : `${ex.method} ${ex.path} -> ${ex.status ?? 'no response'}`
}

/** The Fix first lines of the console and of summary.md: one per cause, largest first. */
export function fixFirstLines(entries: readonly FixFirst[]): string[] {
  return entries.map((e) => {
    const more = e.requirements.length === 0 ? '' : ` (+${e.requirements.length} unjudged because of it)`
    return `${e.cause} (${e.level}, ${e.status}): decides ${e.decides.must} MUST, ${e.decides.should} SHOULD${more}; ${exchangeLine(e)}`
  })
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * The Fix first section of the HTML report: a plain block above the Allure app, so that the page opens with the
 * causes whatever the app then shows. Empty when nothing failed.
 */
export function fixFirstHtml(entries: readonly FixFirst[]): string {
  if (entries.length === 0) return ''
  const rows = entries.map((e) => {
    const unjudged = e.requirements.length === 0 ? '-' : e.requirements.join(', ')
    return `<tr><td><b>${escapeHtml(e.cause)}</b> (${e.level}${e.status === 'warn' ? ', warn' : ''})<br>${escapeHtml(e.rule)}</td><td><code>${escapeHtml(exchangeLine(e))}</code></td><td>${e.decides.must}</td><td>${e.decides.should}</td><td>${escapeHtml(unjudged)}</td></tr>`
  })
  return [
    '<section id="gc-fix-first" style="font:14px/1.4 system-ui,sans-serif;padding:12px 16px;border-bottom:2px solid #c33;background:#fff8f8;color:#222;max-height:40vh;overflow:auto">',
    '<h2 style="margin:0 0 4px;font-size:18px">Fix first</h2>',
    '<p style="margin:0 0 8px">Each failure once, with the requirements it decides: its own and every one skipped or not judged because of it.</p>',
    '<table style="border-collapse:collapse" cellpadding="4" border="1"><tr><th>cause</th><th>the call that shows it</th><th>decides MUST</th><th>decides SHOULD</th><th>unjudged because of it</th></tr>',
    ...rows,
    '</table></section>',
  ].join('\n')
}

/** The HTML report with Fix first placed first in its body. */
export function withFixFirst(html: string, entries: readonly FixFirst[]): string {
  const section = fixFirstHtml(entries)
  if (section === '') return html
  return html.replace(/<body[^>]*>/i, (body) => `${body}\n${section}`)
}
