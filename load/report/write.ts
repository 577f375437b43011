/**
 * Writes a run's three reports side by side: result.json (the data, merged by `load merge`), summary.md, report.html.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { LoadResult } from '../types.ts'
import { renderHtml } from './html.ts'
import { renderSummaryMd } from './summary-md.ts'

export const REPORT_FILES = { json: 'result.json', markdown: 'summary.md', html: 'report.html' } as const

export async function writeLoadReport(result: LoadResult, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true })
  // result.json first: it is what merges and verdicts are recomputed from, so a renderer's failure must not cost it.
  const files: [string, () => string][] = [
    [REPORT_FILES.json, () => `${JSON.stringify(result, null, 2)}\n`],
    [REPORT_FILES.markdown, () => renderSummaryMd(result)],
    [REPORT_FILES.html, () => renderHtml(result)],
  ]
  const written: string[] = []
  for (const [name, render] of files) {
    const path = join(dir, name)
    await writeFile(path, render())
    written.push(path)
  }
  return written
}
