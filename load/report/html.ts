/**
 * report.html: one self-contained page per run (inline CSS, charts as inline SVG, no request to anywhere), so
 * that it opens from a CI artifact or a mail attachment. Its Content-Security-Policy forbids every fetch, which
 * makes a stray external reference fail visibly in the browser test rather than work by luck on a networked machine.
 */
import type { CapacityResult, HistogramSummary, LoadResult, PhaseResult } from '../types.ts'
import { goodputOf } from '../verdicts.ts'
import { capacityChart, phaseCharts, type Chart } from './charts.ts'
import {
  arrivalLine,
  capacityLines,
  countsLine,
  goodputLine,
  mixLine,
  ms,
  objectivesLine,
  OUTCOME_LINE,
  phaseOffset,
  rateLine,
  runDurationMs,
  seconds,
  shardLine,
  STEP_HEAD,
  stepRow,
} from './lines.ts'
import { PAGE_CHECK_SCRIPT } from './page-check.ts'
import { SPREAD_HEAD, spreadRows } from './spread.ts'

const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; color: #222; margin: 0 auto; padding: 16px 24px 48px; max-width: 1500px; }
h1 { font-size: 22px; margin: 8px 0; }
h2 { font-size: 18px; margin: 32px 0 4px; border-top: 1px solid #ccc; padding-top: 16px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border: 1px solid #d6d6d6; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; margin: 8px 0 16px; }
dl.meta dt { color: #666; } dl.meta dd { margin: 0; }
.outcome { display: inline-block; padding: 2px 10px; border-radius: 4px; color: #fff; font-weight: 700; }
.pass { background: #2e8b57; } .fail { background: #c9302c; } .inconclusive { background: #d48a00; }
.error, .skip { background: #6c757d; }
td.status { color: #fff; font-weight: 600; text-align: center; }
.banner { background: #fff3cd; border: 1px solid #e0c36c; padding: 8px 12px; margin: 12px 0; border-radius: 4px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
figure.chart { margin: 0; border: 1px solid #e3e3e3; border-radius: 4px; }
figure.chart svg { display: block; max-width: 100%; height: auto; } .chart-error { color: #c9302c; padding: 12px; }
.description { color: #444; margin: 0 0 8px; } code { font-size: 13px; }
`

/** Escapes text for element content and double-quoted attributes alike. */
export function esc(value: unknown): string {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

function rows(pairs: [string, string][]): string {
  return pairs.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('\n')
}

function percentiles(h: HistogramSummary): string {
  return h.count === 0
    ? 'no samples'
    : `p50 ${ms(h.p50)}, p90 ${ms(h.p90)}, p99 ${ms(h.p99)}, max ${ms(h.max)} (${h.count} samples)`
}

function header(result: LoadResult): string {
  const p = result.profile
  const limiter = result.target.limiter ? `, ${result.target.limiter}` : ''
  const target = `${result.target.baseUrl}${result.target.embedded ? ` (embedded reference gateway${limiter})` : ''}`
  const meta: [string, string][] = [
    ['target', target],
    ['profile', `${p.name}: ${p.description}`],
    ...(p.seed === undefined
      ? []
      : [['seed', `${p.seed} (--seed ${p.seed} repeats the arrivals and bodies)`] as [string, string]]),
    ['tier', p.tier === null ? '-' : String(p.tier)],
    ['run', result.runId],
    ['started', result.startedAt],
    ['ended', `${result.endedAt} (${seconds(runDurationMs(result))})`],
    ['minute', `${result.target.minuteMs} ms`],
    ['shards', shardLine(result)],
    ['tool', `${result.tool.name} ${result.tool.version}`],
  ]
  const objectives = objectivesLine(result)
  if (objectives !== null) meta.push(['objectives', objectives])
  const banner = result.partial
    ? `<div class="banner"><strong>Partial run:</strong> stopped early ` +
      `(${esc(result.stopReason ?? 'no reason recorded')}); the figures are what had been measured by then.</div>`
    : ''
  const outcome = `<span class="outcome ${esc(result.outcome)}">${esc(result.outcome.toUpperCase())}</span>`
  return `<header>
<h1>Load report: ${esc(p.name)} ${outcome}</h1>
<p>${esc(OUTCOME_LINE[result.outcome])} (exit code ${esc(result.exitCode)})</p>
${banner}
<dl class="meta">${meta.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>
</header>`
}

function verdictTable(result: LoadResult): string {
  if (result.verdicts.length === 0) return '<h2>Verdicts</h2><p>No verdict was judged.</p>'
  const body = result.verdicts
    .map(
      (v) =>
        `<tr><td>${esc(v.phase)}</td><td>${esc(v.id)}</td><td class="status ${esc(v.status)}">${esc(v.status)}</td>` +
        `<td>${esc(v.figure)}</td><td>${esc(v.detail)}</td><td>${esc(v.section)}</td></tr>`,
    )
    .join('\n')
  const head = headCells(['phase', 'verdict', 'status', 'figure', 'detail', 'section'])
  return `<h2>Verdicts</h2>
<table class="verdicts"><thead><tr>${head}</tr></thead>
<tbody>${body}</tbody></table>`
}

function figuresTable(result: LoadResult, phase: PhaseResult): string {
  const plan = phase.plan
  const s = phase.schedule
  const h = phase.headers
  const pairs: [string, string][] = [
    ['engine', `${plan.engine}, key ${plan.slot}, ${plan.connections} connections`],
    [
      'time',
      `from ${phaseOffset(result, phase)} for ${seconds(phase.endedAt - phase.startedAt)} ` +
        `(planned ${seconds(plan.durationMs)})`,
    ],
    ['routes', plan.routes.join(', ')],
    ['sent / answered', `${phase.sent} / ${phase.answered}`],
    ...(mixLine(phase) === null ? [] : [['mix', mixLine(phase) as string] as [string, string]]),
    ['rate', rateLine(phase)],
    ['goodput', goodputLine(phase)],
    ...(arrivalLine(phase) === null ? [] : [['arrivals', arrivalLine(phase) as string] as [string, string]]),
    ['by status', countsLine(phase.byStatus)],
    ['no answer', countsLine(phase.errors)],
    ['retries', String(phase.retries)],
    ['latency', percentiles(phase.latency)],
    [
      'schedule',
      s === null
        ? 'not scheduled (closed loop)'
        : `behind by at most ${s.maxBehindCalls} calls, ahead by ${s.maxAheadCalls}, bound ${s.boundCalls}; lag p99 ` +
          `${s.lagP99Ms === null ? '-' : ms(s.lagP99Ms)}; ` +
          `${s.conclusive ? 'conclusive' : 'NOT conclusive: the load was not the load planned'}`,
    ],
  ]
  if (plan.bucket !== null) {
    pairs.push([
      'limit',
      `${plan.bucket} bucket, expected ` +
        `${plan.expectedLimit ?? 'from headers'}${plan.fromRest ? ', started from rest' : ''}`,
    ])
    pairs.push([
      'headers',
      `${h.responses} responses (${h.refused} 429s): ${h.missing} missing a header (${h.missingOnRefused} of them ` +
        `429s), ${h.unparsable} unparsable, ${h.limitNotTable} limits not the table's, ${h.resetFractional} resets ` +
        `with a fraction of a second, ${h.resetOverPeriod} resets past a minute, ${h.remainingOverLimit} remaining ` +
        `above the limit, ${h.refusedWithoutRetryAfter} 429s without Retry-After`,
    ])
    pairs.push(['algorithm (observed)', phase.algorithm ?? 'too few answers to tell'])
  }
  if (phase.probe && plan.probe) {
    pairs.push([
      'probe',
      `key ${plan.probe.slot} at ${plan.probe.rate}/s: ${phase.probe.sent} sent, ${phase.probe.answered} answered, ` +
        `${phase.probe.refused} refused`,
    ])
  }
  return `<table class="figures">${rows(pairs)}</table>`
}

const CLIENTS_HEAD = [
  'policy',
  'workers',
  'max attempts',
  'tasks',
  'successes',
  'gave up',
  'attempts',
  'refusals',
  'refusals per success',
  "goodput (of the limit's rate)",
  'recovery p50',
  'recovery p99',
]

/** Header cells of fixed words, written as they are (no word of theirs needs escaping). */
function headCells(names: readonly string[]): string {
  return names.map((name) => `<th>${name}</th>`).join('')
}

function clientsTable(result: LoadResult, phase: PhaseResult): string {
  const c = phase.clients
  if (!c) return ''
  const goodput = goodputOf(phase, result.target.minuteMs)
  const perSuccess = c.successes === 0 ? '-' : (c.refusals / c.successes).toFixed(2)
  const figures = [
    c.workers,
    c.maxAttempts,
    c.tasks,
    c.successes,
    c.gaveUp,
    c.attempts,
    c.refusals,
    perSuccess,
    goodput === null ? '-' : `${(goodput * 100).toFixed(0)}%`,
    esc(ms(c.recovery.p50)),
    esc(ms(c.recovery.p99)),
  ]
  return `<h3>Clients</h3>
<table class="clients"><thead><tr>${headCells(CLIENTS_HEAD)}</tr></thead>
<tbody><tr><td>${esc(c.policy)}</td>${figures.map((v) => `<td class="n">${v}</td>`).join('')}</tr></tbody></table>`
}

function streamTable(phase: PhaseResult): string {
  const st = phase.stream
  if (!st) return ''
  const line = (name: string, h: HistogramSummary, unit: (v: number) => string): string =>
    `<tr><th>${esc(name)}</th>` +
    [h.p50, h.p90, h.p99, h.max].map((v) => `<td class="n">${esc(unit(v))}</td>`).join('') +
    `<td class="n">${h.count}</td></tr>`
  // tokensPerSecond's figures are tokens per second, not milliseconds (types.ts).
  const tps = (v: number): string => `${v.toFixed(1)}/s`
  return `<h3>Streams: ${st.completed} completed, ${st.truncated} truncated</h3>
<table class="stream"><thead><tr>${headCells(['', 'p50', 'p90', 'p99', 'max', 'samples'])}</tr></thead><tbody>
${line('time to first token', st.ttft, ms)}
${line('between tokens', st.interToken, ms)}
${line('end to end', st.endToEnd, ms)}
${line('output tokens per second', st.tokensPerSecond, tps)}
</tbody></table>`
}

/** A repeated run: each figure's spread over the repeats, and where their charts over time are. */
function repeatsTable(result: LoadResult, phase: PhaseResult): string {
  if (!result.repeats) return ''
  const rows = spreadRows(result, phase.plan.name)
    .map(
      (r) =>
        `<tr>${r
          .slice(1)
          .map((v) => `<td>${esc(v)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n')
  const reports = result.repeats.dirs.map((d) => `${esc(d)}/report.html`).join(', ')
  return `<h3>Over ${result.repeats.count} repeats</h3>
<p>Charts over time are in each repeat's report (${reports}):
the slices of runs made one after another do not add up.</p>
<table class="repeats"><thead><tr>${SPREAD_HEAD.slice(1)
    .map((h) => `<th>${esc(h)}</th>`)
    .join('')}</tr></thead><tbody>${rows}</tbody></table>`
}

function chartFigure(chart: Chart): string {
  const inner =
    chart.svg ?? `<p class="chart-error">This chart could not be drawn: ${esc(chart.error ?? 'unknown error')}</p>`
  return `<figure class="chart" data-chart="${chart.kind}">${inner}</figure>`
}

function phaseSection(result: LoadResult, phase: PhaseResult, index: number): string {
  const charts = phaseCharts(phase, result.bucketMs)
  const figures =
    charts.length === 0 ? '<p>No call was recorded: nothing to chart.</p>' : charts.map(chartFigure).join('\n')
  return `<section class="phase" id="phase-${index + 1}">
<h2>Phase ${index + 1}: ${esc(phase.plan.name)}</h2>
<p class="description">${esc(phase.plan.description)}</p>
${figuresTable(result, phase)}
${clientsTable(result, phase)}
${streamTable(phase)}
${repeatsTable(result, phase)}
<div class="charts">${figures}</div>
</section>`
}

function capacitySection(c: CapacityResult): string {
  const head = STEP_HEAD.map((h) => `<th>${esc(h)}</th>`).join('')
  const body = c.steps
    .map(
      (s) =>
        `<tr>${stepRow(s)
          .map((v, i) => `<td${i >= 2 && i <= 9 ? ' class="n"' : ''}>${esc(v)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n')
  const chart = c.steps.length === 0 ? '<p>No step ran: nothing to chart.</p>' : chartFigure(capacityChart(c))
  return `<section class="capacity" id="capacity">
<h2>Capacity search</h2>
<ul>${capacityLines(c)
    .map((line) => `<li>${esc(line)}</li>`)
    .join('')}</ul>
<table class="steps"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>
<div class="charts">${chart}</div>
</section>`
}

export function renderHtml(result: LoadResult): string {
  const phases =
    result.phases.length === 0
      ? '<p>No phase ran.</p>'
      : result.phases.map((p, i) => phaseSection(result, p, i)).join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Load ${esc(result.outcome.toUpperCase())}: ${esc(result.profile.name)} (${esc(result.runId)})</title>
<style>${STYLE}</style>
</head>
<body>
${header(result)}
${verdictTable(result)}
${result.capacity ? capacitySection(result.capacity) : ''}
${phases}
<script>${PAGE_CHECK_SCRIPT}</script>
</body>
</html>
`
}
