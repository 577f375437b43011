/**
 * The generation phase's proof (suites/generated/): against the faithful reference gateway it fails nothing; against
 * a gateway with faults that break request validation it files each under the requirement its constraint names: a
 * missing input served (P1-4.5-required-fields, MUST: fail), temperature 2.01, a 65-character safety_identifier and
 * metadata of 17 pairs accepted (their SHOULD refusals: warn), a body that is not JSON answered 500 on embeddings
 * (P1-7-compatible-malformed-json), a moderation without input served (P2-7-moderation-400) and page 10001 served
 * (P1-4.2-page-refused), and text:synthesize refusals in the compatible body rather than the one §7 gives that
 * route (P2-7-synthesis-error-body). The faulty run takes every case of those routes (--generate-runs 40), and nothing
 * else.
 * Against a gateway with a fault of a lifecycle (files, stored responses, video jobs), that resource's sequences file
 * it under the one rule it breaks, naming the sequence and the call that shows it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createVitest, type Reporter, type SerializedError, type TestModule, type Vitest } from 'vitest/node'
import { SEEDED_KEY_ENV } from '../../gateway/account/accounts.ts'
import type { EmbeddedGateway } from '../../gateway/embedded.ts'
import { PHASE_REQUIREMENTS } from '../../harness/generate/filing.ts'
import { todayUtc } from '../../harness/clock.ts'
import { requirements } from '../../harness/requirements.ts'
import { ConformanceReporter } from '../../harness/report/reporter.ts'
import type { Summary } from '../../harness/report/summary.ts'
import { DEFAULT_NATIVE_KEY_HEADER, DEFAULTS, type RunOptions, type TargetConfig } from '../../harness/setup/config.ts'
import { CONFORMANCE_PROJECTS } from '../../harness/setup/projects.ts'
import { newRunId } from '../../harness/setup/target.ts'
import { startGatewayThread } from '../support/gateway-thread.ts'
import { keyEnv, ROOT, withRun } from '../support/run-conformance.ts'

const FAULTS = [
  'missing-input-accepted',
  'temperature-above-2-accepted',
  'safety-identifier-unchecked',
  'metadata-17-pairs-accepted',
  'compat-malformed-json-500',
  'moderation-missing-input-served',
  'page-unchecked',
  'synthesize-compatible-error-body',
]
/** What those faults break, and how each shows: a MUST fails, a SHOULD warns. */
const EXPECTED = {
  'P1-4.5-required-fields': 'fail',
  'P1-4.5-temperature-refused': 'warn',
  'P1-4.5-safety-identifier-refused': 'warn',
  'P1-4.5-metadata-refused': 'warn',
  'P1-7-compatible-malformed-json': 'fail',
  'P2-7-moderation-400': 'fail',
  'P1-4.2-page-refused': 'warn',
  'P2-7-synthesis-error-body': 'fail',
}
const ROUTES = [
  'POST /v1/responses',
  'POST /v1/embeddings',
  'POST /v1/moderations',
  'GET /user/v1/transactions',
  'POST /v1/text:synthesize',
]

const PHASE: string[] = Object.values(PHASE_REQUIREMENTS)

let faulty: EmbeddedGateway

beforeAll(async () => {
  faulty = await startGatewayThread({ faults: FAULTS, minuteMs: DEFAULTS.embeddedMinuteMs })
})
afterAll(() => faulty?.close())

const judged = (summary: Summary | undefined) =>
  (summary?.requirements ?? []).filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'error')

const generatedTests = (summary: Summary | undefined) =>
  (summary?.requirements ?? []).flatMap((r) => r.tests.filter((t) => t.file.includes('suites/generated/')))

test('against the faithful reference gateway, the generated requests fail nothing', async () => {
  await withRun(['--family', 'generated'], {}, (run) => {
    expect(run.summary, run.stderr).toBeDefined()
    const failed = judged(run.summary).filter((r) => r.status !== 'warn')
    expect(
      failed.map((r) => r.id),
      failed.map((r) => r.evidence[0]?.message).join('\n---\n'),
    ).toEqual([])
    expect(generatedTests(run.summary).length).toBeGreaterThan(60)
    expect(run.exitCode).toBe(0)
  })
}, 120_000)

test('against faults of request validation, each is filed under the requirement its constraint names', async () => {
  const grep = `(${ROUTES.map((r) => r.replaceAll('/', '\\/')).join('|')}) \\(generated`
  const env = {
    GATEWAY_BASE_URL: faulty.url,
    ...keyEnv({ ...faulty.keys }, SEEDED_KEY_ENV),
    GATEWAY_BUDGET_USD: '100000',
    GATEWAY_MINUTE_MS: String(DEFAULTS.embeddedMinuteMs),
  }
  await withRun(['--family', 'generated', '--generate-runs', '40', '--grep', grep], env, (run) => {
    const found = Object.fromEntries(judged(run.summary).map((r) => [r.id, r.status]))
    const why = judged(run.summary)
      .map((r) => r.evidence[0]?.message)
      .join('\n---\n')
    expect(found, why).toMatchObject(EXPECTED)
    // Beside them, only the phase's own SHOULD may warn: constraints the faithful gateway does not check either.
    const beside = Object.entries(found).filter(([id]) => !(id in EXPECTED))
    expect(beside, why).toEqual(beside.filter(([id, status]) => PHASE.includes(id) && status === 'warn'))
    const evidence = judged(run.summary).flatMap((r) => r.evidence.map((e) => e.message))
    // Each finding names its case and seed, and carries the exchange and a curl line.
    for (const message of evidence)
      expect(message).toMatch(/generated (negative|positive|boundary)-\d+ of .*, seed 1\)[\s\S]*Reproduce: curl /)
    expect(run.exitCode).toBe(1)
  })
}, 120_000)

/**
 * The stateful sequences (suites/generated/*lifecycle.test.ts): each fault of a lifecycle is filed under the one rule
 * it breaks that the sequences judge, at that rule's level (a MUST fails, a SHOULD warns), naming the sequence. Rules
 * the sequences judged before the break, or past a status they noted and went on from, still pass (`passes`).
 */
const LIFECYCLE_FAULTS: Array<{
  fault: string
  breaks: string
  kind: keyof typeof SEQUENCE_FILES
  passes?: string[]
}> = [
  { fault: 'delete-noop', breaks: 'P1-4.4-delete', kind: 'file' },
  { fault: 'file-list-bytes-kib', breaks: 'P1-4.4-retrieve', kind: 'file' },
  { fault: 'unknown-file-400', breaks: 'P1-4.4-delete', kind: 'file' },
  {
    fault: 'retrieve-404',
    breaks: 'P1-4.5-store-retrieve',
    kind: 'response',
    passes: ['P1-4.5-input-items', 'P1-4.5-chain-input-tokens'],
  },
  { fault: 'retrieve-upstream-id', breaks: 'P1-4.5-retrieve-same', kind: 'response' },
  { fault: 'input-items-404', breaks: 'P1-4.5-input-items', kind: 'response' },
  { fault: 'store-false-chain-continued', breaks: 'P1-4.5-store-false', kind: 'response' },
  {
    fault: 'unknown-response-400',
    breaks: 'P1-7-unstored-response-404',
    kind: 'response',
    passes: ['P1-4.5-store-false', 'P1-4.5-chain-input-tokens'],
  },
  { fault: 'chain-context-not-counted', breaks: 'P1-4.5-chain-input-tokens', kind: 'response' },
  { fault: 'video-retrieve-no-safety-identifier', breaks: 'P2-4.1-retrieve', kind: 'video' },
  { fault: 'video-filter-safety-ignored', breaks: 'P2-4.1-list-filter-safety', kind: 'video' },
  { fault: 'video-delete-noop', breaks: 'P2-4.1-delete', kind: 'video' },
  {
    fault: 'video-unknown-400',
    breaks: 'P1-7-video-unknown-404',
    kind: 'video',
    passes: ['P2-4.1-delete', 'P2-4.1-list-filter-safety'],
  },
  { fault: 'video-list-status-stale', breaks: 'P2-3-terminal-stable', kind: 'video' },
]

/** Each kind's suite file, and how its sequences open in a finding's words. */
const SEQUENCE_FILES = {
  file: { file: 'suites/generated/lifecycle.test.ts', opening: 'upload\\(user_data\\)' },
  response: {
    file: 'suites/generated/responses-lifecycle.test.ts',
    opening: 'create\\(stored\\), create\\(store false\\)',
  },
  video: { file: 'suites/generated/videos-lifecycle.test.ts', opening: 'create\\(0\\), create\\(1\\)' },
}

/** Hands a run's events to the reporter of the run under way: a vitest instance keeps its reporters for life. */
class CurrentReporter implements Reporter {
  current: ConformanceReporter | undefined
  onTestModuleEnd(module: TestModule): void {
    this.current?.onTestModuleEnd(module)
  }
  async onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>): Promise<void> {
    await this.current?.onTestRunEnd(modules, errors)
  }
}

/**
 * One vitest instance for every sequence run, which keeps its worker thread from run to run. Runs take turns: a run
 * that outlived its test's timeout still reports to its own reporter.
 */
const reporting = new CurrentReporter()
let instance: Promise<Vitest> | undefined
let turns: Promise<unknown> = Promise.resolve()
const sequencesVitest = (): Promise<Vitest> =>
  (instance ??= createVitest('test', {
    root: ROOT,
    project: CONFORMANCE_PROJECTS,
    watch: false,
    maxWorkers: 1,
    reporters: [reporting],
  }))
afterAll(async () => (await instance)?.close())

/**
 * One suite file run in this process against a gateway with one fault, taken as the embedded gateway and judged by
 * the conformance reporter as a command's run is: the video sequences make jobs against the embedded gateway only (a
 * real target bills them by the second), and the command starts that one without faults.
 */
async function embeddedRun(fault: string, file: string): Promise<{ summary: Summary | undefined; exitCode: number }> {
  const gateway = await startGatewayThread({ faults: [fault], minuteMs: DEFAULTS.embeddedMinuteMs })
  const scratch = mkdtempSync(join(tmpdir(), 'gc-sequences-'))
  try {
    const common = {
      keys: { ...gateway.keys },
      asOf: todayUtc(),
      budgetUsd: null,
      timeoutMs: DEFAULTS.timeoutMs,
      largeUploads: false,
      models: { ...gateway.models },
      nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
      // Shrinking replays sequences; each waits the settle bound for what a faithful store shows at once.
      settleMs: 1000,
    }
    const target: TargetConfig = {
      ...common,
      baseUrl: gateway.url,
      embedded: true,
      minuteMs: DEFAULTS.embeddedMinuteMs,
      runId: newRunId(),
    }
    const options: RunOptions = {
      ...common,
      baseUrl: null,
      asOfExplicit: false,
      families: ['generated'],
      grep: null,
      reportDir: scratch,
      filters: [file],
    }
    const reporter = new ConformanceReporter({
      target,
      options,
      runDir: join(scratch, target.runId),
      reportRoot: scratch,
      root: ROOT,
      tool: { name: 'generated-proof', version: '0' },
      write: () => {},
      writeReports: false,
    })
    const vitest = await sequencesVitest()
    const turn = turns.then(async () => {
      reporting.current = reporter
      try {
        vitest.provide('runConfig', target)
        await vitest.runTestSpecifications(await vitest.globTestSpecifications([file]))
      } finally {
        reporting.current = undefined
      }
    })
    turns = turn.catch(() => {})
    await turn
    return { summary: reporter.summary, exitCode: reporter.exitCode }
  } finally {
    await gateway.close()
    rmSync(scratch, { recursive: true, force: true })
  }
}

test.each(LIFECYCLE_FAULTS)(
  'generated $kind sequences against $fault fail $breaks alone, naming the sequence and its call',
  async ({ fault, breaks, kind, passes = [] }) => {
    const status = requirements().get(breaks)?.level === 'MUST' ? 'fail' : 'warn'
    const { file, opening } = SEQUENCE_FILES[kind]
    const run = await embeddedRun(fault, file)
    const found = judged(run.summary)
    const messages = found.flatMap((r) => r.evidence.map((e) => e.message))
    expect(
      found.map((r) => [r.id, r.status]),
      messages.join('\n---\n'),
    ).toEqual([[breaks, status]])
    // The record ledger may file the same rule beside the sequences: theirs is the finding that names them.
    expect(messages.join('\n---\n')).toMatch(
      new RegExp(`generated with seed 1: ${opening}, [^\\n]*\\)[\\s\\S]*Reproduce: curl `),
    )
    expect(run.summary!.fixFirst?.[0]?.exchange).toBeDefined()
    const statuses = new Map((run.summary?.requirements ?? []).map((r) => [r.id, r.status]))
    expect(Object.fromEntries(passes.map((id) => [id, statuses.get(id)]))).toEqual(
      Object.fromEntries(passes.map((id) => [id, 'pass'])),
    )
    expect(run.exitCode).toBe(status === 'fail' ? 1 : 0)
  },
  120_000,
)
