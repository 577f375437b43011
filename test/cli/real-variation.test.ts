/**
 * Judge what the reference states, for every implementation it allows: against the reference gateway with every
 * choice of gateway/variations.ts made as real providers make it (--real: a running video `in_progress`, WAV of
 * unknown size, a charge and a transaction that show up seconds later, content by redirect, reset headers in bare
 * seconds, a chat model that takes only its default temperature, no background mode, the makers' names for the ids
 * the reference neutralised, …), a whole run fails no MUST. Warnings are allowed: a SHOULD reads one choice as the
 * natural one, and the run lists where the target made another.
 *
 * Told the makers' names (GATEWAY_NAMES), the run judges every requirement; not told them, what needs a
 * neutralised name is skipped naming the variable, and nothing fails.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SEEDED_KEY_ENV, SEEDED_KEYS } from '../../gateway/account/accounts.ts'
import type { EmbeddedGateway } from '../../gateway/embedded.ts'
import { REAL_NAMES } from '../../gateway/variations.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import type { RequirementResult } from '../../harness/report/results.ts'
import { startGatewayThread } from '../support/gateway-thread.ts'
import { keyEnv, modelsEnv, withRun, type ConformanceRun } from '../support/run-conformance.ts'

let gateway: EmbeddedGateway
let unnamed: EmbeddedGateway

beforeAll(async () => {
  gateway = await startGatewayThread({ real: true, minuteMs: DEFAULTS.embeddedMinuteMs })
  unnamed = await startGatewayThread({ real: true, minuteMs: DEFAULTS.embeddedMinuteMs })
})

afterAll(async () => {
  await gateway.close()
  await unnamed.close()
})

// The reference gateway's credit is play money; its minute is the embedded one, which the rate-limit bounds must know.
const env = {
  ...keyEnv({ ...SEEDED_KEYS }, SEEDED_KEY_ENV),
  GATEWAY_BUDGET_USD: '100000',
  GATEWAY_MINUTE_MS: String(DEFAULTS.embeddedMinuteMs),
  // Its late charges show 2.5 s after the call (gateway/account/settling.ts); the default bound is for real targets.
  GATEWAY_SETTLE_MS: '8000',
}
const NAMES = Object.entries(REAL_NAMES)
  .map(([reference, maker]) => `${reference}=${maker}`)
  .join(',')

/** The families that send or expect a name the reference neutralised. */
const NAMED_FAMILIES = 'videos,search,ocr,audio,synthesize,native'

function line(r: RequirementResult): string {
  const seen = r.evidence[0]?.message.split('\n').find((l) => l.startsWith('Seen')) ?? r.reason ?? ''
  return `${r.id}: ${r.status}: ${seen}`
}

function failedMust(run: ConformanceRun): string[] {
  expect(run.summary, run.stderr).toBeDefined()
  return run
    .summary!.requirements.filter((r) => (r.level === 'MUST' && r.status === 'fail') || r.status === 'error')
    .map(line)
}

test.concurrent('a whole run against real choices, told their names, fails no MUST and ends conformant', async () => {
  await withRun(['--base-url', gateway.url, '--names', NAMES], { ...env, ...modelsEnv(gateway.models) }, (run) => {
    expect(failedMust(run)).toEqual([])
    const warnings = run.summary!.requirements.filter((r) => r.status === 'warn')
    // Listed, not judged: which SHOULD readings this gateway's choices departed from.
    if (warnings.length > 0) console.info(`warnings against --real:\n${warnings.map(line).join('\n')}`)
    // Every MUST judged or not observed: nothing is left skipped for want of a name or a capability.
    expect(run.summary!.requirements.filter((r) => r.level === 'MUST' && r.status === 'skip').map(line)).toEqual([])
    expect(run.exitCode, run.stdout).toBe(0)
  })
}, 420_000)

test.concurrent('not told the makers names, what needs them is skipped naming GATEWAY_NAMES, and nothing fails', async () => {
  await withRun(['--base-url', unnamed.url, '--family', NAMED_FAMILIES], env, (run) => {
    expect(failedMust(run)).toEqual([])
    const needNames = run.summary!.requirements.filter(
      (r) => r.status === 'skip' && /GATEWAY_NAMES/.test(r.reason ?? ''),
    )
    expect(needNames.length).toBeGreaterThan(0)
  })
}, 420_000)
