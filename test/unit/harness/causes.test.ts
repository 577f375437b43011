/**
 * One cause, one verdict: the signature of a route the target does not serve (harness/routes.ts), the skip that
 * names the route's requirement (harness/worker/assert.ts), the requirements a skip waits on (results.ts), and Fix
 * first (harness/report/causes.ts) in summary.json, summary.md and the console.
 */
import type { TestContext } from 'vitest'
import { describe, expect, test } from 'vitest'
import type { ExchangeExcerpt } from '../../../harness/exchange.ts'
import { requirements } from '../../../harness/requirements.ts'
import { routeAbsence, routeOf, routes } from '../../../harness/routes.ts'
import { precondition, skipIfRouteAbsent } from '../../../harness/worker/assert.ts'
import { noteServed } from '../../../harness/worker/served-routes.ts'
import { closeRecording, openRecording, recordExchange } from '../../../harness/worker/recorder.ts'
import { fixFirst, fixFirstLines, routeFailures, withFixFirst } from '../../../harness/report/causes.ts'
import { aggregate, type Outcome, type RequirementResult } from '../../../harness/report/results.ts'
import { mergeRequirement } from '../../../harness/report/merge.ts'
import { renderMarkdown } from '../../../harness/report/markdown.ts'
import { endOfRun } from '../../../harness/report/console.ts'
import type { Summary } from '../../../harness/report/summary.ts'
import { summaryProblems } from './run-report-checks.ts'

function answer(
  method: string,
  path: string,
  status: number,
  body: string,
  origin = 'http://127.0.0.1:9',
): ExchangeExcerpt {
  return {
    seq: 1,
    method,
    url: `${origin}${path}`,
    path,
    key: 'main',
    auth: 'bearer',
    requestHeaders: {},
    startedAt: 0,
    durationMs: 1,
    attempt: 1,
    status,
    body,
  }
}

describe('the route table (schemas/routes.json)', () => {
  test('every route names a requirement of the catalogue, once per route', () => {
    const catalogue = requirements()
    expect(routes().filter((r) => !catalogue.has(r.requirement))).toEqual([])
    const names = routes().map((r) => r.route)
    expect(new Set(names).size).toBe(names.length)
  })

  test('a path finds its route, placeholders one segment each, the query left aside', () => {
    expect(routeOf('POST', '/v1/audio/speech')?.requirement).toBe('P2-4.2-speech-models')
    expect(routeOf('GET', '/v1/files/file-abc?x=1')?.route).toBe('GET /v1/files/{file_id}')
    expect(routeOf('POST', '/v1beta/models/gemini-x:streamGenerateContent')?.route).toBe(
      'POST /v1beta/models/{model}:streamGenerateContent',
    )
    expect(routeOf('GET', '/v1/files/a/b')).toBeUndefined()
    expect(routeOf('POST', '/v1/batches')).toBeUndefined() // planned: its own checks judge how it is refused
  })
})

describe('the answer of a route the target does not serve', () => {
  const absent: Array<[string, ExchangeExcerpt]> = [
    ['express', answer('POST', '/v1/audio/speech', 404, '<pre>Cannot POST /v1/audio/speech</pre>')],
    ['Fastify', answer('POST', '/v1/ocr', 404, '{"message":"Route POST:/v1/ocr not found","error":"Not Found"}')],
    ['Starlette', answer('POST', '/v1/moderations', 404, '{"detail":"Not Found"}')],
    ['Go', answer('GET', '/user/v1/credit', 404, '404 page not found')],
    ['an empty 404', answer('GET', '/v1/videos', 404, '')],
    ['the convention', answer('POST', '/v1/search', 404, '{"error":{"message":"Invalid URL (POST /v1/search)"}}')],
    [
      'the reference (Part 1 §1.6)',
      answer('POST', '/v1/videos/v1/remix', 404, '{"error":{"message":"Unknown route","code":"unsupported_route"}}'),
    ],
    [
      'a templated route named by express',
      answer('GET', '/v1/videos/v1/content', 404, 'Cannot GET /v1/videos/v1/content'),
    ],
    ['405', answer('DELETE', '/v1/files/file-1', 405, '{"error":{"message":"Method Not Allowed"}}')],
    ['501', answer('POST', '/v1/audio/translations', 501, '{"error":"not implemented"}')],
  ]
  test.each(absent)('%s', (_name, ex) => {
    expect(routeAbsence(ex)?.requirement).toBe(routeOf(ex.method, ex.path)?.requirement)
  })

  const judged: Array<[string, ExchangeExcerpt]> = [
    [
      'an unknown model in the API words',
      answer('POST', '/v1/chat/completions', 404, '{"error":{"message":"The model `x` does not exist"}}'),
    ],
    ['an unknown model, bare', answer('POST', '/v1/videos', 404, '{"detail":"model not found"}')],
    [
      'an unknown previous response',
      answer('POST', '/v1/responses', 404, '{"error":{"message":"Previous response resp_1 not found.","code":"x"}}'),
    ],
    ['an unknown id, bare', answer('GET', '/v1/files/file-1', 404, '{"detail":"Not Found"}')],
    ['an unknown video', answer('GET', '/v1/videos/v1', 404, '{"error":{"message":"No such video"}}')],
    ['a refusal', answer('POST', '/v1/audio/speech', 400, 'Cannot POST')],
    ['a route the table does not serve', answer('POST', '/v1/batches', 404, 'Cannot POST /v1/batches')],
  ]
  test.each(judged)('%s is judged by its check', (_name, ex) => {
    expect(routeAbsence(ex)).toBeUndefined()
  })
})

/** Runs `fn` as the body of a test of `requirement`, and returns the skip it ended in (its note and meta). */
function inTestOf(requirement: string, fn: () => void): { note?: string; meta: Record<string, unknown> } {
  const meta: Record<string, unknown> = { requirement }
  const seen: { note?: string; meta: Record<string, unknown> } = { meta }
  const ctx = {
    task: { meta },
    skip: (note: string) => {
      seen.note = note
      throw Object.assign(new Error(note), { code: 'VITEST_PENDING' })
    },
  } as unknown as TestContext
  openRecording(ctx)
  try {
    fn()
  } catch (error) {
    if ((error as { code?: string }).code !== 'VITEST_PENDING') throw error
  } finally {
    closeRecording(ctx)
  }
  return seen
}

describe('a test stopped by a missing route skips naming the requirement that states it', () => {
  const speech = answer('POST', '/v1/audio/speech', 404, 'Cannot POST /v1/audio/speech', 'http://127.0.0.1:11')

  test('another requirement skips, the cause recorded as data', () => {
    const seen = inTestOf('P2-5.1-audio-key-required', () => skipIfRouteAbsent(speech))
    expect(seen.note).toBe(
      'needs P2-4.2-speech-models: the target does not serve POST /v1/audio/speech (POST /v1/audio/speech answered 404)',
    )
    expect(seen.meta.cause).toMatchObject({ requirement: 'P2-4.2-speech-models', route: 'POST /v1/audio/speech' })
  })

  test("the route's own requirement is not skipped: its check judges the answer", () => {
    expect(inTestOf('P2-4.2-speech-models', () => skipIfRouteAbsent(speech)).note).toBeUndefined()
  })

  test('a precondition that fails on such an answer names the route, not the precondition', () => {
    const seen = inTestOf('P2-4.3-default-json', () => {
      recordExchange(speech)
      precondition(false, 'P2-6.1-transcript-stream', 'the speech did not come')
    })
    expect(seen.meta.cause).toMatchObject({ requirement: 'P2-4.2-speech-models' })
  })

  test('a route seen served is not taken for missing on a later bare 404', () => {
    const origin = 'http://127.0.0.1:12'
    noteServed('', answer('POST', '/v1/moderations', 200, '{}', origin))
    const bare = answer('POST', '/v1/moderations', 404, '{"detail":"Not Found"}', origin)
    expect(inTestOf('P2-4.7-unknown-model', () => skipIfRouteAbsent(bare)).note).toBeUndefined()
  })
})

const REQ = (id: string, level: 'MUST' | 'SHOULD' = 'MUST') => ({
  id,
  part: 1 as const,
  section: '4.1',
  family: 'files',
  level,
  kind: 'acceptance' as const, // the catalogue's kind; Fix first does not read it
  rule: `the rule of ${id}`,
})

const ROUTE_404 = answer('POST', '/v1/files', 404, 'Cannot POST /v1/files')

function outcome(requirement: string, status: Outcome['status'], extra: Partial<Outcome> = {}): Outcome {
  return { requirement, status, test: `[${requirement}] t`, file: 'f.test.ts', source: 'test', ...extra }
}

function results(): RequirementResult[] {
  return aggregate({
    requirements: [REQ('P1-1-a'), REQ('P1-1-b'), REQ('P1-1-c', 'SHOULD'), REQ('P1-1-d', 'SHOULD'), REQ('P1-1-e')],
    outcomes: [
      outcome('P1-1-a', 'fail', { exchange: ROUTE_404, message: 'Seen: 404' }),
      outcome('P1-1-b', 'skip', { needs: 'P1-1-a', message: 'needs P1-1-a: the target does not serve POST /v1/files' }),
      outcome('P1-1-c', 'skip', { needs: 'P1-1-b', message: 'needs P1-1-b, which does not hold here' }),
      outcome('P1-1-d', 'fail', { message: 'Seen: no' }),
      outcome('P1-1-e', 'skip', { message: 'no key for tier 3' }),
    ],
    selectedFamilies: null,
    filtered: false,
  })
}

describe('Fix first', () => {
  test('a skip records what it waits on', () => {
    expect(results().find((r) => r.id === 'P1-1-b')?.needs).toEqual(['P1-1-a'])
  })

  test('each failure once, with everything left unjudged because of it, through skips of skips, largest first', () => {
    expect(fixFirst(results())).toEqual([
      {
        cause: 'P1-1-a',
        level: 'MUST',
        status: 'fail',
        rule: 'the rule of P1-1-a',
        exchange: { method: 'POST', path: '/v1/files', status: 404 },
        decides: { must: 2, should: 1 },
        requirements: ['P1-1-b', 'P1-1-c'],
      },
      {
        cause: 'P1-1-d',
        level: 'SHOULD',
        status: 'warn',
        rule: 'the rule of P1-1-d',
        decides: { must: 0, should: 1 },
        requirements: [],
      },
    ])
  })

  test("a missing route fails its requirement once, unless that requirement's own test judged it", () => {
    const met = (test: string) => ({ route: 'POST /v1/files', requirement: 'P1-1-a', exchange: ROUTE_404, test })
    const failures = routeFailures(
      [],
      [met('[P1-1-b] t'), met('[P1-1-c] t')],
      (a, detail) => `${a.requirement}: ${detail}`,
    )
    expect(failures).toHaveLength(1)
    expect(failures[0]).toMatchObject({ requirement: 'P1-1-a', status: 'fail', source: 'audit', exchange: ROUTE_404 })
    expect(failures[0]?.message).toBe(
      'P1-1-a: the target does not serve POST /v1/files: POST /v1/files answered 404 (met by "[P1-1-b] t")',
    )
    for (const status of ['fail', 'pass'] as const)
      expect(routeFailures([outcome('P1-1-a', status)], [met('[P1-1-b] t')], () => '')).toEqual([])
    expect(routeFailures([outcome('P1-1-a', 'skip')], [met('[P1-1-b] t')], () => '')).toHaveLength(1)
  })

  test('a skip waiting on a requirement that passed, or on nothing, is no one cause', () => {
    const passed = results().map((r) => (r.id === 'P1-1-a' ? { ...r, status: 'pass' as const } : r))
    expect(fixFirst(passed).map((e) => e.cause)).toEqual(['P1-1-d'])
  })

  test('the merge of shards keeps what each shard skipped on', () => {
    const skip = results().find((r) => r.id === 'P1-1-b') as RequirementResult
    const merged = mergeRequirement([skip, { ...skip, needs: ['P1-1-d'] }])
    expect(merged.needs).toEqual(['P1-1-a', 'P1-1-d'])
  })

  const summary = (): Summary =>
    ({
      verdict: 'non-conformant',
      exitCode: 1,
      fixFirst: fixFirst(results()),
      requirements: results(),
    }) as unknown as Summary

  test('summary.json carries it, valid against the published schema', () => {
    const problems = summaryProblems({ fixFirst: fixFirst(results()) }).filter((p) => p.includes('fixFirst'))
    expect(problems).toEqual([])
    const broken = summaryProblems({ fixFirst: [{ cause: 'P1-1-a' }] }).filter((p) => p.includes('fixFirst'))
    expect(broken.length).toBeGreaterThan(0)
  })

  test('summary.md opens with it, right under the verdict', () => {
    const full: Summary = {
      ...summary(),
      target: { baseUrl: 'http://x', embedded: false },
      tiers: [],
      tool: { name: 'gc', version: '1' },
      selection: { families: null, grep: null, filters: [] },
      totals: { pass: 0, fail: 1, warn: 1, skip: 3, 'not-observed': 0, error: 0, disabled: 0, known: 0 },
      families: {},
      tests: { total: 5, passed: 0, failed: 2, skipped: 3 },
      observations: [],
      retries: [],
      pacing: [],
      harnessErrors: [],
      spend: { budgetUsd: null, estimatedUsd: 0, measuredUsd: null, items: [] },
    } as unknown as Summary
    const lines = renderMarkdown(full).split('\n')
    expect(lines[2]).toBe('## Fix first')
    const row = lines.find((l) => l.startsWith('| P1-1-a |'))
    expect(row).toBe('| P1-1-a | MUST | `POST /v1/files -> 404` | 2 | 1 | P1-1-b, P1-1-c |')
    expect(lines.indexOf(row as string)).toBeLessThan(lines.findIndex((l) => l.startsWith('- target:')))
    expect(endOfRun(full).split('\n')[0]).toMatch(/^Fix first/)
    expect(fixFirstLines(full.fixFirst ?? [])[0]).toBe(
      'P1-1-a (MUST, fail): decides 2 MUST, 1 SHOULD (+2 unjudged because of it); POST /v1/files -> 404',
    )
  })

  test('the HTML report opens with it, above the Allure app; a run without causes is left as it was', () => {
    const page = '<html><head></head><body class="x">\n<div id="app"></div></body></html>'
    const entries = fixFirst(results())
    const html = withFixFirst(page, entries)
    expect(html.indexOf('<section id="gc-fix-first"')).toBeGreaterThan(html.indexOf('<body class="x">'))
    expect(html.indexOf('<section id="gc-fix-first"')).toBeLessThan(html.indexOf('<div id="app">'))
    expect(html).toContain('<code>POST /v1/files -&#62; 404</code>')
    expect(withFixFirst(page, [])).toBe(page)
  })
})
