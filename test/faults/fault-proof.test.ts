/**
 * The proof that the suites can fail (DESIGN.md, Requirements): for every named fault of the reference gateway,
 * a conformance run against the gateway with that fault fails exactly the requirements the fault breaks, and
 * exits 1 when one of them is a MUST. And every MUST requirement of the catalogue is broken by some fault.
 */
import { describe, expect, test } from 'vitest'
import { SEEDED_KEY_ENV } from '../../gateway/accounts.ts'
import { startEmbeddedGateway } from '../../gateway/embedded.ts'
import { FAULTS } from '../../gateway/faults.ts'
import { catalogue } from '../../harness/catalogue.ts'
import { keyEnv, limiter, runConformance } from '../support/run-conformance.ts'

const limit = limiter(2)

describe('every MUST requirement can fail', () => {
  test('each MUST requirement of the catalogue is broken by at least one named fault', () => {
    const broken = new Set(FAULTS.flatMap((f) => f.breaks))
    const unproven = [...catalogue().values()].filter((r) => r.level === 'MUST' && !broken.has(r.id)).map((r) => r.id)
    expect(unproven).toEqual([])
  })

  test('every fault names requirements that exist', () => {
    const unknown = FAULTS.flatMap((f) => f.breaks.filter((id) => !catalogue().has(id)).map((id) => `${f.name}: ${id}`))
    expect(unknown).toEqual([])
  })
})

describe.concurrent('a run against each fault fails exactly what the fault breaks', () => {
  for (const fault of FAULTS) {
    test(`${fault.name} -> ${fault.breaks.join(', ')}`, () =>
      limit(async () => {
        const families = [...new Set(fault.breaks.map((id) => catalogue().get(id)?.family ?? 'unknown'))]
        const gateway = await startEmbeddedGateway({ faults: [fault.name], ...(fault.asOf ? { now: `${fault.asOf}T12:00:00Z` } : {}) })
        let run
        try {
          run = await runConformance(
            ['--base-url', gateway.url, '--family', families.join(','), ...(fault.asOf ? ['--as-of', fault.asOf] : [])],
            keyEnv({ ...gateway.keys }, SEEDED_KEY_ENV),
          )
        } finally {
          await gateway.close()
        }
        try {
          const summary = run.summary
          expect(summary, `no summary.json; stderr: ${run.stderr}\n${run.stdout}`).toBeDefined()
          const failing = summary!.requirements.filter((r) => r.status === 'fail' || r.status === 'warn').map((r) => r.id).sort()
          const errors = summary!.requirements.filter((r) => r.status === 'error').map((r) => r.id)
          expect({ failing, errors }, run.stdout).toEqual({ failing: [...fault.breaks].sort(), errors: [] })
          const breaksMust = fault.breaks.some((id) => catalogue().get(id)?.level === 'MUST')
          expect(run.exitCode, run.stdout).toBe(breaksMust ? 1 : 0)
        } finally {
          run.cleanup()
        }
      }),
    240_000)
  }
})
