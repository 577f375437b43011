/**
 * Every load verdict can fail: for each fault of the reference gateway that declares `loadVerdicts`, the profile
 * phase that judges the verdict is run against the gateway with that fault and the verdict must fail; against
 * the faithful gateway the same phase must pass it. Runs in process on a four-second minute (long beside a busy machine's pauses), so that a phase
 * lasts seconds.
 */
import { newRunId } from '../../harness/target.ts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { LOAD_FAULTS } from '../../gateway/faults.ts'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import { jsonGetter } from '../../load/profile.ts'
import { profileNamed } from '../../load/profiles/index.ts'
import { runProfile } from '../../load/runner.ts'
import type { LoadResult, VerdictId } from '../../load/types.ts'

const MINUTE_MS = 4000

/** Where each verdict is judged: the profile and phase, chosen so the fault shows whatever the machine's load. */
const PROOF: Record<string, { profile: string; phase: string }> = {
  // Tier 0 (3 a minute): calls never overlap, so the allowance for calls in flight is 0 and one extra call shows.
  admission: { profile: 'tier-0-usage', phase: 'double' },
  headers: { profile: 'tier-0-usage', phase: 'double' },
  recovery: { profile: 'tier-0-usage', phase: 'double' },
  'failed-calls': { profile: 'tier-0-usage', phase: 'failed-calls' },
  // Tier 2 saturated at 100 calls a minute runs a shared counter past the tier-1 probe's limit of 15.
  isolation: { profile: 'tier-2-usage', phase: 'double' },
  backoff: { profile: 'backoff', phase: 'spec7' },
}

async function runAgainst(faults: string[], proof: { profile: string; phase: string }): Promise<LoadResult> {
  const gateway: EmbeddedGateway = await startEmbeddedGateway({ minuteMs: MINUTE_MS, faults })
  try {
    const profile = profileNamed(proof.profile)
    if (!profile) throw new Error(`no profile ${proof.profile}`)
    return await runProfile({
      profile,
      context: { baseUrl: gateway.url, embedded: true, minuteMs: MINUTE_MS, keys: gateway.keys, tier: null, durationMs: null, rate: null, connections: null, timeoutMs: 10_000, runId: newRunId(), getJson: jsonGetter(gateway.url, gateway.keys, 10_000) },
      runId: `load-fault-${faults.join('+') || 'none'}`,
      shard: null,
      phases: [proof.phase],
      signal: AbortSignal.timeout(60_000),
      toolVersion: 'test',
    })
  } finally {
    await gateway.close()
  }
}

const statusOf = (result: LoadResult, id: string): string => result.verdicts.find((v) => v.id === (id as VerdictId))?.status ?? 'absent'
const explain = (result: LoadResult): string => result.verdicts.map((v) => `${v.phase}/${v.id} ${v.status}: ${v.figure} | ${v.detail}`).join('\n')

describe('every load verdict is proven by a fault', () => {
  test('each verdict that judges a limit has a fault that breaks it', () => {
    const proven = new Set(LOAD_FAULTS.flatMap((f) => f.loadVerdicts ?? []))
    expect([...proven].sort()).toEqual(Object.keys(PROOF).sort())
  })
})

const baselines = new Map<string, Promise<LoadResult>>()
const faulty = new Map<string, Promise<LoadResult>>()

beforeAll(() => {
  // All runs at once: each has its own gateway, and they mostly wait on their windows.
  for (const proof of new Set(Object.values(PROOF).map((p) => JSON.stringify(p)))) baselines.set(proof, runAgainst([], JSON.parse(proof)))
  for (const fault of LOAD_FAULTS) {
    const verdict = fault.loadVerdicts?.[0] as string
    faulty.set(fault.name, runAgainst([fault.name], PROOF[verdict]!))
  }
}, 120_000)

afterAll(async () => {
  await Promise.allSettled([...baselines.values(), ...faulty.values()])
})

describe.concurrent('the faithful gateway passes each verdict', () => {
  for (const [verdict, proof] of Object.entries(PROOF)) {
    test(`${proof.profile}/${proof.phase}: ${verdict} passes`, async () => {
      const result = await baselines.get(JSON.stringify(proof))!
      expect(statusOf(result, verdict), explain(result)).toBe('pass')
    }, 90_000)
  }
})

describe.concurrent('each load fault fails its verdict', () => {
  for (const fault of LOAD_FAULTS) {
    for (const verdict of fault.loadVerdicts ?? []) {
      test(`${fault.name} -> ${verdict}`, async () => {
        const result = await faulty.get(fault.name)!
        expect(statusOf(result, verdict), explain(result)).toBe('fail')
      }, 90_000)
    }
  }
})
