/**
 * The contract as data: every schema compiles and has the $id of its place; every catalogue entry is well-formed
 * and cites a section that exists in the reference; every requirement id a suite names exists; every
 * requirement is checked by some test, but for those the catalogue marks `untestable` with the reason.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { REQ } from '../../../harness/report/audit.ts'
import { citableSections } from '../../../harness/reference.ts'
import { requirements, families, uncheckedMust } from '../../../harness/requirements.ts'
import { SCHEMAS_DIR, SchemaRegistry } from '../../../harness/schema-registry.ts'
import { collectChecks } from '../../../harness/setup/list-requirements.ts'
import { ROOT } from '../../support/run-conformance.ts'
import { filesUnder } from '../../support/files.ts'

describe('schemas', () => {
  test('every schema is valid against its meta-schema and compiles, with the $id of its path', () => {
    const registry = new SchemaRegistry(SCHEMAS_DIR, { checkSchemas: true })
    expect(() => registry.compileAll()).not.toThrow()
    expect(registry.ids.length).toBeGreaterThan(15)
  })
})

describe('the requirement catalogue', () => {
  const all = [...requirements().values()]

  test('ids are stable-looking, unique, and match their part and section', () => {
    for (const r of all) {
      expect(r.id).toMatch(/^P[12]-\d+(\.\d+)?-[a-z0-9-]+$/)
      expect(r.id.startsWith(`P${r.part}-${r.section}-`), r.id).toBe(true)
      expect(['MUST', 'SHOULD']).toContain(r.level)
      expect(r.rule.length).toBeGreaterThan(20)
      if (r.level === 'SHOULD') expect(r.why, `${r.id} says why it is only a SHOULD`).toBeTruthy()
      if (r.untestable !== undefined)
        expect(r.untestable.length, `${r.id} says why it is untestable`).toBeGreaterThan(10)
    }
  })

  test('every cited section exists in the reference', () => {
    for (const r of all) {
      const known = citableSections(r.part)
      for (const section of [r.section, ...(r.see ?? [])])
        expect(known.has(section), `${r.id} cites §${section}`).toBe(true)
    }
  })

  test('every family has a suite folder', () => {
    const folders = new Set(
      readdirSync(join(ROOT, 'suites'), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name),
    )
    for (const family of families()) expect(folders.has(family), family).toBe(true)
  })

  test('every requirement id named in a suite exists in the catalogue', () => {
    const named = filesUnder(join(ROOT, 'suites'))
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/'(P[12]-\d+(?:\.\d+)?-[a-z0-9-]+)'/g)].map((m) => m[1] as string),
      )
    expect(named.length).toBeGreaterThan(40)
    expect(named.filter((id) => !requirements().has(id))).toEqual([])
  })

  test('every requirement is checked by a test or by the audit of every response, unless marked untestable', async () => {
    const checks = await collectChecks(ROOT)
    const audited = new Set<string>(Object.values(REQ))
    const checked = (id: string): boolean => checks.has(id) || audited.has(id)
    expect(
      uncheckedMust(all, checked).map((r) => r.id),
      'MUST requirements with no test (mark them untestable with the reason, or write the test)',
    ).toEqual([])
    expect(
      all.filter((r) => r.level === 'SHOULD' && r.untestable === undefined && !checked(r.id)).map((r) => r.id),
      'SHOULD requirements with no test',
    ).toEqual([])
    // A mark that outlived its reason hides a requirement from the coverage count.
    expect(
      all.filter((r) => r.untestable !== undefined && checked(r.id)).map((r) => r.id),
      'marked untestable, yet a test checks them',
    ).toEqual([])
  }, 240_000) // collects every suite file with vitest: seconds alone, a minute or more beside the fault proof on two cores
})
