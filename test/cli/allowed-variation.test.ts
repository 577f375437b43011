/**
 * The suites follow Part 1 §9.2 themselves: against the reference gateway with every allowed variation on
 * (--vary: unknown properties in every object, keys reordered, opaque ids in another format, unfamiliar stream
 * events and comments, CRLF line ends, events split across writes), a full run finds nothing to fail or warn about.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SEEDED_KEY_ENV } from '../../gateway/accounts.ts'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import { VARY_PROPERTY } from '../../gateway/vary.ts'
import { DEFAULTS } from '../../harness/config.ts'
import { keyEnv, withRun } from '../support/run-conformance.ts'

let gateway: EmbeddedGateway

beforeAll(async () => {
  gateway = await startEmbeddedGateway({ vary: true, minuteMs: DEFAULTS.embeddedMinuteMs })
})

afterAll(() => gateway.close())

test('a full run against the varied gateway is conformant, with no failure and no warning', async () => {
  // A remote target's default budget would skip most billable checks; the reference gateway's credit is play money.
  await withRun(['--base-url', gateway.url], { ...keyEnv({ ...gateway.keys }, SEEDED_KEY_ENV), GATEWAY_BUDGET_USD: '100000' }, (run) => {
    const summary = run.summary
    expect(summary, run.stderr).toBeDefined()
    const judged = summary!.requirements.filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'error')
    expect(judged.map((r) => `${r.id}: ${r.status}: ${r.evidence[0]?.message.split('\n').find((l) => l.startsWith('Seen')) ?? ''}`)).toEqual([])
    expect(run.exitCode, run.stdout).toBe(0)
  })
}, 420_000)

test('the variation is really on: unknown properties first, reordered keys', async () => {
  const response = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${gateway.keys.main}` } })
  const body = (await response.json()) as Record<string, unknown>
  expect(Object.keys(body)[0]).toBe(VARY_PROPERTY)
})
