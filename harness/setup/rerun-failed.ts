/**
 * --rerun-failed DIR: the selection that runs again only what failed or erred in an earlier run's report. A
 * requirement judged by tests runs those tests; one judged by the audit of every response (no test of its own)
 * runs the tests whose exchanges the audit found wrong.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Summary } from '../report/summary.ts'
import { ConfigError } from '../errors.ts'

export interface RerunSelection {
  /** The report the selection came from: DIR itself, or DIR/latest. */
  summaryFile: string
  /** The requirements that failed or erred there. */
  failed: string[]
  /** The requirement ids whose tests run again, and the families that hold them. */
  ids: string[]
  families: string[]
}

const TEST_ID = /\[([A-Za-z0-9][A-Za-z0-9.-]*)\]/

function readSummary(dir: string): { file: string; summary: Summary } {
  const candidates = [join(dir, 'summary.json'), join(dir, 'latest', 'summary.json')]
  const file = candidates.find((path) => existsSync(path))
  if (file === undefined)
    throw new ConfigError(
      `--rerun-failed ${dir}: no summary.json there or in ${join(dir, 'latest')}; give a run's report folder`,
    )
  try {
    const summary = JSON.parse(readFileSync(file, 'utf8')) as Summary
    if (!Array.isArray(summary.requirements)) throw new Error('no requirements')
    return { file, summary }
  } catch (error) {
    throw new ConfigError(`--rerun-failed ${file}: not a conformance summary (${(error as Error).message})`)
  }
}

export function rerunSelection(dir: string, known: (id: string) => { family: string } | undefined): RerunSelection {
  const { file, summary } = readSummary(dir)
  const failed = summary.requirements.filter((r) => r.status === 'fail' || r.status === 'error')
  const ids = new Set<string>()
  for (const r of failed) {
    if (r.tests.length > 0) ids.add(r.id)
    // An audited rule has no test of its own: the tests that made the exchanges it judged carry its id in their name.
    for (const evidence of r.evidence) {
      const id = TEST_ID.exec(evidence.test)?.[1]
      if (id !== undefined && known(id) !== undefined) ids.add(id)
    }
  }
  const families = [...new Set([...ids].map((id) => known(id)?.family).filter((f): f is string => f !== undefined))]
  return { summaryFile: file, failed: failed.map((r) => r.id), ids: [...ids].sort(), families: families.sort() }
}
