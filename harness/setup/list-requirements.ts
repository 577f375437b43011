/**
 * `--list-requirements`: the catalogue with the tests that check each requirement, collected by vitest from the
 * suites (no test runs, no target is contacted). MUST requirements that nothing checks are listed first, then
 * those the catalogue marks untestable, with its reason. A run's coverage.md adds each test's result.
 */
import { relative } from 'node:path'
import { createVitest } from 'vitest/node'
import { REQ } from '../report/audit.ts'
import { CONFORMANCE_PROJECTS } from './projects.ts'
import { requirements, citation, uncheckedMust } from '../requirements.ts'
import { DEFAULT_NATIVE_KEY_HEADER, type TargetConfig } from './config.ts'
import type { ConformanceMeta } from '../worker/recorder.ts'

const AUDITED = new Set<string>(Object.values(REQ))

/** requirement id -> "file > test name" of every test that declares it. */
export async function collectChecks(root: string): Promise<Map<string, string[]>> {
  // No isolation, one thread: collection runs no test, so the files may share one module graph rather than
  // evaluate the harness once per suite file, or once per thread.
  const vitest = await createVitest('test', {
    root,
    project: CONFORMANCE_PROJECTS,
    watch: false,
    reporters: [],
    isolate: false,
    maxWorkers: 1,
  })
  // Collection evaluates suite files only; the placeholder keeps global setup from starting a gateway.
  const placeholder: TargetConfig = {
    baseUrl: 'http://127.0.0.1:9',
    embedded: false,
    keys: {},
    asOf: '2026-01-01',
    budgetUsd: 0,
    timeoutMs: 1,
    largeUploads: false,
    models: {},
    nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
    runId: 'list',
  }
  vitest.provide('runConfig', placeholder)
  const checks = new Map<string, string[]>()
  try {
    const { testModules, unhandledErrors } = await vitest.collect(undefined, { staticParse: false })
    if (unhandledErrors.length > 0) throw new Error(String((unhandledErrors[0] as { message?: string }).message))
    for (const module of testModules) {
      for (const error of module.errors()) throw new Error(`${relative(root, module.moduleId)}: ${error.message}`)
      for (const test of module.children.allTests()) {
        const id = (test.meta() as ConformanceMeta).requirement
        if (id === undefined) continue
        checks.set(id, [...(checks.get(id) ?? []), `${relative(root, module.moduleId)} > ${test.name}`])
      }
    }
  } finally {
    await vitest.close()
  }
  return checks
}

export async function listRequirements(root: string): Promise<string> {
  const checks = await collectChecks(root)
  const all = [...requirements().values()]
  const checkedBy = (id: string): string[] => [
    ...(checks.get(id) ?? []),
    ...(AUDITED.has(id) ? ['audit of every response of the run'] : []),
  ]
  const unchecked = uncheckedMust(all, (id) => checkedBy(id).length > 0)
  const untestable = all.filter((r) => r.untestable !== undefined)
  const lines: string[] = []
  if (unchecked.length > 0) {
    lines.push(`MUST requirements that no test checks (${unchecked.length}):`, ...unchecked.map((r) => `  ${r.id}`), '')
  }
  if (untestable.length > 0) {
    lines.push(
      `Requirements the catalogue marks untestable (${untestable.length}):`,
      ...untestable.map((r) => `  ${r.id}  ${r.level}: ${r.untestable}`),
      '',
    )
  }
  lines.push(
    `${all.length} requirements (${all.filter((r) => r.level === 'MUST').length} MUST, ${all.filter((r) => r.level === 'SHOULD').length} SHOULD):`,
    '',
  )
  for (const r of all) {
    lines.push(`${r.id}  ${r.level}  ${citation(r)}  [${r.family}]`, `  ${r.rule}`)
    const by = checkedBy(r.id)
    if (r.untestable !== undefined) lines.push(`  untestable: ${r.untestable}`)
    // An untestable requirement's reason already says what records it; only a rule that should be checked is unchecked.
    if (by.length > 0) lines.push(`  checked by:\n${by.map((b) => `    - ${b}`).join('\n')}`)
    else if (r.untestable === undefined) lines.push('  checked by: nothing')
    lines.push('')
  }
  return `${lines.join('\n')}\n`
}
