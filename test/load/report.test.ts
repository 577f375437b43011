/**
 * The load harness's reports (docs/load.md): report.html is one self-contained page whose charts really
 * draw in a browser, summary.md leads with the outcome and survives hostile text, and write.ts writes all three.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { renderHtml } from '../../load/report/html.ts'
import { renderSummaryMd } from '../../load/report/summary-md.ts'
import { writeLoadReport } from '../../load/report/write.ts'
import type { CapacityResult, LoadResult } from '../../load/types.ts'
import { CHROMIUM_MISSING, dumpDom, findChromium } from '../support/chromium.ts'
import { fixtureResult, HOSTILE_DETAIL, HOSTILE_ROUTE } from './fixture-result.ts'

/** Per phase of the fixture: usage (judges a bucket), streaming (judges none), backoff (judges a bucket). */
const EXPECTED_CHARTS = [
  'rate',
  'remaining',
  'latency',
  'retries',
  'rate',
  'latency',
  'retries',
  'rate',
  'remaining',
  'latency',
  'retries',
]

const scratch = mkdtempSync(join(tmpdir(), 'gc-load-report-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

let result: LoadResult
let html: string
beforeAll(() => {
  result = fixtureResult()
  html = renderHtml(result)
})

/** The kinds of the chart containers that hold an SVG, in page order. */
function chartsWithSvg(page: string): string[] {
  return [...page.matchAll(/<figure class="chart" data-chart="(\w+)"><svg /g)].map((m) => m[1]!)
}

describe('report.html', () => {
  test('draws an SVG chart per expected kind, phase by phase, and the stream latencies beside the others', () => {
    expect(chartsWithSvg(html)).toEqual(EXPECTED_CHARTS)
    expect(html).toContain('time to first token')
    expect(html).toMatch(/^<!doctype html>/)
  })

  test('references nothing outside the page: the only URL is the target base URL, shown as text', () => {
    // SVG namespace names are identifiers, never fetched.
    const withoutNamespaces = html.replaceAll(/ xmlns(:\w+)?="http:\/\/www\.w3\.org\/[^"]*"/g, '')
    const urls = [...withoutNamespaces.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0])
    expect(urls.length).toBeGreaterThan(0)
    expect(new Set(urls)).toEqual(new Set([result.target.baseUrl]))
    expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=|@import/i)
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`)
  })

  test('escapes every string from the result', () => {
    expect(html).not.toContain(HOSTILE_ROUTE)
    expect(html).toContain('/v1/&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).not.toContain(HOSTILE_DETAIL)
    expect(html).toContain('limit | remaining &lt;b&gt;not&lt;/b&gt; decreasing &amp; &quot;quoted&quot;')
    // The page's own check is the only script.
    expect(html.match(/<script/g)).toHaveLength(1)
  })

  test('shows the outcome with its exit code, the shard, and a banner for a partial run', () => {
    expect(html).toContain('<span class="outcome fail">FAIL</span>')
    expect(html).toContain('exit code 1')
    // No phases: the header is all these check, and charts are the slow part of a page.
    const partial: LoadResult = {
      ...fixtureResult(),
      phases: [],
      partial: true,
      stopReason: 'SIGINT <Ctrl-C>',
      shard: { index: 1, count: 3 },
    }
    const page = renderHtml(partial)
    expect(page).toContain('Partial run:</strong> stopped early (SIGINT &lt;Ctrl-C&gt;)')
    expect(page).toContain('shard 2 of 3')
    const merged = renderHtml({ ...fixtureResult(), phases: [], mergedFrom: ['run-a', 'run-b'] })
    expect(merged).toContain('merged from 2 shards: run-a, run-b')
  })

  test('tells the algorithm the headers showed, as an observation beside the figures', () => {
    expect(html).toContain('algorithm (observed)')
    expect(html).toContain('fixed windows of about 6 s')
  })

  test('a phase that recorded no call says so instead of drawing empty time charts', () => {
    const r = fixtureResult()
    const phase = r.phases[1]!
    r.phases = [{ ...phase, series: [], sent: 0, answered: 0, latency: { ...phase.latency, count: 0 } }]
    const page = renderHtml(r)
    expect(chartsWithSvg(page)).toEqual([])
    expect(page).toContain('No call was recorded')
  })
})

describe('summary.md', () => {
  test('starts with the outcome and exit code, then target, profile, tier, duration and shard', () => {
    const md = renderSummaryMd(result)
    const lines = md.split('\n')
    expect(lines[0]).toBe('# Gateway load: FAIL: at least one verdict failed (exit 1)')
    expect(md).toContain(`- target: ${result.target.baseUrl} (embedded reference gateway)`)
    expect(md).toContain('- profile: tier1, tier 1: ')
    expect(md).toContain(', 44.0 s, ')
    expect(md).toContain('- single process')
  })

  test('has the verdict, phase, backoff and streaming tables', () => {
    const md = renderSummaryMd(result)
    expect(md).toContain('| phase | verdict | status | figure | section |')
    expect(md).toContain('| tier1-requests | admission | PASS | admitted 50/50/50 per window, limit 50 | P1-8.1 |')
    expect(md).toContain(
      '| phase | sent | achieved / offered | 2xx | 429 | other 4xx | 5xx | errors | latency p50 / p90 / p99 |',
    )
    expect(md).toMatch(
      /\| tier1-requests \| 360 \| 20\.0\/s of 20\.0\/s offered \(100%\) \| 146 \| 210 \| 3 \| 0 \| 1 \| [\d.]+ ms \/ /,
    )
    expect(md).toContain('- tier1-requests: calls without an answer: ECONNRESET: 1')
    expect(md).toMatch(/\| backoff-spec7 \| spec7 \| 8 \| \d+ \| \d+ \| 2 \| [\d.]+ \| \d+% \| /)
    // The algorithm the headers showed is told, apart from the verdicts, never judged.
    expect(md).toContain('## Rate-limit algorithm (observed, not judged)')
    expect(md).toContain('- tier1-requests: fixed windows of about 6 s')
    expect(md).toMatch(/\| streaming \| 49 \| 1 \| .* \| 5\d\.\d \|/)
    expect(md).not.toContain('Partial run')
  })

  test('escapes pipes and newlines in cells, so a row keeps its columns', () => {
    const r = fixtureResult()
    r.verdicts[0]!.figure = 'admitted 50 | 50\nper window'
    const row = renderSummaryMd(r)
      .split('\n')
      .find((l) => l.includes('admitted 50'))!
    expect(row).toContain('admitted 50 \\| 50 per window')
    expect(row.match(/(?<!\\)\|/g)).toHaveLength(6)
  })

  test('shows HTML in the result as text: job pages render inline HTML', () => {
    const md = renderSummaryMd(result)
    expect(md).not.toContain('<b>')
    expect(md).toContain(
      '- **headers** (tier1-requests, fail): limit | remaining &lt;b>not&lt;/b> decreasing &amp; "quoted"',
    )
  })

  test('says when the run is partial, and why', () => {
    const md = renderSummaryMd({ ...fixtureResult(), partial: true, stopReason: 'Ctrl-C' })
    expect(md.split('\n')[0]).toMatch(/^# Gateway load: FAIL/)
    expect(md).toContain('> **Partial run**: stopped early (Ctrl-C)')
  })
})

describe('writeLoadReport', () => {
  test('writes result.json, summary.md and report.html into a new folder', async () => {
    const dir = join(scratch, 'nested', 'run')
    const paths = await writeLoadReport(result, dir)
    expect(paths).toEqual(['result.json', 'summary.md', 'report.html'].map((f) => join(dir, f)))
    const json = readFileSync(join(dir, 'result.json'), 'utf8')
    expect(JSON.parse(json)).toEqual(result)
    expect(json).toContain('\n  "schemaVersion": 1,')
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toBe(renderSummaryMd(result))
    expect(chartsWithSvg(readFileSync(join(dir, 'report.html'), 'utf8'))).toEqual(EXPECTED_CHARTS)
  })
})

/** A capacity search of four steps (no phases: the page's capacity section is what these check). */
function capacityResult(): LoadResult {
  const step = (
    phase: string,
    kind: 'ramp' | 'bisect',
    offered: number,
    throughput: number,
    p99Ms: number,
    outcome: CapacityResult['steps'][number]['outcome'],
  ): CapacityResult['steps'][number] => ({
    phase,
    kind,
    offered,
    achieved: throughput,
    throughput,
    goodput: throughput * 0.98,
    p50Ms: p99Ms / 4,
    p99Ms,
    errors: 0,
    refused: 0,
    outcome,
    why: outcome === 'held' ? 'every objective met' : 'calls in flight grew from 2 to 40 through the step: a queue',
  })
  const capacity: CapacityResult = {
    sustainable: 30,
    firstBroken: 40,
    bound: 'capacity',
    tierLimit: null,
    objectives: [
      { name: 'e2e_p99', metric: 'e2e', stat: 99, bound: 5000 },
      { name: 'errors', metric: 'errors', stat: 'share', bound: 0.01 },
    ],
    stopReason: 'resolved to within 10 %: 30/s held, 40/s broke',
    steps: [
      step('ramp-1', 'ramp', 10, 10, 20, 'held'),
      step('ramp-2', 'ramp', 20, 20, 25, 'held'),
      step('ramp-3', 'ramp', 40, 31, 900, 'saturated'),
      step('bisect-4', 'bisect', 30, 30, 60, 'held'),
    ],
  }
  return { ...fixtureResult(), phases: [], verdicts: [], capacity }
}

describe('the capacity search in the reports', () => {
  test('summary.md and report.html show the rate found, the bound met first, why it stopped and the step table', () => {
    const r = capacityResult()
    const md = renderSummaryMd(r)
    expect(md).toContain('- highest sustainable rate: 30.0/s; first broken: 40.0/s')
    expect(md).toContain("- bound met first: the target's capacity (objectives or over-saturation broke first)")
    expect(md).toContain('- stopped: resolved to within 10 %: 30/s held, 40/s broke')
    expect(md).toContain(
      '| ramp-3 | ramp | 40.0/s | 31.0/s | 31.0/s | 30.4/s | 225 ms | 900 ms | 0% | 0 | saturated | calls in flight grew from 2 to 40 through the step: a queue |',
    )
    const page = renderHtml(r)
    expect(chartsWithSvg(page)).toEqual(['capacity'])
    expect(page).toContain('<li>objectives: e2e_p99=5s,errors=1%</li>')
  })
})

describe('report.html in a browser', () => {
  const chromium = findChromium()

  /** data-charts-rendered of the body and every container's data-chart-ok, from a dumped DOM. */
  function checked(dom: string): { rendered: number; ok: string[] } {
    const rendered = /<body[^>]*\bdata-charts-rendered="(\d+)"/.exec(dom)
    const ok = [...dom.matchAll(/<figure class="chart" data-chart="\w+"[^>]*?data-chart-ok="(\w+)"/g)].map((m) => m[1]!)
    return { rendered: rendered ? Number(rendered[1]) : -1, ok }
  }

  test('every chart draws, and a chart that does not is caught', async (ctx) => {
    if (!chromium) {
      if (process.env.CI) throw new Error(CHROMIUM_MISSING)
      ctx.skip(CHROMIUM_MISSING)
    }
    const good = join(scratch, 'good.html')
    const broken = join(scratch, 'broken.html')
    writeFileSync(good, html)
    // The rate chart of the first phase loses its drawing: the check must notice.
    writeFileSync(broken, html.replace(/<svg [\s\S]*?<\/svg>/, '<svg></svg>'))
    const started = performance.now()
    const [goodDom, brokenDom] = await Promise.all([dumpDom(good), dumpDom(broken)])
    await ctx.annotate(`two headless Chromium runs in ${Math.round(performance.now() - started)} ms`)

    const g = checked(goodDom)
    expect(g.ok).toEqual(EXPECTED_CHARTS.map(() => 'true'))
    expect(g.rendered).toBe(EXPECTED_CHARTS.length)

    const b = checked(brokenDom)
    expect(b.ok).toEqual(EXPECTED_CHARTS.map((_, i) => (i === 0 ? 'false' : 'true')))
    expect(b.rendered).toBe(EXPECTED_CHARTS.length - 1)
  })

  test('the capacity curve draws', async (ctx) => {
    if (!chromium) {
      if (process.env.CI) throw new Error(CHROMIUM_MISSING)
      ctx.skip(CHROMIUM_MISSING)
    }
    const page = join(scratch, 'capacity.html')
    writeFileSync(page, renderHtml(capacityResult()))
    const c = checked(await dumpDom(page))
    expect(c.ok).toEqual(['true'])
    expect(c.rendered).toBe(1)
  })
})
