/**
 * What a run writes beside junit.xml, from hand-made results: summary.json against its published schema,
 * summary.md (docs/reports.md), coverage.md, exchanges.har (HAR 1.2), and the catalogue's
 * `untestable` marker. The end-to-end runs of test/cli validate real runs' files with the same checks.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { loadRequirements, uncheckedMust, type Requirement } from '../../../harness/requirements.ts'
import type { ExchangeExcerpt } from '../../../harness/exchange.ts'
import { Redactor } from '../../../harness/redact.ts'
import { aggregate, countByFamily, EXIT, totals, verdictOf, type Outcome } from '../../../harness/report/results.ts'
import { renderCoverage } from '../../../harness/report/coverage.ts'
import { harChunks, pickEntries, writeHar, type HarEntry, type HarSource } from '../../../harness/report/har.ts'
import { renderMarkdown, tiersLine } from '../../../harness/report/markdown.ts'
import { SUMMARY_SCHEMA_VERSION, tierUse, type Summary } from '../../../harness/report/summary.ts'
import { harProblems, summaryProblems } from './run-report-checks.ts'

const KEY = 'sk-test-0123456789abcdef-secret'
const scratch = mkdtempSync(join(tmpdir(), 'gc-reports-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const REQUIREMENTS: Requirement[] = [
  {
    id: 'P1-4.1-alpha',
    part: 1,
    section: '4.1',
    family: 'headers',
    level: 'MUST',
    kind: 'shape',
    rule: 'Every response carries the alpha header.',
  },
  {
    id: 'P1-4.2-beta',
    part: 1,
    section: '4.2',
    family: 'headers',
    level: 'MUST',
    kind: 'shape',
    rule: 'A bad key is refused with 401 and the error body.',
  },
  {
    id: 'P1-4.3-gamma',
    part: 1,
    section: '4.3',
    family: 'models',
    level: 'MUST',
    kind: 'shape',
    rule: 'The model list names every mode of the catalogue.',
  },
  {
    id: 'P1-4.4-delta',
    part: 1,
    section: '4.4',
    family: 'models',
    level: 'MUST',
    kind: 'shape',
    rule: 'The batch object has the shape of section 4.4.',
    untestable: 'the reference does not show the batch object',
  },
  {
    id: 'P2-3.1-epsilon',
    part: 2,
    section: '3.1',
    family: 'videos',
    level: 'MUST',
    kind: 'shape',
    rule: 'A tier-3 account may create ten jobs at once.',
  },
  {
    id: 'P2-3.2-zeta',
    part: 2,
    section: '3.2',
    family: 'videos',
    level: 'SHOULD',
    kind: 'shape',
    rule: 'A queued job reaches processing within a minute.',
    why: 'inferred',
  },
]

function exchange(over: Partial<ExchangeExcerpt> = {}): ExchangeExcerpt {
  return {
    seq: 1,
    method: 'GET',
    url: 'http://127.0.0.1:9/v1/models?limit=2',
    path: '/v1/models?limit=2',
    key: 'main',
    auth: 'bearer',
    requestHeaders: { authorization: 'Bearer <GATEWAY_API_KEY>', accept: 'application/json' },
    startedAt: Date.parse('2026-11-21T10:00:00Z'),
    durationMs: 12,
    attempt: 1,
    status: 200,
    responseHeaders: { 'content-type': 'application/json', 'svc-request-id': '01a1ff97-29d6-7317-9525-90322f4c4425' },
    body: '{"data":[]}',
    bodyBytes: 11,
    ...over,
  }
}

const FAILING = exchange({
  seq: 2,
  method: 'POST',
  status: 200,
  url: 'http://127.0.0.1:9/v1/files',
  path: '/v1/files',
  requestBody: '{"a":1}',
  requestHeaders: { 'content-type': 'application/json', 'x-api-key': 'gc-invalid-key-1' },
  key: 'invalid',
  auth: 'x-api-key',
})

const OUTCOMES: Outcome[] = [
  {
    requirement: 'P1-4.1-alpha',
    status: 'pass',
    test: '[P1-4.1-alpha] the header is there',
    file: 'suites/headers/a.test.ts',
    source: 'test',
  },
  {
    requirement: 'P1-4.2-beta',
    status: 'fail',
    test: '[P1-4.2-beta] a bad key is refused',
    file: 'suites/auth/b.test.ts',
    source: 'test',
    exchange: FAILING,
    message:
      'P1-4.2-beta · MUST · Part 1 §4.2\nRule: …\nExpected: status 401\nSeen: status 200\nExchange: POST /v1/files',
  },
  {
    requirement: 'P2-3.1-epsilon',
    status: 'skip',
    test: '[P2-3.1-epsilon] ten jobs',
    file: 'suites/videos/c.test.ts',
    source: 'test',
    message: 'no key for tier 3: set GATEWAY_API_KEY_TIER3',
  },
  {
    requirement: 'P2-3.2-zeta',
    status: 'pass',
    test: '[P2-3.2-zeta] processing',
    file: 'suites/videos/c.test.ts',
    source: 'test',
  },
]

function makeSummary(): Summary {
  const results = aggregate({ requirements: REQUIREMENTS, outcomes: OUTCOMES, selectedFamilies: null, filtered: false })
  const verdict = verdictOf(results, 0)
  return {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    runId: '20261121-100000-abcd',
    tool: { name: 'gateway-conformance', version: '9.8.7' },
    startedAt: '2026-11-21T10:00:00.000Z',
    finishedAt: '2026-11-21T10:01:30.000Z',
    durationMs: 90_000,
    target: { baseUrl: 'http://127.0.0.1:9', embedded: false },
    asOf: '2026-11-21',
    tiers: tierUse({ main: KEY, tier2: 'k2' }, [
      exchange({ key: 'tier2' }),
      exchange({ key: 'tier2' }),
      exchange({ key: 'main' }),
    ]),
    budgetUsd: 1,
    selection: { families: null, grep: null, filters: [] },
    verdict,
    exitCode: EXIT[verdict],
    totals: totals(results),
    families: Object.fromEntries(countByFamily(results)),
    tests: { total: 4, passed: 2, failed: 1, skipped: 1 },
    requirements: results,
    uncheckedMust: ['P1-4.3-gamma'],
    observations: [{ test: 't', topic: 'batch shape', detail: 'seen: {}' }],
    retries: [{ test: 't', method: 'GET', path: '/v1/models', attempt: 2, status: 429 }],
    pacing: [{ test: 't', method: 'GET', path: '/v1/models', waitedMs: 120 }],
    harnessErrors: [],
    spend: {
      budgetUsd: 1,
      estimatedUsd: 0.0042,
      measuredUsd: null,
      items: [{ test: 't', usd: 0.0042, what: 'one response' }],
    },
  }
}

describe('summary.json and its published schema (schemas/report/summary.schema.json)', () => {
  test('a summary assembled from aggregated results is valid, evidence exchange included', () => {
    const summary = makeSummary()
    expect(summary.requirements.find((r) => r.id === 'P1-4.2-beta')?.evidence[0]?.exchange).toBeDefined()
    expect(summaryProblems(JSON.parse(JSON.stringify(summary)))).toEqual([])
  })

  test('the schema pins the version the code writes', () => {
    const schema = JSON.parse(
      readFileSync(new URL('../../../schemas/report/summary.schema.json', import.meta.url), 'utf8'),
    ) as { properties: { schemaVersion: { const: number } } }
    expect(schema.properties.schemaVersion.const).toBe(SUMMARY_SCHEMA_VERSION)
  })

  // A JSON copy of a summary, broken on purpose: what the type forbids is written with Object.assign and Reflect.
  const breaks: Array<[string, (s: Summary) => void, RegExp]> = [
    [
      'a property the schema does not name',
      (s) => Object.assign(s, { shard: 1 }),
      /^\/: must NOT have additional properties \(shard\)/,
    ],
    ['a missing field', (s) => Reflect.deleteProperty(s, 'tiers'), /must have required property 'tiers'/],
    [
      'an unknown verdict',
      (s) => Object.assign(s, { verdict: 'ok' }),
      /^\/verdict: must be equal to one of the allowed values/,
    ],
    [
      'an unknown requirement status',
      (s) => Object.assign(s.requirements[0]!, { status: 'passed' }),
      /^\/requirements\/0\/status:/,
    ],
    [
      'counts without a status',
      (s) => Reflect.deleteProperty(s.totals, 'pass'),
      /^\/totals: must have required property 'pass'/,
    ],
    [
      'an exchange with a field the excerpt does not have',
      (s) => Object.assign(s.requirements[1]!.evidence[0]!.exchange!, { apiKey: KEY }),
      /^\/requirements\/1\/evidence\/0\/exchange: must NOT have additional properties \(apiKey\)/,
    ],
    [
      'an as-of date that is not a date',
      (s) => {
        s.asOf = '21/11/2026'
      },
      /^\/asOf: must match format "date"/,
    ],
    ['tiers other than 0 to 5', (s) => s.tiers.pop(), /^\/tiers: must NOT have fewer than 6 items/],
  ]
  test.each(breaks)('%s is caught', (_name, mutate, problem) => {
    const summary = JSON.parse(JSON.stringify(makeSummary())) as Summary
    mutate(summary)
    const problems = summaryProblems(summary)
    expect(
      problems.some((p) => problem.test(p)),
      problems.join('\n'),
    ).toBe(true)
  })
})

describe('summary.md: what a person reads on the CI job page', () => {
  const md = renderMarkdown(makeSummary())
  const lines = md.split('\n')

  test('the verdict comes first, then target, as-of date, tiers, package version and time', () => {
    expect(lines[0]).toBe('# Gateway conformance: NOT CONFORMANT: at least one MUST requirement failed (exit 1)')
    const head = lines.slice(1, 12).join('\n')
    expect(head).toContain('- target: http://127.0.0.1:9\n')
    expect(head).toContain('- as-of date: 2026-11-21')
    expect(head).toContain('- tiers tested: 2 (2 calls with tier keys); no key for 0, 1, 3, 4, 5')
    expect(head).toContain('- package: gateway-conformance 9.8.7')
    expect(head).toContain('- time: 2026-11-21T10:00:00.000Z to 2026-11-21T10:01:30.000Z (90.0 s)')
    expect(head).toMatch(/- spend: estimated \$0\.0042 in 1 billable calls, budget \$1\.00/)
  })

  test('a table per family, with totals', () => {
    expect(md).toContain('| headers | 1 | 1 | 0 | 0 | 0 | 0 | 0 |')
    expect(md).toContain('| models | 0 | 0 | 0 | 1 | 0 | 1 | 0 |')
    expect(md).toContain('| **all** | **2** | **1** | **0** | **2** | **0** | **1** | **0** |')
  })

  test('failures name requirement, rule and a one-line reason; skipped MUSTs give their reasons', () => {
    const failures = md.slice(md.indexOf('## Failures'), md.indexOf('## Skipped MUST'))
    expect(failures).toContain(
      '| P1-4.2-beta | MUST | Part 1 §4.2 | A bad key is refused with 401 and the error body. | Seen: status 200 |',
    )
    const skipped = md.slice(md.indexOf('## Skipped MUST'))
    expect(skipped).toContain(
      '| P1-4.3-gamma | MUST | Part 1 §4.3 | The model list names every mode of the catalogue. | no test checks this requirement |',
    )
    expect(skipped).toContain(
      '| P2-3.1-epsilon | MUST | Part 2 §3.1 | A tier-3 account may create ten jobs at once. | no key for tier 3: set GATEWAY_API_KEY_TIER3 |',
    )
    expect(skipped.split('\n## ')[0]).not.toContain('P1-4.4-delta') // untestable: not skipped
  })

  test.each([
    [
      [0, 0, 0, 0, 0, 0],
      [false, false, true, false, false, false],
      'none; key given but not used: 2; no key for 0, 1, 3, 4, 5 (their checks are skipped)',
    ],
    [[1, 2, 3, 4, 5, 6], [true, true, true, true, true, true], '0, 1, 2, 3, 4, 5 (21 calls with tier keys)'],
  ])('tiers line for calls %j', (calls, given, line) => {
    expect(tiersLine(calls.map((n, tier) => ({ tier, keyGiven: given[tier] as boolean, calls: n })))).toBe(line)
  })
})

describe('coverage.md: every requirement, its level, the tests that check it and their result', () => {
  const untestable = (id: string): string | undefined => REQUIREMENTS.find((r) => r.id === id)?.untestable
  const md = renderCoverage(makeSummary(), untestable)

  test('MUST requirements without a test come first; untestable ones are apart, with the reason', () => {
    const missingAt = md.indexOf('## MUST requirements without a test (1)')
    expect(missingAt).toBeGreaterThan(0)
    expect(md.indexOf('| P1-4.3-gamma | Part 1 §4.3 | models |')).toBeGreaterThan(missingAt)
    expect(md.indexOf('| P1-4.3-gamma | Part 1 §4.3 | models |')).toBeLessThan(md.indexOf('## Untestable'))
    expect(md).toContain('| P1-4.4-delta | MUST | Part 1 §4.4 | the reference does not show the batch object |')
    expect(md.indexOf('## Untestable')).toBeLessThan(md.indexOf('## Every requirement'))
  })

  test('each requirement row names its tests and their results', () => {
    const row = (id: string): string =>
      md.split('\n').find((l) => l.startsWith(`| ${id} |`) && l.includes('Part') && l.split('|').length > 6) ?? ''
    expect(row('P1-4.1-alpha')).toBe(
      '| P1-4.1-alpha | MUST | Part 1 §4.1 | pass | suites/headers/a.test.ts › [P1-4.1-alpha] the header is there: **pass** |',
    )
    expect(row('P1-4.2-beta')).toContain('[P1-4.2-beta] a bad key is refused: **fail**')
    expect(row('P2-3.1-epsilon')).toContain(
      '| skip | suites/videos/c.test.ts › [P2-3.1-epsilon] ten jobs: **skipped** |',
    )
    expect(row('P1-4.3-gamma')).toContain('| skip | **no test** |')
    expect(row('P1-4.4-delta')).toContain(
      '| disabled | not run: untestable: the reference does not show the batch object |',
    )
  })

  test('with nothing missing it says so', () => {
    const summary = makeSummary()
    summary.requirements = summary.requirements.filter((r) => r.id !== 'P1-4.3-gamma')
    expect(renderCoverage(summary, untestable)).toContain('## MUST requirements without a test (0)\n\nNone:')
  })
})

describe('exchanges.har (HAR 1.2)', () => {
  const big = 'x'.repeat(2000)
  const sources: HarSource[] = [
    {
      test: '[P1-4.1-alpha] the header is there',
      file: 'suites/headers/a.test.ts',
      requirement: 'P1-4.1-alpha',
      outcome: 'pass',
      exchanges: [
        exchange({
          seq: 3,
          startedAt: Date.parse('2026-11-21T10:00:02Z'),
          body: `${big}… [500 more characters]`,
          bodyBytes: 2500,
          bodyTruncated: true,
        }),
        // A body that echoed a key past redaction at the source: the writer's last pass must still remove it.
        exchange({ seq: 4, startedAt: Date.parse('2026-11-21T10:00:03Z'), body: `{"echo":"${KEY}"}` }),
      ],
    },
    {
      test: '[P1-4.2-beta] a bad key is refused',
      file: 'suites/auth/b.test.ts',
      requirement: 'P1-4.2-beta',
      outcome: 'fail',
      exchanges: [FAILING],
    },
    {
      test: 'suites/videos/c.test.ts (after all tests)',
      file: 'suites/videos/c.test.ts',
      exchanges: [
        exchange({
          seq: 5,
          startedAt: Date.parse('2026-11-21T10:00:04Z'),
          responseHeaders: { 'content-type': 'video/mp4' },
          body: '[4096 bytes of video/mp4; first bytes 0000001c66747970]',
          bodyBytes: 4096,
        }),
        exchange({
          seq: 6,
          startedAt: Date.parse('2026-11-21T10:00:05Z'),
          status: undefined,
          responseHeaders: undefined,
          body: undefined,
          bodyBytes: undefined,
          error: 'no complete response within 100 ms',
        }),
      ],
    },
  ]
  const path = join(scratch, 'exchanges.har')
  const redactor = new Redactor({ main: KEY })
  writeHar(path, sources, { creator: { name: 'gateway-conformance', version: '9.8.7' } }, (t) => redactor.text(t))
  const text = readFileSync(path, 'utf8')
  const har = JSON.parse(text) as { log: { creator: unknown; comment: string; entries: HarEntry[] } }
  const entries = har.log.entries

  test('is HAR 1.2 with every exchange, in time order, and no key', () => {
    expect(harProblems(har)).toEqual([])
    expect(har.log.creator).toEqual({ name: 'gateway-conformance', version: '9.8.7' })
    expect(entries.map((e) => e.startedDateTime)).toEqual([...entries.map((e) => e.startedDateTime)].sort())
    expect(entries).toHaveLength(5)
    expect(text).not.toContain(KEY)
    expect(text).toContain('<GATEWAY_API_KEY>')
  })

  test('each entry names its test and requirement; calls outside tests have none', () => {
    const failing = entries.find((e) => e.request.method === 'POST')!
    expect([failing._requirement, failing._test, failing._outcome]).toEqual([
      'P1-4.2-beta',
      '[P1-4.2-beta] a bad key is refused',
      'fail',
    ])
    expect(failing.request.postData).toEqual({ mimeType: 'application/json', text: '{"a":1}' })
    expect(failing.request.bodySize).toBe(7)
    expect(entries.at(-1)?._requirement).toBeNull()
    expect(entries.find((e) => e._test.includes('alpha'))?.request.queryString).toEqual([{ name: 'limit', value: '2' }])
  })

  test('a cut body keeps its full size and says it was cut; binary bodies and lost answers are described', () => {
    const cut = entries.find((e) => e.response.content.size === 2500)!
    expect(cut.response.content.comment).toBe('truncated: the first 2000 characters of 2500 bytes')
    const binary = entries.find((e) => e.response.content.mimeType === 'video/mp4')!
    expect(binary.response.content.text).toBeUndefined()
    expect(binary.response.content.comment).toMatch(/^binary body not kept: \[4096 bytes of video\/mp4/)
    const lost = entries.at(-1)!
    expect([lost.response.status, lost._error]).toEqual([0, 'no complete response within 100 ms'])
  })

  test('past the cap, failing tests keep every exchange, the others an equal share, and the log says so', () => {
    const capped = JSON.parse(
      [...harChunks(sources, { creator: { name: 'n', version: 'v' }, maxEntries: 3 })].join(''),
    ) as typeof har
    expect(capped.log.entries.filter((e) => e._outcome === 'fail')).toHaveLength(1)
    expect(new Set(capped.log.entries.map((e) => e._test)).size).toBe(3) // no test disappears
    expect(capped.log.entries).toHaveLength(3)
    expect(capped.log.comment).toMatch(
      /^5 exchanges in the run; 3 kept \(the cap is 3\): every exchange of failing tests, and of each other test at most 1,/,
    )
    expect(harProblems(capped)).toEqual([])
  })

  test('a burst cut to its share keeps its first and last calls', () => {
    const burst = Array.from({ length: 100 }, (_, i) => exchange({ seq: i + 1, startedAt: 1_000 + i }))
    const small = [exchange({ seq: 200, startedAt: 5_000 })]
    const { picked, share } = pickEntries(
      [
        { test: 'burst', file: 'f', outcome: 'pass', exchanges: burst },
        { test: 'small', file: 'f', outcome: 'pass', exchanges: small },
      ],
      11,
    )
    expect(share).toBe(10)
    expect(picked.filter((p) => p.source.test === 'burst').map((p) => p.ex.seq)).toEqual([
      1, 2, 3, 4, 5, 96, 97, 98, 99, 100,
    ])
    expect(picked.some((p) => p.source.test === 'small')).toBe(true)
  })

  test.each([
    [
      'a response without status',
      (h: typeof har) => Reflect.deleteProperty(h.log.entries[0]!.response, 'status'),
      /must have required property 'status'/,
    ],
    [
      'a custom field without an underscore',
      (h: typeof har) => Object.assign(h.log.entries[0]!, { requirement: 'x' }),
      /property name must be valid/,
    ],
    [
      'another HAR version',
      (h: typeof har) => ((h.log as Record<string, unknown>).version = '1.1'),
      /^\/log\/version: must be equal to constant/,
    ],
  ])('the HAR check catches %s', (_name, mutate, problem) => {
    const broken = JSON.parse(text) as typeof har
    mutate(broken)
    expect(harProblems(broken).some((p) => problem.test(p))).toBe(true)
  })
})

describe('untestable requirements (schemas/requirements.json)', () => {
  test('a MUST without a test is unchecked unless marked untestable; SHOULDs are not counted', () => {
    const checked = new Set(['P1-4.1-alpha', 'P1-4.2-beta'])
    expect(uncheckedMust(REQUIREMENTS, (id) => checked.has(id)).map((r) => r.id)).toEqual([
      'P1-4.3-gamma',
      'P2-3.1-epsilon',
    ])
  })

  test('an untestable MUST with no test neither fails nor leaves the run incomplete', () => {
    const results = aggregate({
      requirements: REQUIREMENTS.filter((r) => r.id === 'P1-4.4-delta'),
      outcomes: [],
      selectedFamilies: null,
      filtered: false,
    })
    expect([results[0]?.status, results[0]?.reason]).toEqual([
      'disabled',
      'untestable: the reference does not show the batch object',
    ])
    expect(verdictOf(results, 0)).toBe('conformant')
  })

  test('the catalogue refuses an untestable mark without a reason', () => {
    const path = join(scratch, 'requirements.json')
    writeFileSync(path, JSON.stringify({ requirements: [{ ...REQUIREMENTS[0], untestable: '' }] }))
    expect(() => loadRequirements(path)).toThrow(/"untestable" must give the reason/)
    writeFileSync(path, JSON.stringify({ requirements: [REQUIREMENTS[3]] }))
    expect(loadRequirements(path).get('P1-4.4-delta')?.untestable).toBe('the reference does not show the batch object')
  })
})
