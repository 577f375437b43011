/**
 * Only a whole run is a conformance verdict (ARCHITECTURE.md, The contracts): a selection says how much it selected and never
 * "CONFORMANT". And every report says which suite, commit and catalogue judged the gateway.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { attribution, attributionLine, attributionProperties } from '../../../harness/report/attribution.ts'
import { aggregate, verdictOf, type Outcome } from '../../../harness/report/results.ts'
import type { Requirement } from '../../../harness/requirements.ts'
import { scopeOf, verdictText } from '../../../harness/report/scope.ts'
import { renderJunit } from '../../../harness/report/junit.ts'
import { endOfRun } from '../../../harness/report/console.ts'
import { renderMarkdown } from '../../../harness/report/markdown.ts'
import { SUMMARY_SCHEMA_VERSION, type Summary } from '../../../harness/report/summary.ts'
import { summaryProblems } from './run-report-checks.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

const req = (id: string, family: string, level: 'MUST' | 'SHOULD' = 'MUST'): Requirement => ({
  id,
  part: 1,
  section: '4.1',
  family,
  level,
  kind: 'shape',
  rule: `rule ${id}`,
})
const CATALOGUE = [
  req('P1-4.1-a', 'auth'),
  req('P1-4.1-b', 'auth'),
  req('P1-4.1-c', 'models'),
  req('P1-4.1-d', 'files'),
]
const pass = (requirement: string): Outcome => ({
  requirement,
  status: 'pass',
  test: `[${requirement}] t`,
  file: 'suites/x.test.ts',
  source: 'test',
})
const EVERY = { grep: null, filters: [] }

describe('scope: whole runs and selections', () => {
  test('a run of every family with every test is whole, and says CONFORMANT', () => {
    const results = aggregate({
      requirements: CATALOGUE,
      outcomes: CATALOGUE.map((r) => pass(r.id)),
      selectedFamilies: null,
      filtered: false,
    })
    const scope = scopeOf(results, EVERY)
    expect(scope).toEqual({ whole: true, selected: 4, total: 4 })
    expect(verdictText(verdictOf(results, 0), scope)).toBe('CONFORMANT: no MUST requirement failed or was skipped')
  })

  test('--family auth: 2 of 4 selected, PASSED (partial), never CONFORMANT', () => {
    const results = aggregate({
      requirements: CATALOGUE,
      outcomes: [pass('P1-4.1-a'), pass('P1-4.1-b')],
      selectedFamilies: ['auth'],
      filtered: false,
    })
    const scope = scopeOf(results, EVERY)
    expect(scope).toEqual({ whole: false, selected: 2, total: 4 })
    const text = verdictText(verdictOf(results, 0), scope)
    expect(text).toBe('PASSED (partial: 2 of 4 requirements selected): not a conformance verdict')
    expect(text).not.toContain('CONFORMANT')
  })

  test('a failed MUST in a selection is FAILED (partial), not NOT CONFORMANT', () => {
    const results = aggregate({
      requirements: CATALOGUE,
      outcomes: [pass('P1-4.1-a'), { ...pass('P1-4.1-b'), status: 'fail', message: 'seen 200' }],
      selectedFamilies: ['auth'],
      filtered: false,
    })
    const text = verdictText(verdictOf(results, 0), scopeOf(results, EVERY))
    expect(text).toMatch(/^FAILED \(partial: 2 of 4 requirements selected\), a selected MUST requirement failed/)
  })

  test.each([
    ['--grep', { grep: 'P1-4.1-a', filters: [] }],
    ['a file filter', { grep: null, filters: ['suites/auth/x.test.ts'] }],
    ['--level must', { grep: null, filters: [], level: 'MUST' as const }],
    ['--shard 1/2', { grep: null, filters: [], shard: { index: 1, count: 2 } }],
  ])('%s narrows the run even when every requirement kept a test', (_name, selection) => {
    const results = aggregate({
      requirements: CATALOGUE,
      outcomes: CATALOGUE.map((r) => pass(r.id)),
      selectedFamilies: null,
      filtered: false,
    })
    expect(scopeOf(results, selection)).toEqual({ whole: false, selected: 4, total: 4 })
  })

  test('an untestable requirement is disabled but not left out by a selection: the run stays whole', () => {
    const catalogue = [...CATALOGUE, { ...req('P1-4.1-e', 'files'), untestable: 'the reference shows no shape' }]
    const results = aggregate({
      requirements: catalogue,
      outcomes: CATALOGUE.map((r) => pass(r.id)),
      selectedFamilies: null,
      filtered: false,
    })
    expect(scopeOf(results, EVERY)).toEqual({ whole: true, selected: 5, total: 5 })
  })
})

function summaryOf(families: string[] | null): Summary {
  const results = aggregate({
    requirements: CATALOGUE,
    outcomes: [pass('P1-4.1-a'), pass('P1-4.1-b')],
    selectedFamilies: families,
    filtered: false,
  })
  const verdict = verdictOf(results, 0)
  const selection = { families, grep: null, filters: [] }
  return {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    runId: '20261126-100000-abcd',
    tool: attribution(ROOT, { name: 'gateway-conformance', version: '1.2.3' }),
    startedAt: '2026-11-26T10:00:00.000Z',
    finishedAt: '2026-11-26T10:00:01.000Z',
    durationMs: 1000,
    target: { baseUrl: 'http://127.0.0.1:9', embedded: true },
    asOf: '2026-11-26',
    tiers: [0, 1, 2, 3, 4, 5].map((tier) => ({ tier, keyGiven: false, calls: 0 })),
    budgetUsd: null,
    selection,
    verdict,
    exitCode: 0,
    scope: scopeOf(results, selection),
    totals: { pass: 2, fail: 0, warn: 0, skip: 0, 'not-observed': 0, error: 0, disabled: 2, known: 0 },
    families: {},
    tests: { total: 2, passed: 2, failed: 0, skipped: 0 },
    requirements: results,
    uncheckedMust: [],
    observations: [],
    retries: [],
    pacing: [],
    harnessErrors: [],
    spend: { budgetUsd: null, estimatedUsd: 0, measuredUsd: null, items: [] },
  }
}

describe('the reports of a partial run say it is partial', () => {
  const summary = summaryOf(['auth'])

  test('the console ends with the partial line and its exit code', () => {
    expect(endOfRun(summary).split('\n').at(-1)).toBe(
      'PASSED (partial: 2 of 4 requirements selected): not a conformance verdict (exit 0)',
    )
  })

  test('summary.md opens with it', () => {
    expect(renderMarkdown(summary).split('\n')[0]).toBe(
      '# Gateway conformance: PASSED (partial: 2 of 4 requirements selected): not a conformance verdict (exit 0)',
    )
  })

  test('summary.json with scope and attribution is valid against its published schema', () => {
    expect(summaryProblems(JSON.parse(JSON.stringify(summary)))).toEqual([])
  })
})

describe('attribution', () => {
  const tool = attribution(ROOT, { name: 'gateway-conformance', version: '1.2.3' })

  test('the catalogue hash is the SHA-256 of schemas/requirements.json', () => {
    const bytes = readFileSync(new URL('../../../schemas/requirements.json', import.meta.url))
    expect(tool.catalogueSha256).toBe(createHash('sha256').update(bytes).digest('hex'))
  })

  test('run from a clone, the commit is a full git hash', () => {
    expect(tool.commit).toMatch(/^[0-9a-f]{40}$/)
  })

  test('summary.md, JUnit properties and the Allure environment carry version, commit, catalogue and as-of', () => {
    expect(renderMarkdown(summaryOf(null))).toContain(`- package: ${attributionLine(tool)}\n`)
    expect(attributionLine(tool)).toBe(
      `gateway-conformance 1.2.3, commit ${tool.commit?.slice(0, 12)}, catalogue sha256 ${tool.catalogueSha256.slice(0, 12)}`,
    )
    const properties = attributionProperties(tool, '2026-11-26')
    expect(properties).toEqual({
      'suite.name': 'gateway-conformance',
      'suite.version': '1.2.3',
      'suite.commit': tool.commit,
      'catalogue.sha256': tool.catalogueSha256,
      'as-of': '2026-11-26',
    })
    const xml = renderJunit([{ name: 't', file: 'f', requirement: 'P1-4.1-a', level: 'MUST', status: 'pass' }], [], {
      ...properties,
      scope: 'partial',
    })
    expect(xml).toContain('<property name="suite.version" value="1.2.3"/>')
    expect(xml).toContain(`<property name="catalogue.sha256" value="${tool.catalogueSha256}"/>`)
    expect(xml).toContain('<property name="scope" value="partial"/>')
  })

  test('an installed package (no .git) has no commit: null, not a guess', () => {
    const installed = mkdtempSync(join(tmpdir(), 'gc-installed-'))
    try {
      mkdirSync(join(installed, 'schemas'))
      copyFileSync(join(ROOT, 'schemas', 'requirements.json'), join(installed, 'schemas', 'requirements.json'))
      const found = attribution(installed, { name: 'gateway-conformance', version: '1.2.3' })
      expect(found.commit).toBeNull()
      expect(found.catalogueSha256).toBe(tool.catalogueSha256)
    } finally {
      rmSync(installed, { recursive: true, force: true })
    }
  })
})
