/** Selection options: --level, --shard, --baseline, --grep as flags, the test name pattern, and what a run leaves out. */
import { describe, expect, test } from 'vitest'
import { requirements, type Requirement } from '../../../harness/requirements.ts'
import { resolveOptions, type FlagValues } from '../../../harness/setup/config.ts'
import { aggregate, verdictOf, type Outcome } from '../../../harness/report/results.ts'
import { levelIds, testNamePattern } from '../../../harness/setup/selection.ts'
import { configErrorOf } from '../../support/config-error.ts'

const FAMILIES = ['models', 'auth']

const errorOf = (flags: FlagValues): string => configErrorOf(() => resolveOptions({}, flags, [], FAMILIES))

describe('flags', () => {
  test('defaults: every level, no shard, no baseline, failed MUSTs tried again', () => {
    expect(resolveOptions({}, {}, [], FAMILIES)).toMatchObject({
      level: null,
      shard: null,
      baseline: null,
      updateBaseline: false,
      rerun: true,
    })
  })

  test('--level must, --shard 2/3, --baseline with --update-baseline, --no-rerun', () => {
    expect(resolveOptions({}, { level: 'MUST', shard: ' 2 / 3 ', 'no-rerun': true }, [], FAMILIES)).toMatchObject({
      level: 'MUST',
      shard: { index: 2, count: 3 },
      rerun: false,
    })
    expect(resolveOptions({}, { level: 'all' }, [], FAMILIES).level).toBeNull()
    expect(resolveOptions({}, { baseline: 'b.json', 'update-baseline': true }, [], FAMILIES)).toMatchObject({
      baseline: 'b.json',
      updateBaseline: true,
    })
  })

  test.each([
    [{ level: 'should' }, /^--level must be "must" \(only MUST requirements\) or "all" \(got "should"\)$/],
    [{ shard: '0/2' }, /^--shard must be i\/n with 1 <= i <= n <= 64, e\.g\. 2\/3 \(got "0\/2"\)$/],
    [{ shard: '3/2' }, /^--shard must be i\/n/],
    [{ shard: '1' }, /^--shard must be i\/n/],
    [{ shard: '1/0' }, /^--shard must be i\/n/],
    [{ 'update-baseline': true }, /^--update-baseline needs --baseline FILE/],
    [
      { baseline: 'b.json', 'update-baseline': true, shard: '1/2' },
      /^--update-baseline needs a whole run, not a shard/,
    ],
    [{ grep: 'P1-(4' }, /^--grep "P1-\(4" is not a regular expression: Unterminated group$/],
  ] as Array<[FlagValues, RegExp]>)('%j is refused in one line', (flags, pattern) => {
    expect(errorOf(flags)).toMatch(pattern)
  })
})

describe('the test name pattern', () => {
  // What vitest matches: the file, the describe blocks and the test's own name.
  const name = (id: string, title = 'a title'): string =>
    `suites/models/models.test.ts model list (Part 1 §2.3) [${id}] ${title}`
  const matches = (pattern: string | null, text: string): boolean => pattern === null || new RegExp(pattern).test(text)

  test('no level: the grep as given, or nothing', () => {
    expect(testNamePattern('P1-4.1', null)).toBe('P1-4.1')
    expect(testNamePattern(null, null)).toBeNull()
  })

  test('--level must selects exactly the tests of MUST requirements of the catalogue', () => {
    const ids = levelIds(requirements().values(), 'MUST')!
    const pattern = testNamePattern(null, ids)
    for (const r of requirements().values()) expect(matches(pattern, name(r.id)), r.id).toBe(r.level === 'MUST')
    expect(levelIds(requirements().values(), null)).toBeNull()
  })

  test('an id is matched whole: a MUST id does not select a longer SHOULD id that starts with it', () => {
    const pattern = testNamePattern(null, ['P1-4.1-svc-request-id'])
    expect(matches(pattern, name('P1-4.1-svc-request-id'))).toBe(true)
    expect(matches(pattern, name('P1-4.1-svc-request-id-time'))).toBe(false)
    expect(matches(pattern, name('P1-4X1-svc-request-id'))).toBe(false) // the dot is a dot
  })

  test('with --grep both must hold', () => {
    const pattern = testNamePattern('P1-2\\.3|retrieve', ['P1-2.3-model-list', 'P1-7-unknown-model-404'])
    expect(matches(pattern, name('P1-2.3-model-list'))).toBe(true)
    expect(matches(pattern, name('P1-7-unknown-model-404', 'retrieve of an unknown id'))).toBe(true)
    expect(matches(pattern, name('P1-7-unknown-model-404', 'an unknown id'))).toBe(false)
    expect(matches(pattern, name('P1-2.3-list-retrieve-agree'))).toBe(false)
  })
})

describe('what a selection leaves out', () => {
  const REQUIREMENTS: Requirement[] = [
    { id: 'M', part: 1, section: '1', family: 'models', level: 'MUST', kind: 'shape', rule: 'm' },
    { id: 'S', part: 1, section: '1', family: 'models', level: 'SHOULD', kind: 'shape', rule: 's' },
    { id: 'N', part: 1, section: '1', family: 'models', level: 'MUST', kind: 'shape', rule: 'n' },
  ]
  const out = (requirement: string, status: Outcome['status'], source: Outcome['source'] = 'test'): Outcome => ({
    requirement,
    status,
    test: 't',
    file: 'f',
    source,
  })

  test('--level must: SHOULD requirements are disabled, even those the audit of every response judged', () => {
    const results = aggregate({
      requirements: REQUIREMENTS,
      outcomes: [out('M', 'pass'), out('S', 'fail', 'audit'), out('N', 'pass')],
      selectedFamilies: null,
      filtered: false,
      levels: ['MUST'],
    })
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['M', 'pass', undefined],
      ['S', 'disabled', 'level not selected (--level must)'],
      ['N', 'pass', undefined],
    ])
    expect(verdictOf(results, 0)).toBe('conformant')
  })

  test('--shard: what the shard did not reach is left to the others, so the shard is not incomplete', () => {
    const results = aggregate({
      requirements: REQUIREMENTS,
      outcomes: [out('M', 'pass')],
      selectedFamilies: null,
      filtered: false,
      shard: { index: 1, count: 2 },
    })
    expect(results.find((r) => r.id === 'N')).toMatchObject({
      status: 'disabled',
      reason: 'not in this shard (--shard 1/2)',
    })
    expect(verdictOf(results, 0)).toBe('conformant')
    // The same run as a whole: N is checked by nothing, and the run is incomplete.
    expect(
      verdictOf(
        aggregate({
          requirements: REQUIREMENTS,
          outcomes: [out('M', 'pass')],
          selectedFamilies: null,
          filtered: false,
        }),
        0,
      ),
    ).toBe('incomplete')
  })
})
