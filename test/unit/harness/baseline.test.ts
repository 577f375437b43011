/** Baselines (harness/report/baseline.ts): the file's validation, how a run is judged with one, and how one is written. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  baselineConsole,
  baselineJunit,
  checkBaselineTarget,
  judgeBaseline,
  parseBaseline,
  readBaseline,
  renderBaseline,
  settleBaseline,
  targetName,
  updateBaseline,
  type Baseline,
} from '../../../harness/report/baseline.ts'
import type { Requirement } from '../../../harness/requirements.ts'
import type { JunitCase } from '../../../harness/report/junit.ts'
import {
  aggregate,
  EXIT,
  totals,
  verdictOf,
  type Outcome,
  type OutcomeStatus,
} from '../../../harness/report/results.ts'
import { configErrorOf } from '../../support/config-error.ts'

const REQUIREMENTS: Requirement[] = [
  {
    id: 'M-fail',
    part: 1,
    section: '2.3',
    family: 'models',
    level: 'MUST',
    kind: 'shape',
    rule: 'mode is one of eleven values',
  },
  {
    id: 'M-pass',
    part: 1,
    section: '2.3',
    family: 'models',
    level: 'MUST',
    kind: 'shape',
    rule: 'list items have owned_by',
  },
  { id: 'S-warn', part: 1, section: '4.3', family: 'models', level: 'SHOULD', kind: 'shape', rule: 'cursors page' },
  { id: 'M-skip', part: 1, section: '8', family: 'models', level: 'MUST', kind: 'shape', rule: 'tier 5 limits' },
  { id: 'M-other', part: 2, section: '2.1', family: 'videos', level: 'MUST', kind: 'shape', rule: 'a job object' },
  { id: 'M-new', part: 1, section: '7', family: 'models', level: 'MUST', kind: 'shape', rule: 'unknown model is 404' },
]
const KNOWN_IDS = new Set(REQUIREMENTS.map((r) => r.id))
const isRequirement = (id: string): boolean => KNOWN_IDS.has(id)

function out(requirement: string, status: OutcomeStatus, message?: string): Outcome {
  return {
    requirement,
    status,
    test: `[${requirement}] t`,
    file: 'suites/models/m.test.ts',
    source: 'test',
    ...(message ? { message } : {}),
  }
}

/** One models run: M-fail and M-new fail, S-warn warns, M-pass passes, M-skip is skipped, videos not selected. */
function results(): ReturnType<typeof aggregate> {
  return aggregate({
    requirements: REQUIREMENTS,
    outcomes: [
      out('M-fail', 'fail', 'M-fail · MUST\nSeen: /data/1/mode: "text-generation"'),
      out('M-pass', 'pass'),
      out('S-warn', 'fail', 'Seen: no cursor'),
      out('M-skip', 'skip', 'no key for tier 5'),
      out('M-new', 'fail', 'Seen: status 500'),
    ],
    selectedFamilies: ['models'],
    filtered: false,
  })
}

describe('the baseline file', () => {
  test('a valid file: entries with reasons, an optional target and $schema', () => {
    const text = JSON.stringify({
      $schema: './baseline.schema.json',
      target: 'https://gw.example.com',
      entries: [{ id: 'M-fail', reason: '  mode text-generation  ' }],
    })
    expect(parseBaseline(text, 'b.json', isRequirement)).toEqual({
      target: 'https://gw.example.com',
      entries: [{ id: 'M-fail', reason: 'mode text-generation' }],
    })
  })

  test.each([
    ['{ "entries": [', /^baseline b\.json: not JSON \(/],
    ['[]', /^baseline b\.json: must be an object with "entries"/],
    ['{ "entries": {} }', /^baseline b\.json: must be an object with "entries"/],
    [
      '{ "entries": [], "known": [] }',
      /^baseline b\.json: unknown property "known" \(allowed: \$schema, target, entries\)$/,
    ],
    ['{ "target": 3, "entries": [] }', /^baseline b\.json: "target" must be a non-empty string/],
    ['{ "entries": ["M-fail"] }', /^baseline b\.json: entries\[0\] must be an object/],
    [
      '{ "entries": [{ "id": "M-fail", "reason": "x", "since": "2026" }] }',
      /^baseline b\.json: entries\[0\] has unknown property "since" \(allowed: id, reason\)$/,
    ],
    ['{ "entries": [{ "reason": "x" }] }', /^baseline b\.json: entries\[0\]\.id must be a requirement id$/],
    [
      '{ "entries": [{ "id": "P9-nope", "reason": "x" }] }',
      /^baseline b\.json: entries\[0\]\.id "P9-nope" is not a requirement in schemas\/requirements\.json$/,
    ],
    [
      '{ "entries": [{ "id": "M-fail", "reason": " " }] }',
      /^baseline b\.json: entries\[0\]\.reason must say why M-fail fails on this target$/,
    ],
    [
      '{ "entries": [{ "id": "M-fail", "reason": "a" }, { "id": "M-fail", "reason": "b" }] }',
      /^baseline b\.json: M-fail is listed twice \(entries\[0\] and entries\[1\]\)$/,
    ],
  ])('%s is refused in one line', (text, pattern) => {
    expect(configErrorOf(() => parseBaseline(text, 'b.json', isRequirement))).toMatch(pattern)
  })

  test('a missing file is an error, unless the run is about to write it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-baseline-'))
    try {
      const file = join(dir, 'none.json')
      expect(configErrorOf(() => readBaseline(file, isRequirement, false))).toMatch(
        /does not exist; write one with --update-baseline$/,
      )
      expect(readBaseline(file, isRequirement, true)).toBeNull()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a file written for another target is refused; one without a target fits any', () => {
    expect(
      configErrorOf(() =>
        checkBaselineTarget({ target: 'https://a.example', entries: [] }, 'b.json', 'https://b.example'),
      ),
    ).toMatch(/^baseline b\.json is for target https:\/\/a\.example, not https:\/\/b\.example; drop its "target"/)
    expect(() => checkBaselineTarget({ target: 'embedded', entries: [] }, 'b.json', 'embedded')).not.toThrow()
    expect(() => checkBaselineTarget({ entries: [] }, 'b.json', 'https://b.example')).not.toThrow()
    // An embedded gateway has a new port each run: one name for all of them.
    expect(targetName({ baseUrl: 'http://127.0.0.1:41234', embedded: true })).toBe('embedded')
    expect(targetName({ baseUrl: 'https://gw.example.com', embedded: false })).toBe('https://gw.example.com')
  })
})

describe('judging a run with a baseline', () => {
  const baseline: Baseline = {
    entries: [
      { id: 'M-fail', reason: 'known bug' },
      { id: 'S-warn', reason: 'no cursors' },
      { id: 'M-pass', reason: 'was broken' },
      { id: 'M-skip', reason: 'no tier 5' },
      { id: 'M-other', reason: 'no videos' },
    ],
  }

  test('a listed fail or warn is known, a listed pass is stale, a skip or an unselected family is not run', () => {
    const judged = new Map(judgeBaseline(results(), baseline).map((r) => [r.id, r]))
    expect(judged.get('M-fail')).toMatchObject({
      status: 'known',
      baseline: { state: 'known', reason: 'known bug', was: 'fail' },
    })
    expect(judged.get('S-warn')).toMatchObject({ status: 'known', baseline: { state: 'known', was: 'warn' } })
    expect(judged.get('M-pass')).toMatchObject({ status: 'pass', baseline: { state: 'stale', reason: 'was broken' } })
    expect(judged.get('M-skip')).toMatchObject({ status: 'skip', baseline: { state: 'not-run' } })
    expect(judged.get('M-other')).toMatchObject({ status: 'disabled', baseline: { state: 'not-run' } })
    expect(judged.get('M-new')).toMatchObject({ status: 'fail' })
    expect(judged.get('M-new')?.baseline).toBeUndefined()
  })

  test('verdicts: an unlisted MUST failure fails the run; known failures alone do not; a stale entry does (exit 1)', () => {
    const onlyKnown: Baseline = {
      entries: [
        { id: 'M-fail', reason: 'a' },
        { id: 'M-new', reason: 'b' },
      ],
    }
    const known = judgeBaseline(results(), onlyKnown)
    // M-skip is a skipped MUST: incomplete, not failing.
    expect(verdictOf(known, 0)).toBe('incomplete')
    expect(totals(known)).toMatchObject({ known: 2, fail: 0, warn: 1 })
    expect(verdictOf(judgeBaseline(results(), { entries: [{ id: 'M-fail', reason: 'a' }] }), 0)).toBe('non-conformant')
    const stale = judgeBaseline(results(), { entries: [...onlyKnown.entries, { id: 'M-pass', reason: 'c' }] })
    expect(verdictOf(stale, 0)).toBe('stale-baseline')
    expect(EXIT['stale-baseline']).toBe(1)
    // A harness error still wins over everything.
    expect(verdictOf(stale, 1)).toBe('error')
  })

  test('judging again (a merge) starts from the status before the baseline', () => {
    const once = judgeBaseline(results(), baseline)
    const again = judgeBaseline(once, { entries: [] })
    expect(again.find((r) => r.id === 'M-fail')).toMatchObject({ status: 'fail' })
    expect(again.find((r) => r.id === 'S-warn')).toMatchObject({ status: 'warn' })
    expect(again.every((r) => r.baseline === undefined)).toBe(true)
  })

  test('the summary lists known, stale and not run; the console names each known and stale id', () => {
    const settled = settleBaseline(results(), { file: 'b.json', baseline, update: false }, 'embedded', '2026-11-21')
    expect(settled.summary).toMatchObject({
      file: 'b.json',
      target: null,
      known: ['M-fail', 'S-warn'],
      stale: ['M-pass'],
      notRun: ['M-skip', 'M-other'],
    })
    expect(settled.written).toBeUndefined()
    const text = baselineConsole(settled.summary, settled.results)
    expect(text).toMatch(/^Baseline b\.json: 2 known failures, 1 stale, 2 not run/)
    expect(text).toContain('KNOWN M-fail: known failure (baseline): known bug')
    expect(text).toContain('STALE M-pass: passes now; remove it from the baseline')
    expect(settleBaseline(results(), undefined, 'embedded', '2026-11-21')).toMatchObject({ summary: null })
  })

  test('JUnit: a known failure is a skipped case that says why, other cases are untouched', () => {
    const judged = judgeBaseline(results(), baseline)
    const cases: JunitCase[] = [
      {
        name: '[M-fail] t',
        file: 'f',
        requirement: 'M-fail',
        level: 'MUST',
        status: 'fail',
        message: 'M-fail · MUST\nSeen: /data/1/mode: "x"\nExchange: ...',
      },
      {
        name: '[M-new] t',
        file: 'f',
        requirement: 'M-new',
        level: 'MUST',
        status: 'fail',
        message: 'Seen: status 500',
      },
      { name: '[M-pass] t', file: 'f', requirement: 'M-pass', level: 'MUST', status: 'pass' },
    ]
    const mapped = baselineJunit(cases, judged)
    expect(mapped[0]).toMatchObject({
      status: 'skip',
      message: 'known failure (baseline): known bug (Seen: /data/1/mode: "x")',
    })
    expect(mapped.slice(1)).toEqual(cases.slice(1))
  })
})

describe('--update-baseline', () => {
  test('adds failing MUSTs with what was seen, keeps listed reasons and what was not run, drops passes and unknown ids', () => {
    const previous: Baseline = {
      target: 'https://gw.example.com',
      entries: [
        { id: 'M-fail', reason: 'kept reason' },
        { id: 'M-pass', reason: 'fixed since' },
        { id: 'M-other', reason: 'no videos' },
        { id: 'S-warn', reason: 'no cursors' },
        { id: 'P9-gone', reason: 'renamed' },
      ],
    }
    const { baseline, added, removed } = updateBaseline(results(), previous, 'https://gw.example.com', '2026-11-21')
    expect(baseline.target).toBe('https://gw.example.com')
    expect(Object.fromEntries(baseline.entries.map((e) => [e.id, e.reason]))).toEqual({
      'M-fail': 'kept reason',
      'S-warn': 'no cursors', // a listed SHOULD that still warns stays
      'M-other': 'no videos', // not run here: another run may still need it
      'M-new': 'failing as of 2026-11-21: status 500',
    })
    expect(added).toEqual(['M-new'])
    expect(removed).toEqual(['M-pass', 'P9-gone'])
  })

  test('a first baseline holds the failing MUSTs only (a SHOULD warning does not fail a run) and the run target', () => {
    const { baseline } = updateBaseline(results(), null, 'embedded', '2026-11-21')
    expect(baseline).toEqual({
      target: 'embedded',
      entries: [
        { id: 'M-fail', reason: 'failing as of 2026-11-21: /data/1/mode: "text-generation"' },
        { id: 'M-new', reason: 'failing as of 2026-11-21: status 500' },
      ],
    })
  })

  test('the run is judged with the file it writes: known failures, nothing stale', () => {
    const settled = settleBaseline(
      results(),
      { file: 'b.json', baseline: { entries: [{ id: 'M-pass', reason: 'old' }] }, update: true },
      'embedded',
      '2026-11-21',
    )
    expect(settled.summary).toMatchObject({
      known: ['M-fail', 'M-new'],
      stale: [],
      updated: { added: ['M-fail', 'M-new'], removed: ['M-pass'] },
    })
    expect(verdictOf(settled.results, 0)).toBe('incomplete') // M-skip; no failure left
    expect(settled.written?.entries.map((e) => e.id)).toEqual(['M-fail', 'M-new'])
  })

  test('the written file is sorted by id and reads back as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-baseline-'))
    try {
      const baseline: Baseline = {
        target: 'embedded',
        entries: [
          { id: 'M-new', reason: 'b' },
          { id: 'M-fail', reason: 'a "quoted" reason' },
        ],
      }
      const file = join(dir, 'b.json')
      writeFileSync(file, renderBaseline(baseline))
      expect(JSON.parse(readFileSync(file, 'utf8')).entries.map((e: { id: string }) => e.id)).toEqual([
        'M-fail',
        'M-new',
      ])
      expect(readBaseline(file, isRequirement, false)).toEqual({
        target: 'embedded',
        entries: [...baseline.entries].reverse(),
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
