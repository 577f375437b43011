/**
 * Checks of what a conformance run writes, shared by the unit tests of the report writers and the end-to-end
 * runs of test/cli: summary.json against its published schema (schemas/report/summary.schema.json),
 * exchanges.har against the required fields of HAR 1.2 and holding the run's credit reads, coverage.md naming every
 * requirement, and no key in either. Each returns the problems found, so a failing assertion says what is wrong.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { schemas } from '../../../harness/schema-registry.ts'
import harSchema from './har-1.2.schema.json' with { type: 'json' }

const SUMMARY_SCHEMA = 'report/summary.schema.json'

export function summaryProblems(summary: unknown): string[] {
  return schemas().validate(SUMMARY_SCHEMA, summary).errors
}

export function harProblems(document: unknown): string[] {
  return schemas().validateWith(harSchema, document).errors.slice(0, 20)
}

/** Every problem with the reports in `runDir`: schemas, coverage, and any of `keys` found in a file. */
export function runReportProblems(runDir: string, requirementIds: Iterable<string>, keys: readonly string[]): string[] {
  const problems: string[] = []
  const read = (name: string): string => readFileSync(join(runDir, name), 'utf8')
  const summary = JSON.parse(read('summary.json')) as { spend?: { measuredUsd?: number | null } }
  problems.push(...summaryProblems(summary).map((p) => `summary.json ${p}`))
  const harText = read('exchanges.har')
  const document = JSON.parse(harText) as { log?: { entries?: Array<{ _test?: string; request?: { url?: string } }> } }
  problems.push(...harProblems(document).map((p) => `exchanges.har ${p}`))
  const entries = document.log?.entries ?? []
  if (entries.length === 0) problems.push('exchanges.har holds no exchange')
  // The calls that measured the spend are the run's too.
  const creditReads = entries.filter(
    (e) => e._test?.startsWith('the run:') === true && e.request?.url?.endsWith('/user/v1/credit') === true,
  )
  if (summary.spend?.measuredUsd != null && creditReads.length < 2)
    problems.push(
      `exchanges.har holds ${creditReads.length} of the credit reads before and after the run that measured its spend`,
    )
  const coverage = read('coverage.md')
  for (const id of requirementIds) if (!coverage.includes(`| ${id} |`)) problems.push(`coverage.md does not list ${id}`)
  for (const [name, text] of [
    ['exchanges.har', harText],
    ['coverage.md', coverage],
  ] as const) {
    // The index, not the key: a failure message must not print it either.
    keys.forEach((key, index) => {
      if (text.includes(key)) problems.push(`${name} holds configured key #${index}`)
    })
  }
  return problems
}
