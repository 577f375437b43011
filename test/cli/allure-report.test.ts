/**
 * Allure. A conformance run's allure-results carry, on every test, the requirement's part (epic), family
 * (feature), id (story), severity from its level, a link to its section of the reference and tags for the target
 * and tiers; a failing test carries its exchange and curl line; no key is anywhere. `npm run report` renders them
 * with Allure 3 into one HTML page that headless Chromium shows with the run's tests, and its history file makes
 * the second report show a trend the first could not.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Attachment, StepResult, TestResult } from 'allure-js-commons'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import { headingAnchor, referenceSections, sectionUrl } from '../../harness/reference.ts'
import { conformanceStatus, redactingListener } from '../../harness/report/allure-reporter.ts'
import { ALLURE_HISTORY_ENV, REPORT_DEFAULTS, resolveReportOptions } from '../../harness/report/allure-report.ts'
import { SEVERITY, testCaseIdOf, tierTags } from '../../harness/worker/allure.ts'
import { requirements, citation } from '../../harness/requirements.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import { KEY_ENV } from '../../harness/keys.ts'
import type { ExchangeExcerpt } from '../../harness/exchange.ts'
import { Redactor } from '../../harness/redact.ts'
import { CHROMIUM_MISSING, findChromium, renderUntil } from '../support/chromium.ts'
import { keyEnv, ROOT, withRun } from '../support/run-conformance.ts'
import { leaks } from '../support/canary.ts'

const REPORT_SCRIPT = join(ROOT, 'scripts/report.ts')
/** Breaks exactly P1-7-unknown-model-404 (gateway/models/faults.ts), a MUST checked by the models family. */
const FAULT = { name: 'unknown-model-500', breaks: 'P1-7-unknown-model-404' }
/** Where the run is told the reference is published (GATEWAY_REFERENCE_URL): every link starts there. */
const REFERENCE_URL = 'https://docs.example.com/reference'

interface ScriptRun {
  exitCode: number
  stdout: string
  stderr: string
}

async function runReport(args: string[], cwd: string, env: Record<string, string> = {}): Promise<ScriptRun> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_') && !name.startsWith('VITEST')),
  )
  const child = spawn(process.execPath, [REPORT_SCRIPT, ...args], {
    cwd,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  const exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
  clearTimeout(timer)
  return { exitCode, stdout, stderr }
}

function readResults(dir: string): TestResult[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('-result.json'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as TestResult)
}

function labels(result: TestResult, name: string): string[] {
  return result.labels.filter((l) => l.name === name).map((l) => l.value)
}

/** Attachments of the test and of its steps (allure-vitest wraps each runtime attachment in a step). */
function attachmentsOf(result: { attachments?: Attachment[]; steps?: StepResult[] }): Attachment[] {
  return [...(result.attachments ?? []), ...(result.steps ?? []).flatMap((step) => attachmentsOf(step))]
}

/** The text a person sees: the DOM without scripts (the single-file report carries its data in them) and styles. */
function visibleText(dom: string): string {
  return dom
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, '\n')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
}

/** The run's count in the results view, once drawn (a loader stands in its place until the data is read). */
const TOTAL = /data-testid="metadata-item-total"[\s\S]*?data-testid="metadata-value"[^>]*>(?:<[^>]+>)*(\d+)</

/** Browsers started for one view, at most: the report's app now and then leaves a view undrawn in a fresh one. */
const LAUNCHES = 5

/**
 * The page as Chromium drew it: read once `ready` (an expression in the page) holds, in a fresh browser each time
 * until `drawn` holds of the DOM. The report draws from data it reads after loading, the results tree as it scrolls
 * into view (so a tall window, the Fix first table above it), and in one fresh browser of a few not at all.
 */
async function render(url: string, ready: string, drawn: (dom: string) => boolean): Promise<string> {
  let dom = ''
  for (let launch = 1; launch <= LAUNCHES && !drawn(dom); launch += 1)
    dom = await renderUntil(url, ready, { timeoutMs: 30_000, args: ['--window-size=1280,4000'] })
  return dom
}

/** The x-axis of the "Status dynamics" chart: one label per report in the history, then "Latest". */
function statusDynamics(dom: string): string[] {
  const text = visibleText(dom)
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const start = text.indexOf('Status dynamics')
  if (start < 0) return ['(no Status dynamics chart)']
  const end = text.findIndex((s, i) => i > start && /^Test results by/.test(s))
  return text.slice(start + 1, end < 0 ? undefined : end).filter((s) => !/^\d+$/.test(s))
}

describe('a run against a gateway with a fault, then npm run report twice', () => {
  let gateway: EmbeddedGateway

  beforeAll(async () => {
    gateway = await startEmbeddedGateway({ faults: [FAULT.name], minuteMs: DEFAULTS.embeddedMinuteMs })
  })

  afterAll(async () => {
    await gateway.close()
  })

  test('allure-results carry labels, links, tags and the failing exchange; the report shows the run and, the second time, a trend', async (ctx) => {
    const chromium = findChromium()
    if (!chromium) {
      if (process.env.CI) throw new Error(CHROMIUM_MISSING)
      ctx.skip(CHROMIUM_MISSING)
    }
    const t0 = performance.now()
    await withRun(
      ['--base-url', gateway.url, '--family', 'models'],
      { ...keyEnv({ ...gateway.keys }, KEY_ENV), GATEWAY_REFERENCE_URL: REFERENCE_URL },
      async (run) => {
        const ranMs = Math.round(performance.now() - t0)
        expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1)
        const keys = Object.values(gateway.keys)
        const resultsDir = join(run.reportRoot, 'latest', 'allure-results')
        const results = readResults(resultsDir)
        expect(results.length).toBeGreaterThan(5)
        // Every test that ran is there (a test skipped inside it is too; one left out by the selection is not).
        expect(results.length).toBeGreaterThanOrEqual(run.summary!.tests.passed + run.summary!.tests.failed)
        expect(results.length).toBeLessThanOrEqual(run.summary!.tests.total)
        const host = new URL(gateway.url).host

        // Every test: its requirement, as the catalogue says, and where the reference states it.
        for (const result of results) {
          const id = /^\[([^\]]+)\]/.exec(result.name ?? '')?.[1] ?? ''
          const req = requirements().get(id)
          expect(req, result.name).toBeDefined()
          expect(labels(result, 'epic'), result.name).toEqual([`Part ${req!.part}`])
          expect(labels(result, 'feature'), result.name).toEqual(['models'])
          expect(labels(result, 'story'), result.name).toEqual([id])
          expect(labels(result, 'severity'), result.name).toEqual([req!.level === 'MUST' ? 'critical' : 'minor'])
          const tags = labels(result, 'tag')
          expect(tags, result.name).toContain(`target:${host}`)
          for (const tag of tags.filter((t) => t.startsWith('tier:'))) expect(tag).toMatch(/^tier:(main|[0-5])$/)
          expect(result.links, result.name).toEqual([{ url: sectionUrl(req!, REFERENCE_URL), name: citation(req!) }])
          expect(result.links[0]!.url, result.name).toMatch(
            /^https:\/\/docs\.example\.com\/reference\/gateway-api-part-[12]\.md#\d+-[a-z]/,
          )
          if (result.status === 'passed') expect(attachmentsOf(result), result.name).toEqual([])
        }
        expect(new Set(results.map((r) => labels(r, 'severity')[0]))).toEqual(new Set(['critical', 'minor']))

        // The failing test: "failed" (the target broke a rule), not "broken", with its exchange and curl line.
        const failing = results.filter((r) => r.status !== 'passed' && r.status !== 'skipped')
        expect(failing.map((r) => [labels(r, 'story')[0], r.status])).toEqual([[FAULT.breaks, 'failed']])
        const failed = failing[0]!
        expect(labels(failed, 'tag')).toContain('tier:main')
        const attached = attachmentsOf(failed)
        expect(attached.map((a) => a.type)).toEqual(['application/json', 'text/plain'])
        const exchange = JSON.parse(readFileSync(join(resultsDir, attached[0]!.source), 'utf8')) as ExchangeExcerpt
        expect(exchange).toMatchObject({ method: 'GET', status: 500 })
        expect(exchange.path).toMatch(/^\/v1\/models\/./)
        expect(exchange.requestHeaders.authorization).toBe('Bearer <GATEWAY_API_KEY>')
        const curl = readFileSync(join(resultsDir, attached[1]!.source), 'utf8')
        expect(curl).toMatch(
          new RegExp(`^curl .*'${gateway.url}${exchange.path}'.*"Authorization: Bearer \\$GATEWAY_API_KEY"`),
        )

        // npm run report, twice, with the history where CI would cache it.
        const cwd = dirname(run.reportRoot)
        const history = join(cwd, 'ci-cache', 'allure-history.jsonl')
        const t1 = performance.now()
        const first = await runReport([], cwd, { [ALLURE_HISTORY_ENV]: history })
        expect(first.exitCode, first.stderr).toBe(0)
        expect(first.stdout).toBe(
          `Allure report: reports/latest/allure-report/index.html (${results.length} tests; history ci-cache/allure-history.jsonl, 1 report)\n`,
        )
        const second = await runReport(['--output', 'second'], cwd, { [ALLURE_HISTORY_ENV]: history })
        expect(second.exitCode, second.stderr).toBe(0)
        expect(second.stdout).toMatch(
          /^Allure report: second\/index.html \(\d+ tests; history ci-cache\/allure-history.jsonl, 2 reports\)\n$/,
        )
        expect(readFileSync(history, 'utf8').trim().split('\n')).toHaveLength(2)

        expect(existsSync(join(run.reportRoot, 'latest', 'allure-report', 'index.html'))).toBe(true)
        const secondIndex = join(cwd, 'second', 'index.html')
        const t2 = performance.now()
        const [resultsView, charts] = await Promise.all([
          render(
            pathToFileURL(secondIndex).href,
            `document.querySelector('[data-testid="metadata-item-total"]')`,
            (dom) => TOTAL.test(dom) && visibleText(dom).includes(failed.name!),
          ),
          render(
            `${pathToFileURL(secondIndex).href}#charts`,
            `document.documentElement.textContent.includes('Latest')`,
            (dom) => statusDynamics(dom).includes('Latest'),
          ),
        ])
        await ctx.annotate(
          `conformance run ${ranMs} ms, two reports ${Math.round(t2 - t1)} ms, two headless Chromium runs ${Math.round(performance.now() - t2)} ms`,
        )

        // The results view: the run's count, its tree of part, family and requirement, the failing test by name.
        const total = TOTAL.exec(resultsView)?.[1]
        expect(
          Number(total),
          /data-testid="metadata-item-total".{0,300}/.exec(resultsView)?.[0] ??
            `no metadata-item-total drawn; the page said: ${visibleText(resultsView).replace(/\s+/g, ' ').slice(0, 600)}`,
        ).toBe(results.length)
        const seen = visibleText(resultsView)
          .split('\n')
          .map((s) => s.trim())
        for (const node of ['Gateway conformance', 'Part 1', 'models', ...results.map((r) => labels(r, 'story')[0]!)])
          expect(seen, node).toContain(node)
        expect(seen).toContain(failed.name)
        // Trends: the second report shows the first one's point before its own (without history: "No history
        // information available").
        const axis = statusDynamics(charts)
        expect(axis).toHaveLength(2)
        expect(axis[1]).toBe('Latest')

        // No key anywhere: results, reports, the history file.
        expect(leaks(keys, [run.reportRoot, join(cwd, 'second'), history])).toEqual([])
      },
    )
  }, 360_000)
})

describe('npm run report', () => {
  test('without results: exit 2 and one line that says what to do', async () => {
    const run = await runReport(['--results', 'nowhere/allure-results'], ROOT)
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(
      /^report: no Allure results in \S*nowhere\/allure-results: run npm run conformance first, or pass --results DIR\n$/,
    )
    expect(existsSync(join(ROOT, 'nowhere'))).toBe(false)
  })

  test('options: flags over the environment over the defaults; the report goes beside its results', () => {
    expect(resolveReportOptions({}, {}, '/w')).toEqual({
      results: '/w/reports/latest/allure-results',
      output: '/w/reports/latest/allure-report',
      history: '/w/reports/allure-history.jsonl',
      historyLimit: REPORT_DEFAULTS.historyLimit,
      name: 'Gateway conformance',
    })
    expect(
      resolveReportOptions({ results: 'out/r1/allure-results' }, { [ALLURE_HISTORY_ENV]: '/cache/h.jsonl' }, '/w'),
    ).toMatchObject({ output: '/w/out/r1/allure-report', history: '/cache/h.jsonl' })
    expect(
      resolveReportOptions(
        { history: 'h.jsonl', output: 'o', 'history-limit': '3' },
        { [ALLURE_HISTORY_ENV]: '/cache/h.jsonl' },
        '/w',
      ),
    ).toMatchObject({ output: '/w/o', history: '/w/h.jsonl', historyLimit: 3 })
    expect(() => resolveReportOptions({ 'history-limit': '0' }, {}, '/w')).toThrow(
      /--history-limit must be a whole number/,
    )
  })
})

describe('pieces', () => {
  test('every requirement links to a heading of the reference (Part 1 §4.2 -> #42-account-and-usage-...)', () => {
    expect(headingAnchor('4.2 Account and usage (base path /user/v1, Bearer authentication)')).toBe(
      '42-account-and-usage-base-path-userv1-bearer-authentication',
    )
    const anchorless = [...requirements().values()].filter((req) => !sectionUrl(req).includes('#'))
    expect(anchorless.map((r) => `${r.id} §${r.section}`)).toEqual([])
    // A numbered rule inside a section links to its section; GATEWAY_REFERENCE_URL moves every link, and without it
    // a link is relative, for a reference beside the report.
    const anchor9 = headingAnchor(referenceSections().parts[1].headings['9']!)
    expect(sectionUrl({ part: 1, section: '9.4' }, 'https://docs.example.com/ref')).toBe(
      `https://docs.example.com/ref/gateway-api-part-1.md#${anchor9}`,
    )
    expect(sectionUrl({ part: 1, section: '9.4' }, 'https://docs.example.com/ref/')).toBe(
      `https://docs.example.com/ref/gateway-api-part-1.md#${anchor9}`,
    )
    expect(sectionUrl({ part: 1, section: '9.4' }, undefined)).toBe(`gateway-api-part-1.md#${anchor9}`)
    expect(sectionUrl({ part: 2, section: '4.3' }, 'https://docs.example.com/ref/')).toMatch(
      /^https:\/\/docs\.example\.com\/ref\/gateway-api-part-2\.md#43-/,
    )
  })

  test('a test is known to the history by its suite file from the project root and its name, not by the working folder', () => {
    const task = { name: 'b', fullTestName: 'a > b', file: { filepath: join(ROOT, 'suites/models/models.test.ts') } }
    expect(testCaseIdOf(task)).toBe(createHash('md5').update('suites/models/models.test.ts > a > b').digest('hex'))
    expect(testCaseIdOf({ ...task, fullTestName: 'a > c' })).not.toBe(testCaseIdOf(task))
  })

  test('tier tags name the tiers of the keys a test used', () => {
    const ex = (key: ExchangeExcerpt['key']): ExchangeExcerpt => ({ key }) as ExchangeExcerpt
    expect(tierTags([ex('tier3'), ex('main'), ex(null), ex('invalid'), ex('tier3'), ex('tier0')])).toEqual([
      'tier:0',
      'tier:3',
      'tier:main',
    ])
    expect(tierTags([ex(null)])).toEqual([])
    expect(SEVERITY).toEqual({ MUST: 'critical', SHOULD: 'minor' })
  })

  test('a key that reached a test result is redacted before it is written; a conformance failure is "failed"', () => {
    const key = 'sk-live-0123456789abcdef'
    const listener = redactingListener(new Redactor({ main: key }))
    const result = {
      name: 'x',
      status: 'broken',
      statusDetails: { message: `echoed ${key}`, trace: `TypeError: echoed ${key}\n    at x` },
      steps: [{ name: `step ${key}`, steps: [], attachments: [] }],
      parameters: [{ name: 'p', value: key }],
    } as unknown as TestResult
    listener.beforeTestResultWrite!(result)
    expect(JSON.stringify(result)).not.toContain(key)
    expect(result.statusDetails.message).toBe('echoed <GATEWAY_API_KEY>')
    expect(result.steps[0]!.name).toBe('step <GATEWAY_API_KEY>')

    conformanceStatus.beforeTestResultWrite!(result)
    expect(result.status).toBe('broken') // a TypeError is the harness's own fault
    const failure = {
      status: 'broken',
      statusDetails: { trace: 'ConformanceFailure: P1-7-unknown-model-404 · MUST' },
    } as unknown as TestResult
    conformanceStatus.beforeTestResultWrite!(failure)
    expect(failure.status).toBe('failed')
  })
})
