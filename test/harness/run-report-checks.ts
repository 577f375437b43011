/**
 * Checks of what a conformance run writes, shared by the unit tests of the report writers and the end-to-end
 * runs of test/cli: summary.json against its published schema (schemas/report/summary.schema.json),
 * exchanges.har against the required fields of HAR 1.2, coverage.md naming every requirement, and no key in
 * either. Each returns the problems found, so a failing assertion says what is wrong.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { schemas } from '../../harness/schema-registry.ts'
import harSchema from './har-1.2.schema.json' with { type: 'json' }

export const SUMMARY_SCHEMA = 'report/summary.schema.json'

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
  problems.push(...summaryProblems(JSON.parse(read('summary.json'))).map((p) => `summary.json ${p}`))
  const harText = read('exchanges.har')
  const document = JSON.parse(harText) as { log?: { entries?: unknown[] } }
  problems.push(...harProblems(document).map((p) => `exchanges.har ${p}`))
  if ((document.log?.entries?.length ?? 0) === 0) problems.push('exchanges.har holds no exchange')
  const coverage = read('coverage.md')
  for (const id of requirementIds) if (!coverage.includes(`| ${id} |`)) problems.push(`coverage.md does not list ${id}`)
  for (const [name, text] of [['exchanges.har', harText], ['coverage.md', coverage]] as const) {
    // The index, not the key: a failure message must not print it either.
    keys.forEach((key, index) => {
      if (text.includes(key)) problems.push(`${name} holds configured key #${index}`)
    })
  }
  return problems
}
