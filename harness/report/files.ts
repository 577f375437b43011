/**
 * The files a run and a merge of runs both write into reports/<run-id>/: summary.json, summary.md and coverage.md,
 * and the reports/latest pointer.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, relative } from 'node:path'
import { requirements } from '../requirements.ts'
import { renderCoverage } from './coverage.ts'
import { renderMarkdown } from './markdown.ts'
import type { Summary } from './summary.ts'

/** `transform` sees each file's text last (the reporter redacts there once more). */
export function writeSummaryFiles(
  runDir: string,
  summary: Summary,
  transform: (text: string) => string = (t) => t,
): void {
  mkdirSync(runDir, { recursive: true })
  const out = (name: string, text: string): void => writeFileSync(join(runDir, name), transform(text))
  out('summary.json', `${JSON.stringify(summary, null, 2)}\n`)
  out('summary.md', renderMarkdown(summary))
  out(
    'coverage.md',
    renderCoverage(summary, (id) => requirements().get(id)?.untestable),
  )
}

/** reports/latest -> reports/<run-id>; where links are not allowed, a file naming the run instead. */
export function pointLatest(reportRoot: string, runDir: string): void {
  const latest = join(reportRoot, 'latest')
  rmSync(latest, { force: true, recursive: false })
  try {
    symlinkSync(relative(reportRoot, runDir), latest)
  } catch {
    writeFileSync(`${latest}.txt`, `${relative(reportRoot, runDir)}\n`)
  }
}

/** A path under the working folder as the user would type it; any other in full, never as a climb of `../`. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel
}
