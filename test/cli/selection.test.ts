/**
 * Baselines, --level must, shards and their merge, and flaky failures, as a user meets them in
 * `npm run conformance`: small runs of the models family (Part 1 §2.3, §4.3, §7) against a reference gateway
 * with the fault `mode-unknown` (it breaks P1-2.3-mode-values and nothing else), and, for the flaky case, behind a
 * proxy that answers the first retrieve of an unknown model with 500 instead of the gateway's 404 (§7).
 */
import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request as httpRequest, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SEEDED_KEY_ENV } from '../../gateway/account/accounts.ts'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import { requirements } from '../../harness/requirements.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import type { Summary } from '../../harness/report/summary.ts'
import { keyEnv, ROOT, runConformance, withRun, type ConformanceRun } from '../support/run-conformance.ts'

const BROKEN = 'P1-2.3-mode-values' // what mode-unknown breaks (gateway/models/faults.ts)
const PASSING = 'P1-2.3-alternate-list' // checked by the other models file: a stale entry
const ELSEWHERE = 'P2-2.1-video-job' // a videos requirement: not run by a models run
const FLIPPED = 'P1-7-unknown-model-404'
const MODELS = [...requirements().values()].filter((r) => r.family === 'models')

let gateway: EmbeddedGateway
let proxy: Server
let proxyUrl = ''
const flipped = { left: 0, seen: 0 }
let scratch = ''

/** Forwards every call to the gateway; the first `flipped.left` retrieves of an unknown model answer 500 instead. */
function startProxy(upstream: string): Promise<void> {
  proxy = createServer((req, res) => {
    const unknownModel = /^\/v1\/models\/gc-no-such-model-/.test(req.url ?? '')
    if (unknownModel) flipped.seen += 1
    const flip = unknownModel && flipped.left > 0
    if (flip) flipped.left -= 1
    const forward = httpRequest(
      new URL(req.url ?? '/', upstream),
      { method: req.method, headers: req.headers },
      (answer) => {
        // The gateway's own headers stay (svc-request-id, rate limits), so only the status rule can fail.
        res.writeHead(flip ? 500 : (answer.statusCode ?? 502), answer.headers)
        answer.pipe(res)
      },
    )
    forward.on('error', () => res.destroy())
    req.pipe(forward)
  })
  return new Promise((resolve) =>
    proxy.listen(0, '127.0.0.1', () => {
      proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`
      resolve()
    }),
  )
}

function env(): Record<string, string> {
  // A remote target's default budget would skip billable checks; the reference gateway's credit is play money.
  return { ...keyEnv({ ...gateway.keys }, SEEDED_KEY_ENV), GATEWAY_BUDGET_USD: '100000' }
}

function writeBaseline(name: string, entries: Array<{ id: string; reason: string }>): string {
  const file = join(scratch, name)
  writeFileSync(file, JSON.stringify({ entries }, null, 2))
  return file
}

const ENTRIES = [
  { id: BROKEN, reason: 'the vendor reports mode text-generation' },
  { id: PASSING, reason: 'was broken in 2025' },
  { id: ELSEWHERE, reason: 'no video models' },
]

function statusOf(summary: Summary | undefined, id: string): string | undefined {
  return summary?.requirements.find((r) => r.id === id)?.status
}

function judged(summary: Summary): Record<string, string> {
  return Object.fromEntries(summary.requirements.filter((r) => r.status !== 'disabled').map((r) => [r.id, r.status]))
}

/** `npm run conformance -- merge ...`: the subcommand comes first, which runConformance's --report-dir would not let it. */
async function runMerge(args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts/conformance.ts'), 'merge', ...args], {
    cwd: scratch,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
  return { exitCode, stdout, stderr }
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'gc-selection-'))
  gateway = await startEmbeddedGateway({ faults: ['mode-unknown'], minuteMs: DEFAULTS.embeddedMinuteMs })
  await startProxy(gateway.url)
})

afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()))
  await gateway.close()
  rmSync(scratch, { recursive: true, force: true })
})

// Every other way a baseline file can be wrong is one line too: test/unit/harness/baseline.test.ts.
test('a baseline naming an unknown requirement: exit 2 and one line, before any target is prepared', async () => {
  const file = join(scratch, 'bad.json')
  writeFileSync(
    file,
    JSON.stringify({
      entries: [
        { id: BROKEN, reason: 'x' },
        { id: 'P9-nothing', reason: 'x' },
      ],
    }),
  )
  await withRun(['--family', 'models', '--baseline', file], env(), (run) => {
    expect(run.exitCode).toBe(2)
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr.trim()).toMatch(
      /^conformance: baseline .*bad\.json: entries\[1\]\.id "P9-nothing" is not a requirement in schemas\/requirements\.json$/,
    )
    expect(run.stdout).toBe('')
  })
})

describe('against the gateway with mode-unknown', () => {
  let whole: ConformanceRun
  const shards: ConformanceRun[] = []

  afterAll(() => {
    whole?.cleanup()
    for (const run of shards) run.cleanup()
  })

  test('--baseline: a listed failure is known, a listed pass is stale and fails the run, an unlisted family is not run', async () => {
    const file = writeBaseline('baseline.json', ENTRIES)
    whole = await runConformance(['--family', 'models', '--baseline', file, '--base-url', gateway.url], env())
    const run = whole
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1)
    const summary = run.summary!
    expect(summary.verdict).toBe('stale-baseline')
    const byId = new Map(summary.requirements.map((r) => [r.id, r]))
    expect(byId.get(BROKEN)).toMatchObject({
      status: 'known',
      baseline: { state: 'known', was: 'fail', reason: ENTRIES[0]!.reason },
    })
    expect(byId.get(PASSING)).toMatchObject({ status: 'pass', baseline: { state: 'stale' } })
    expect(byId.get(ELSEWHERE)).toMatchObject({ status: 'disabled', baseline: { state: 'not-run' } })
    expect(summary.baseline).toMatchObject({ known: [BROKEN], stale: [PASSING], notRun: [ELSEWHERE] })
    expect(summary.totals.known).toBe(1)
    expect(run.stdout).toContain(`KNOWN ${BROKEN}: known failure (baseline): ${ENTRIES[0]!.reason}`)
    expect(run.stdout).toContain(`STALE ${PASSING}: passes now`)
    expect(run.stdout).not.toContain(`FAIL ${BROKEN}`)
    // The failing test judges the model list its file fetched once for several tests: a second try would only judge
    // that answer again, so none is made ('reused'), and the failure is not called flaky.
    expect(byId.get(BROKEN)?.tests.map((t) => t.rerun)).toEqual(['reused'])
    expect(byId.get(BROKEN)?.flaky).toBeUndefined()
    const latest = join(run.reportRoot, 'latest')
    const junit = readFileSync(join(latest, 'junit.xml'), 'utf8')
    expect(junit).toMatch(new RegExp(`\\[${BROKEN}\\][^\\n]*\\n\\s*<skipped message="known failure \\(baseline\\)`))
    expect(junit).not.toContain('<failure')
    expect(readFileSync(join(latest, 'summary.md'), 'utf8')).toMatch(
      /Stale baseline entries[\s\S]*P1-2\.3-alternate-list/,
    )
  }, 120_000)

  test('--shard 1/2 and 2/2 split the files; their merge judges as the whole run did, the baseline included', async () => {
    const file = join(scratch, 'baseline.json')
    for (const i of [1, 2])
      shards.push(
        await runConformance(
          ['--family', 'models', '--shard', `${i}/2`, '--baseline', file, '--base-url', gateway.url],
          env(),
        ),
      )
    const [one, two] = shards.map((s) => s.summary!) as [Summary, Summary]
    expect([one.selection.shard, two.selection.shard]).toEqual([
      { index: 1, count: 2 },
      { index: 2, count: 2 },
    ])
    // Each shard ran one of the two models files, and left what it did not reach to the other, not skipped.
    const files = (s: Summary): string[] =>
      [...new Set(s.requirements.flatMap((r) => r.tests.map((t) => t.file)))].sort()
    expect([...files(one), ...files(two)].sort()).toEqual([
      'suites/models/alternate-format.test.ts',
      'suites/models/models.test.ts',
    ])
    for (const s of [one, two]) expect(s.requirements.filter((r) => r.status === 'skip').map((r) => r.id)).toEqual([])

    const mergeRoot = join(scratch, 'merged')
    {
      const merge = await runMerge([
        join(shards[0]!.reportRoot, 'latest'),
        join(shards[1]!.reportRoot, 'latest'),
        '--report-dir',
        mergeRoot,
      ])
      expect(merge.exitCode, `${merge.stdout}\n${merge.stderr}`).toBe(1)
      const merged = JSON.parse(readFileSync(join(mergeRoot, 'latest', 'summary.json'), 'utf8')) as Summary
      expect(merged.verdict).toBe('stale-baseline')
      expect(judged(merged)).toEqual(judged(whole.summary!))
      expect(merged.tests.total).toBe(whole.summary!.tests.total)
      expect(merged.baseline).toMatchObject({ known: [BROKEN], stale: [PASSING], notRun: [ELSEWHERE] })
      expect(merged.mergedFrom?.map((m) => m.shard?.index)).toEqual([1, 2])
      const junit = readFileSync(join(mergeRoot, 'latest', 'junit.xml'), 'utf8')
      expect(Number(/<testsuites [^>]*tests="(\d+)"/.exec(junit)?.[1])).toBe(
        whole.summary!.tests.total + (junit.match(/every response of the run/g) ?? []).length,
      )
      const allure = (root: string): number => readdirSync(join(root, 'latest', 'allure-results')).length
      expect(allure(mergeRoot)).toBe(allure(shards[0]!.reportRoot) + allure(shards[1]!.reportRoot))
      expect(merge.stdout).toContain(`STALE ${PASSING}`)
    }
  }, 180_000)

  // The other refusals (targets, as-of dates, repeated shards, baselines) are one line too: test/unit/harness/merge.test.ts.
  test('merge refuses a missing shard (exit 2, one line)', async () => {
    const alone = await runMerge([join(shards[0]!.reportRoot, 'latest')])
    expect(alone.exitCode).toBe(2)
    expect(alone.stderr.trim()).toMatch(/^conformance: shard \d\/2 missing: merge every shard of the run$/)
  }, 60_000)

  test('--level must with --update-baseline: only MUST tests run; the file keeps known reasons, drops the stale entry, keeps what was not run', async () => {
    const file = join(scratch, 'update.json')
    copyFileSync(join(scratch, 'baseline.json'), file)
    await withRun(
      ['--family', 'models', '--level', 'must', '--baseline', file, '--update-baseline', '--base-url', gateway.url],
      env(),
      (run) => {
        expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0) // judged with the file it wrote: one known failure, nothing stale
        const summary = run.summary!
        expect(summary.selection.level).toBe('MUST')
        for (const r of MODELS) {
          if (r.level === 'SHOULD') {
            expect(r.id && statusOf(summary, r.id)).toBe('disabled')
            expect(summary.requirements.find((x) => x.id === r.id)?.tests.every((t) => t.status === 'unselected')).toBe(
              true,
            )
          } else {
            expect([r.id, statusOf(summary, r.id)]).toEqual([r.id, r.id === BROKEN ? 'known' : 'pass'])
          }
        }
        const written = JSON.parse(readFileSync(file, 'utf8')) as { entries: Array<{ id: string; reason: string }> }
        expect(written.entries).toEqual([ENTRIES[0], ENTRIES[2]].sort((a, b) => a!.id.localeCompare(b!.id)))
        expect(summary.baseline?.updated).toEqual({ added: [], removed: [PASSING] })
        expect(run.stdout).toContain(`Baseline written: ${file} (2 entries)`)
      },
    )
  }, 120_000)
})

describe('a failure that passes when run again at once', () => {
  test('is reported flaky: still a failure (exit 1), labelled in the console and the summary; the evidence is the first try', async () => {
    flipped.left = 1
    flipped.seen = 0
    await withRun(['--family', 'models', '--grep', FLIPPED, '--base-url', proxyUrl], env(), (run) => {
      expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1)
      const r = run.summary!.requirements.find((x) => x.id === FLIPPED)!
      expect(r).toMatchObject({ status: 'fail', flaky: true })
      expect(r.tests.map((t) => [t.status, t.rerun])).toEqual([['fail', 'pass']])
      expect(r.evidence[0]?.exchange?.status).toBe(500)
      expect(r.evidence[0]?.message).toMatch(/Run again at once: passed: the failure is flaky/)
      expect(run.stdout).toContain(`FAIL (flaky: passed when run again at once) ${FLIPPED}`)
      expect(readFileSync(join(run.reportRoot, 'latest', 'summary.md'), 'utf8')).toMatch(
        /## Failures[\s\S]*P1-7-unknown-model-404[^\n]*\(flaky/,
      )
      expect(flipped.seen).toBe(2)
    })
  }, 120_000)

  test('--no-rerun: the failure is tried once, and not labelled', async () => {
    flipped.left = 1
    flipped.seen = 0
    await withRun(['--family', 'models', '--grep', FLIPPED, '--no-rerun', '--base-url', proxyUrl], env(), (run) => {
      expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1)
      const r = run.summary!.requirements.find((x) => x.id === FLIPPED)!
      expect(r.status).toBe('fail')
      expect(r.flaky).toBeUndefined()
      expect(r.tests[0]?.rerun).toBeUndefined()
      expect(flipped.seen).toBe(1)
    })
  }, 120_000)
})
