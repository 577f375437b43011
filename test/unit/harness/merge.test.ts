/** The merge of shards and split runs (harness/report/merge.ts): per requirement, counts, refusals, JUnit, HAR, files. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { judgeBaseline, summarizeBaseline, type Baseline } from '../../../harness/report/baseline.ts'
import type { Requirement } from '../../../harness/requirements.ts'
import {
  checkMergeable,
  mergeHarChunks,
  mergeJunit,
  mergeRequirement,
  mergeRuns,
  mergeSummaries,
  type MergeInput,
} from '../../../harness/report/merge.ts'
import {
  aggregate,
  countByFamily,
  EXIT,
  SHARD_REASON,
  totals,
  verdictOf,
  type Outcome,
  type OutcomeStatus,
  type RequirementResult,
  type RerunResult,
} from '../../../harness/report/results.ts'
import { renderJunit } from '../../../harness/report/junit.ts'
import { SUMMARY_SCHEMA_VERSION, type Summary } from '../../../harness/report/summary.ts'
import { configErrorOf } from '../../support/config-error.ts'

const REQUIREMENTS: Requirement[] = [
  { id: 'A', part: 1, section: '2.3', family: 'models', level: 'MUST', kind: 'shape', rule: 'a' },
  { id: 'B', part: 1, section: '2.3', family: 'models', level: 'MUST', kind: 'shape', rule: 'b' },
  { id: 'C', part: 1, section: '4.3', family: 'models', level: 'SHOULD', kind: 'shape', rule: 'c' },
  { id: 'D', part: 1, section: '5', family: 'auth', level: 'MUST', kind: 'shape', rule: 'd' },
  { id: 'E', part: 1, section: '5', family: 'auth', level: 'MUST', kind: 'shape', rule: 'e' },
]

function out(
  requirement: string,
  status: OutcomeStatus,
  file: string,
  extra: { message?: string; rerun?: RerunResult } = {},
): Outcome {
  return { requirement, status, test: `[${requirement}] ${file}`, file, source: 'test', ...extra }
}

let runs = 0

/** A run (or shard) as the reporter would write it, from outcomes. */
function run(
  outcomes: Outcome[],
  over: {
    shard?: { index: number; count: number } | null
    baseline?: Baseline
    asOf?: string
    baseUrl?: string
    embedded?: boolean
    startedAt?: string
    finishedAt?: string
    measuredUsd?: number | null
    families?: string[] | null
  } = {},
): Summary {
  runs += 1
  const aggregated = aggregate({
    requirements: REQUIREMENTS,
    outcomes,
    selectedFamilies: over.families ?? null,
    filtered: false,
    shard: over.shard ?? null,
  })
  const results = over.baseline ? judgeBaseline(aggregated, over.baseline) : aggregated
  const verdict = verdictOf(results, 0)
  const tests = outcomes.filter((o) => o.source === 'test')
  return {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    runId: `run-${runs}`,
    tool: { name: 'gateway-conformance', version: '0.1.0' },
    startedAt: over.startedAt ?? '2026-11-21T10:00:00.000Z',
    finishedAt: over.finishedAt ?? '2026-11-21T10:01:00.000Z',
    durationMs: 60_000,
    target: { baseUrl: over.baseUrl ?? 'http://127.0.0.1:4000', embedded: over.embedded ?? true },
    asOf: over.asOf ?? '2026-11-21',
    tiers: [0, 1, 2, 3, 4, 5].map((tier) => ({
      tier,
      keyGiven: tier === 2 || (over.shard?.index === 2 && tier === 0),
      calls: tier === 2 ? 3 : 0,
    })),
    budgetUsd: null,
    selection: { families: over.families ?? null, grep: null, filters: [], level: null, shard: over.shard ?? null },
    baseline: over.baseline ? summarizeBaseline(results, 'b.json', over.baseline) : null,
    verdict,
    exitCode: EXIT[verdict],
    totals: totals(results),
    families: Object.fromEntries(countByFamily(results)),
    tests: {
      total: tests.length,
      passed: tests.filter((t) => t.status === 'pass').length,
      failed: tests.filter((t) => t.status === 'fail').length,
      skipped: tests.filter((t) => t.status === 'skip').length,
    },
    requirements: results,
    uncheckedMust: [],
    observations: [{ test: 't', topic: 'batch shape', detail: 'seen: {}' }],
    retries: [],
    pacing: [],
    harnessErrors: [],
    spend: {
      budgetUsd: null,
      estimatedUsd: 0.5,
      measuredUsd: over.measuredUsd === undefined ? 0.25 : over.measuredUsd,
      items: [{ test: 't', usd: 0.5, what: 'x' }],
    },
  }
}

const input = (summary: Summary, dir = summary.runId): MergeInput => ({ dir, summary })

function req(
  id: string,
  status: RequirementResult['status'],
  extra: Partial<RequirementResult> = {},
): RequirementResult {
  return {
    id,
    part: 1,
    section: '1',
    family: 'models',
    level: 'MUST',
    rule: 'r',
    status,
    tests: [],
    evidence: [],
    ...extra,
  }
}

describe('one requirement across runs', () => {
  test.each([
    [['pass', 'fail'], 'fail'],
    [['warn', 'pass'], 'warn'],
    [['fail', 'warn'], 'fail'],
    [['pass', 'error'], 'error'],
    [['skip', 'pass'], 'pass'],
    [['disabled', 'skip'], 'skip'],
    [['disabled', 'pass', 'disabled'], 'pass'],
  ] as const)('%j -> %s (fail beats warn beats error beats pass beats skip beats disabled)', (statuses, expected) => {
    expect(
      mergeRequirement(statuses.map((s) => req('A', s, { reason: 'family not selected (--family)' }))).status,
    ).toBe(expected)
  })

  test('tests and evidence are gathered; audits summed; a pass beside a skip is partial with the reason', () => {
    const merged = mergeRequirement([
      req('A', 'pass', { tests: [{ name: 't1', file: 'f1', status: 'pass' }], audit: { checked: 3, failed: 0 } }),
      req('A', 'skip', {
        tests: [{ name: 't2', file: 'f2', status: 'skip' }],
        reason: 'no key for tier 5',
        audit: { checked: 2, failed: 0 },
      }),
    ])
    expect(merged).toMatchObject({
      status: 'pass',
      partial: true,
      reason: 'no key for tier 5',
      audit: { checked: 5, failed: 0 },
    })
    expect(merged.tests.map((t) => t.name)).toEqual(['t1', 't2'])
  })

  test('a requirement every shard left to the others was checked by none: skipped, "no test checks this requirement"', () => {
    const merged = mergeRequirement([
      req('A', 'disabled', { reason: `${SHARD_REASON} (--shard 1/2)` }),
      req('A', 'disabled', { reason: `${SHARD_REASON} (--shard 2/2)` }),
    ])
    expect(merged).toMatchObject({ status: 'skip', reason: 'no test checks this requirement' })
    // A real reason (the family was not selected) keeps it disabled.
    expect(
      mergeRequirement([
        req('A', 'disabled', { reason: `${SHARD_REASON} (--shard 1/2)` }),
        req('A', 'disabled', { reason: 'family not selected (--family)' }),
      ]),
    ).toMatchObject({ status: 'disabled', reason: 'family not selected (--family)' })
  })

  test('flaky only when every failing run says so; a known failure counts as the failure it was', () => {
    expect(mergeRequirement([req('A', 'fail', { flaky: true }), req('A', 'pass')]).flaky).toBe(true)
    expect(mergeRequirement([req('A', 'fail', { flaky: true }), req('A', 'fail')]).flaky).toBeUndefined()
    expect(
      mergeRequirement([
        req('A', 'known', { baseline: { state: 'known', reason: 'x', was: 'fail' } }),
        req('A', 'pass'),
      ]),
    ).toMatchObject({ status: 'fail' })
    expect(
      mergeRequirement([req('A', 'known', { baseline: { state: 'known', reason: 'x', was: 'fail' } })]).baseline,
    ).toBeUndefined()
  })
})

describe('summaries', () => {
  // Shard 1 has the models file (A fails, B passes, C passes), shard 2 the auth file (D passes, E skipped) and B again.
  const one = (): Summary =>
    run(
      [
        out('A', 'fail', 'm.test.ts', { message: 'Seen: 500' }),
        out('B', 'pass', 'm.test.ts'),
        out('C', 'pass', 'm.test.ts'),
      ],
      { shard: { index: 1, count: 2 } },
    )
  const two = (): Summary =>
    run(
      [
        out('D', 'pass', 'a.test.ts'),
        out('E', 'skip', 'a.test.ts', { message: 'no key' }),
        out('B', 'pass', 'a.test.ts'),
      ],
      { shard: { index: 2, count: 2 }, startedAt: '2026-11-21T10:02:00.000Z', finishedAt: '2026-11-21T10:03:00.000Z' },
    )

  test('requirements, counts and the verdict of the whole; the runs it came from', () => {
    const merged = mergeSummaries([input(one()), input(two())], 'merged-1')
    expect(Object.fromEntries(merged.requirements.map((r) => [r.id, r.status]))).toEqual({
      A: 'fail',
      B: 'pass',
      C: 'pass',
      D: 'pass',
      E: 'skip',
    })
    expect(merged.requirements.find((r) => r.id === 'B')?.tests).toHaveLength(2)
    expect(merged.verdict).toBe('non-conformant')
    expect(merged.exitCode).toBe(1)
    expect(merged.totals).toMatchObject({ fail: 1, pass: 3, skip: 1, disabled: 0 })
    expect(merged.tests).toEqual({ total: 6, passed: 4, failed: 1, skipped: 1 })
    expect(merged.selection.shard).toBeNull()
    expect(merged.mergedFrom?.map((m) => m.shard)).toEqual([
      { index: 1, count: 2 },
      { index: 2, count: 2 },
    ])
    expect(merged.observations).toHaveLength(1) // the same fact seen by both
    expect(merged.tiers.find((t) => t.tier === 2)).toEqual({ tier: 2, keyGiven: true, calls: 6 })
    expect(merged.tiers.find((t) => t.tier === 0)?.keyGiven).toBe(true)
    expect(merged.spend).toMatchObject({ estimatedUsd: 1, measuredUsd: 0.5 }) // one after the other: their spends add up
    expect(merged.durationMs).toBe(3 * 60_000)
  })

  test('runs that overlapped in time read the same credit: the measured spend is not summed', () => {
    const overlapping = run([out('D', 'pass', 'a.test.ts')], {
      shard: { index: 2, count: 2 },
      startedAt: '2026-11-21T10:00:30.000Z',
      finishedAt: '2026-11-21T10:02:00.000Z',
    })
    expect(mergeSummaries([input(one()), input(overlapping)], 'm').spend.measuredUsd).toBeNull()
  })

  test('the baseline is judged again on the whole: an entry one shard did not run is stale when another passed it', () => {
    const baseline: Baseline = {
      entries: [
        { id: 'A', reason: 'known' },
        { id: 'D', reason: 'fixed since' },
      ],
    }
    const s1 = run([out('A', 'fail', 'm.test.ts')], { shard: { index: 1, count: 2 }, baseline })
    const s2 = run(
      [
        out('D', 'pass', 'a.test.ts'),
        out('B', 'pass', 'a.test.ts'),
        out('C', 'pass', 'a.test.ts'),
        out('E', 'pass', 'a.test.ts'),
      ],
      { shard: { index: 2, count: 2 }, baseline },
    )
    expect(s1.baseline?.notRun).toEqual(['D'])
    expect(s1.verdict).toBe('conformant')
    const merged = mergeSummaries([input(s1), input(s2)], 'm')
    expect(merged.baseline).toMatchObject({ known: ['A'], stale: ['D'], notRun: [] })
    expect(merged.requirements.find((r) => r.id === 'A')).toMatchObject({ status: 'known' })
    expect(merged.verdict).toBe('stale-baseline')
    expect(merged.exitCode).toBe(1)
  })

  test('runs split by family (no shards) merge too: families united, each family judged by its own run', () => {
    const models = run([out('A', 'pass', 'm'), out('B', 'pass', 'm'), out('C', 'pass', 'm')], { families: ['models'] })
    const auth = run([out('D', 'pass', 'a'), out('E', 'pass', 'a')], { families: ['auth'] })
    const merged = mergeSummaries([input(models), input(auth)], 'm')
    expect(merged.selection.families).toEqual(['models', 'auth'])
    expect(merged.requirements.every((r) => r.status === 'pass')).toBe(true)
    expect(merged.verdict).toBe('conformant')
  })

  test('harness errors of a run are named by the run', () => {
    const broken = { ...two(), harnessErrors: ['a.test.ts: Error: boom'] }
    const merged = mergeSummaries([input(one(), 'r/1'), input(broken, 'r/2')], 'm')
    expect(merged.harnessErrors).toEqual(['shard 2/2 (r/2): a.test.ts: Error: boom'])
    expect(merged.verdict).toBe('error')
  })
})

describe('refused merges: one line each', () => {
  const shard = (index: number, count: number, over: Parameters<typeof run>[1] = {}): Summary =>
    run([out('A', 'pass', 'm')], { shard: { index, count }, ...over })

  test.each([
    ['no runs', () => [], /^merge needs at least one report folder/],
    [
      'different targets',
      () => [
        shard(1, 2, { baseUrl: 'https://a.example', embedded: false }),
        shard(2, 2, { baseUrl: 'https://b.example', embedded: false }),
      ],
      /^cannot merge runs with different targets: https:\/\/a\.example \(run-\d+\) and https:\/\/b\.example \(run-\d+\)$/,
    ],
    [
      'different as-of dates',
      () => [shard(1, 2), shard(2, 2, { asOf: '2026-01-02' })],
      /^cannot merge runs with different as-of dates: 2026-11-21 .* and 2026-01-02 /,
    ],
    [
      'different baselines',
      () => [shard(1, 2, { baseline: { entries: [{ id: 'A', reason: 'x' }] } }), shard(2, 2)],
      /^cannot merge runs with different baselines/,
    ],
    [
      'a repeated shard',
      () => [shard(1, 2), shard(1, 2), shard(2, 2)],
      /^shard 1\/2 is given twice \(run-\d+ and run-\d+\)$/,
    ],
    ['a missing shard', () => [shard(1, 3), shard(3, 3)], /^shard 2\/3 missing: merge every shard of the run$/],
    [
      'different shard counts',
      () => [shard(1, 2), shard(2, 3)],
      /^cannot merge runs with different shard counts: shard 1\/2 \(run-\d+\) and shard 2\/3 \(run-\d+\)$/,
    ],
    ['an incomplete set beside a whole run', () => [shard(1, 2), run([out('A', 'pass', 'm')])], /^shard 2\/2 missing/],
  ])('%s', (_what, make, pattern) => {
    expect(configErrorOf(() => checkMergeable(make().map((s) => input(s))))).toMatch(pattern)
  })

  test('the same run given twice', () => {
    const s = shard(1, 1)
    expect(configErrorOf(() => checkMergeable([input(s, 'reports/latest'), input(s, `reports/${s.runId}`)]))).toBe(
      `run ${s.runId} is given twice (reports/latest and reports/${s.runId})`,
    )
  })

  test('a whole run may join a complete set of shards (the tiers family in a job of its own)', () => {
    const tiers = run([out('D', 'pass', 'a')], { families: ['auth'] })
    const merged = mergeSummaries(
      [input(shard(1, 2, { families: ['models'] })), input(shard(2, 2, { families: ['models'] })), input(tiers)],
      'm',
    )
    expect(merged.requirements.find((r) => r.id === 'D')?.status).toBe('pass')
    expect(merged.mergedFrom?.map((m) => m.shard?.index ?? null)).toEqual([1, 2, null])
  })

  test('embedded gateways on different ports are the same target', () => {
    expect(() =>
      checkMergeable([
        input(shard(1, 2, { baseUrl: 'http://127.0.0.1:1111' })),
        input(shard(2, 2, { baseUrl: 'http://127.0.0.1:2222' })),
      ]),
    ).not.toThrow()
  })
})

describe('junit.xml and exchanges.har', () => {
  test('suites one after another, totals summed', () => {
    const a = renderJunit(
      [
        { name: '[A] t', file: 'm.test.ts', requirement: 'A', level: 'MUST', status: 'fail', message: 'Seen: 500' },
        { name: '[B] t', file: 'm.test.ts', requirement: 'B', level: 'MUST', status: 'pass' },
      ],
      [],
    )
    const b = renderJunit(
      [{ name: '[D] t', file: 'a.test.ts', requirement: 'D', level: 'MUST', status: 'error', message: 'boom' }],
      [],
    )
    const merged = mergeJunit([a, b])
    expect(merged).toMatch(
      /^<\?xml [^\n]*\n<testsuites name="gateway-conformance" tests="3" failures="1" errors="1">\n/,
    )
    expect(merged.match(/<testsuite /g)).toHaveLength(2)
    expect(merged.indexOf('m.test.ts')).toBeLessThan(merged.indexOf('a.test.ts'))
    expect(merged.trimEnd().endsWith('</testsuites>')).toBe(true)
    expect(merged.match(/<\/testsuites>/g)).toHaveLength(1)
  })

  test('HAR entries one after another under the first log head', () => {
    const har = (n: number): string =>
      JSON.stringify({
        log: {
          version: '1.2',
          creator: { name: 'gc', version: '1' },
          entries: Array.from({ length: n }, (_, k) => ({ k })),
        },
      })
    const merged = JSON.parse([...mergeHarChunks([() => har(2), () => har(0), () => har(3)])].join('')) as {
      log: { version: string; creator: unknown; entries: unknown[]; comment: string }
    }
    expect(merged.log.version).toBe('1.2')
    expect(merged.log.creator).toEqual({ name: 'gc', version: '1' })
    expect(merged.log.entries).toEqual([{ k: 0 }, { k: 1 }, { k: 0 }, { k: 1 }, { k: 2 }])
    expect(merged.log.comment).toBe('5 exchanges merged from 3 runs')
  })
})

describe('mergeRuns: the folders', () => {
  test('summary.json, summary.md, coverage.md, junit.xml and every allure result; a folder without a summary is one line', () => {
    const root = mkdtempSync(join(tmpdir(), 'gc-merge-'))
    try {
      const dirs = [1, 2].map((index) => {
        const dir = join(root, `shard-${index}`)
        mkdirSync(join(dir, 'allure-results'), { recursive: true })
        writeFileSync(
          join(dir, 'summary.json'),
          JSON.stringify(run([out(index === 1 ? 'A' : 'D', 'pass', 'f')], { shard: { index, count: 2 } })),
        )
        writeFileSync(
          join(dir, 'junit.xml'),
          renderJunit([{ name: 't', file: `f${index}`, requirement: 'A', level: 'MUST', status: 'pass' }], []),
        )
        writeFileSync(join(dir, 'allure-results', `${index}-result.json`), '{}')
        writeFileSync(join(dir, 'allure-results', 'environment.properties'), `shard=${index}`)
        return dir
      })
      const into = join(root, 'merged')
      const { summary, allureFiles } = mergeRuns(dirs, into, 'merged-run')
      expect(summary.runId).toBe('merged-run')
      expect(JSON.parse(readFileSync(join(into, 'summary.json'), 'utf8')).mergedFrom).toHaveLength(2)
      expect(readFileSync(join(into, 'summary.md'), 'utf8')).toMatch(/^# Gateway conformance: /)
      expect(readFileSync(join(into, 'coverage.md'), 'utf8')).toContain('| A |')
      expect(readFileSync(join(into, 'junit.xml'), 'utf8')).toContain('tests="2"')
      expect(allureFiles).toBe(4)
      // Two runs' files of the same name are both kept.
      expect(readdirSync(join(into, 'allure-results')).sort()).toEqual([
        '1-result.json',
        '2-environment.properties',
        '2-result.json',
        'environment.properties',
      ])
      expect(existsSync(join(into, 'exchanges.har'))).toBe(false)
      expect(configErrorOf(() => mergeRuns([dirs[0] as string, root], join(root, 'again'), 'x'))).toBe(
        `${root}: no summary.json (give a run's report folder, e.g. reports/<run-id>)`,
      )
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
