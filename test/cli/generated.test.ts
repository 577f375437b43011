/**
 * The generation phase's proof (suites/generated/): against the faithful reference gateway it fails nothing; against
 * a gateway with faults that break request validation it files each under the requirement its constraint names: a
 * missing input served (P1-4.5-required-fields, MUST: fail), temperature 2.01, a 65-character safety_identifier and
 * metadata of 17 pairs accepted (their SHOULD refusals: warn), a body that is not JSON answered 500 on embeddings
 * (P1-7-compatible-malformed-json), a moderation without input served (P2-7-moderation-400) and page 10001 served
 * (P1-4.2-page-refused). The faulty run takes every case of those routes (--generate-runs 40), and nothing else.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SEEDED_KEY_ENV } from '../../gateway/account/accounts.ts'
import type { EmbeddedGateway } from '../../gateway/embedded.ts'
import { PHASE_REQUIREMENTS } from '../../harness/generate/filing.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import type { Summary } from '../../harness/report/summary.ts'
import { startGatewayThread } from '../support/gateway-thread.ts'
import { keyEnv, withRun } from '../support/run-conformance.ts'

const FAULTS = [
  'missing-input-accepted',
  'temperature-above-2-accepted',
  'safety-identifier-unchecked',
  'metadata-17-pairs-accepted',
  'compat-malformed-json-500',
  'moderation-missing-input-served',
  'page-unchecked',
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
}
const ROUTES = ['POST /v1/responses', 'POST /v1/embeddings', 'POST /v1/moderations', 'GET /user/v1/transactions']

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

/** The stateful sequences (suites/generated/lifecycle.test.ts): each fault of the file lifecycle is filed under its rule. */
const LIFECYCLE_FAULTS = [
  { fault: 'delete-noop', breaks: 'P1-4.4-delete' },
  { fault: 'file-list-bytes-kib', breaks: 'P1-4.4-retrieve' },
  { fault: 'unknown-file-400', breaks: 'P1-4.4-delete' },
]

test.each(LIFECYCLE_FAULTS)(
  'generated file sequences against $fault fail $breaks alone, naming the sequence and its call',
  async ({ fault, breaks }) => {
    const gateway = await startGatewayThread({ faults: [fault], minuteMs: DEFAULTS.embeddedMinuteMs })
    try {
      const env = {
        GATEWAY_BASE_URL: gateway.url,
        ...keyEnv({ ...gateway.keys }, SEEDED_KEY_ENV),
        GATEWAY_MINUTE_MS: String(DEFAULTS.embeddedMinuteMs),
        // Shrinking replays sequences; each waits the settle bound for what a faithful store shows at once.
        GATEWAY_SETTLE_MS: '1000',
      }
      await withRun(['--family', 'generated', '--grep', 'generated file sequences'], env, (run) => {
        const found = judged(run.summary)
        expect(
          found.map((r) => [r.id, r.status]),
          found.map((r) => r.evidence[0]?.message).join('\n---\n'),
        ).toEqual([[breaks, 'fail']])
        expect(found[0]!.evidence[0]!.message).toMatch(
          /generated with seed 1: upload\(user_data\), [\s\S]*Reproduce: curl /,
        )
        expect(run.summary!.fixFirst?.[0]?.exchange).toBeDefined()
        expect(run.exitCode).toBe(1)
      })
    } finally {
      await gateway.close()
    }
  },
  120_000,
)
