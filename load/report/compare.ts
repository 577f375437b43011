/**
 * What `npm run load -- compare` prints and writes: a table of every figure's change, as text for the terminal,
 * compare.md for a CI job page and compare.html (self-contained, like report.html), and the spread of a
 * repeated run's figures for its own reports.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChangeStatus, Comparison, FigureChange } from '../compare/judge.ts'
import { COMPARE } from '../compare/thresholds.ts'
import { esc } from './html.ts'
import { figureValue } from './spread.ts'
import { cell, text } from './summary-md.ts'

export const COMPARE_FILES = { markdown: 'compare.md', html: 'compare.html' } as const

const STATUS_WORD: Record<ChangeStatus, string> = {
  regression: 'REGRESSION',
  worse: 'worse, within threshold',
  better: 'better',
  same: 'within noise',
  missing: 'not in both',
}

const signed = (n: number, digits: number): string => `${n > 0 ? '+' : ''}${n.toFixed(digits)}`

function change(c: FigureChange): string {
  if (c.delta === null) return '-'
  if (c.scale === 'share') return `${signed(c.delta * 100, 2)} pts`
  if (c.relative === null || !Number.isFinite(c.relative))
    return c.delta === 0 ? '0 %' : `${signed(c.delta, 2)} (from 0)`
  return `${signed(c.relative * 100, 1)} %`
}

function noise(c: FigureChange): string {
  if (c.noise === null || c.baseline === null) return '-'
  const band =
    c.scale === 'share'
      ? `±${(c.noise * 100).toFixed(2)} pts`
      : c.baseline === 0
        ? `±${figureValue(c.unit, c.noise)}`
        : `±${((100 * c.noise) / Math.abs(c.baseline)).toFixed(1)} %`
  return c.noiseFrom === 'default' ? `${band} (assumed)` : band
}

const threshold = (c: FigureChange): string => (c.scale === 'share' ? `${c.threshold} pts` : `${c.threshold} %`)

export const COMPARE_HEAD = ['phase', 'figure', 'baseline', 'new', 'change', 'noise', 'threshold', 'judged']

export function changeCells(c: FigureChange): string[] {
  return [
    c.phase,
    c.label,
    figureValue(c.unit, c.baseline),
    figureValue(c.unit, c.next),
    change(c),
    noise(c),
    threshold(c),
    STATUS_WORD[c.status],
  ]
}

function sideLine(name: string, s: Comparison['baseline']): string {
  return (
    `${name}: ${s.runId} ` +
    `(${s.repeats === 1 ? 'one run' : `${s.repeats} repeats merged`}${s.partial ? ', PARTIAL: stopped early' : ''}) ` +
    `in ${s.dir}`
  )
}

export function spreadLine(c: Comparison): string {
  if (c.spreadMeasured)
    return (
      `spread measured from the repeats (${c.baseline.repeats} and ${c.next.repeats} runs): a change is ` +
      `significant outside the 95 % interval of the difference (Student's t, Welch); a side of one ` +
      `run borrows the other's spread`
    )
  return (
    `spread NOT measured (neither run used --repeat): a change within ±${COMPARE.noiseBandPercent} % ` +
    `(${COMPARE.noiseBandPoints} pts for shares) is taken for noise, which may be less than this target's run-to-run ` +
    `noise; run both with --repeat 3 to measure it`
  )
}

export function outcomeLine(c: Comparison): string {
  const worst = c.changes.filter((x) => x.status === 'regression').map((x) => `${x.phase} ${x.figure} ${change(x)}`)
  return c.exitCode === 1
    ? `REGRESSION (exit 1): ${worst.length === 1 ? 'a figure is' : `${worst.length} figures are`} worse than the ` +
        `baseline past the threshold: ${worst.join(', ')}`
    : 'NO REGRESSION (exit 0): no figure is significantly worse than the baseline past its threshold'
}

/** Columns padded to their widest cell, but the last. */
export function columns(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)))
  return rows.map((r) => r.map((v, c) => (c < r.length - 1 ? v.padEnd(widths[c] as number) : v)).join('  ')).join('\n')
}

export function renderCompareText(c: Comparison): string {
  const sides = `${sideLine('baseline', c.baseline)}\n${sideLine('new', c.next)}`
  const table = columns([COMPARE_HEAD, ...c.changes.map(changeCells)])
  return `${sides}\n\n${table}\n\n${spreadLine(c)}\n${outcomeLine(c)}\n`
}

export function renderCompareMd(c: Comparison): string {
  const table = [
    `| ${COMPARE_HEAD.join(' | ')} |`,
    `|${COMPARE_HEAD.map(() => '---').join('|')}|`,
    ...c.changes.map(
      (x) =>
        `| ${changeCells(x)
          .map((v, i) => (i === 7 && x.status === 'regression' ? `**${cell(v)}**` : cell(v)))
          .join(' | ')} |`,
    ),
  ]
  return [
    `# Load compare: ${text(c.profile)}: ${c.exitCode === 1 ? 'REGRESSION' : 'no regression'} (exit ${c.exitCode})`,
    '',
    `- ${text(sideLine('baseline', c.baseline))}`,
    `- ${text(sideLine('new', c.next))}`,
    `- ${text(spreadLine(c))}`,
    '',
    ...table,
    '',
    text(outcomeLine(c)),
    '',
  ].join('\n')
}

const CSP = "default-src 'none'; style-src 'unsafe-inline'"
const STYLE = `body { font: 14px/1.45 system-ui, sans-serif; color: #222; margin: 0 auto; padding: 16px 24px 48px;
  max-width: 1300px; }
table { border-collapse: collapse; } th, td { border: 1px solid #d6d6d6; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; }
tr.regression td { background: #f8d7da; } tr.worse td { background: #fff3cd; } tr.better td { background: #d4edda; }
tr.missing td { color: #777; }
.outcome { font-weight: 700; }`

export function renderCompareHtml(c: Comparison): string {
  const rows = c.changes
    .map(
      (x) =>
        `<tr class="${x.status}">${changeCells(x)
          .map((v) => `<td>${esc(v)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<title>Load compare ${esc(c.profile)}: ${c.exitCode === 1 ? 'REGRESSION' : 'no regression'}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Load compare: ${esc(c.profile)}</h1>
<ul><li>${esc(sideLine('baseline', c.baseline))}</li><li>${esc(sideLine('new', c.next))}</li>
<li>${esc(spreadLine(c))}</li></ul>
<table><thead><tr>${COMPARE_HEAD.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>${rows}</tbody></table>
<p class="outcome">${esc(outcomeLine(c))}</p>
</body>
</html>
`
}

export async function writeCompareReport(c: Comparison, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true })
  const md = join(dir, COMPARE_FILES.markdown)
  const html = join(dir, COMPARE_FILES.html)
  await writeFile(md, renderCompareMd(c))
  await writeFile(html, renderCompareHtml(c))
  return [md, html]
}
