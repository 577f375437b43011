/**
 * Every built-in profile on a target whose catalogue has none of the reference's fields: the reference gateway
 * started with --bare-models (GET /v1/models lists id, object, created and owned_by only), the models named as
 * GATEWAY_MODELS names them, and the chat limit of each tier's key stated with --limit, since no model record
 * shows extra.rate_limits. A profile that looked its model up by `mode` or its limits in `extra` would stop with a
 * configuration error before its first call. Each runs briefly: a one-second minute, one-second phases at 4 calls
 * a second (--rate), one phase of each usage profile, on loopback; what is asserted is that it planned on the named models and loaded them, not the
 * verdicts of phases this short.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import { newRunId } from '../../harness/setup/target.ts'
import { jsonGetter } from '../../load/profiles/profile.ts'
import { allProfiles } from '../../load/profiles/index.ts'
import { runProfile } from '../../load/runner.ts'
import { parseLimitFlag } from '../../load/stated-limits.ts'
import type { LoadResult } from '../../load/types.ts'

const MINUTE_MS = 1000
const NAMED = {
  chat: 'gw-chat-mini',
  responses: 'gw-chat-mini',
  embedding: 'gw-embed-1',
  completion: 'gw-complete-1',
  moderation: 'omni-moderation-latest',
}
/** What each profile is told: the chat limit of a tier-N-model's key; a chat and a GET route for stated-limits. */
function limitsFor(name: string): string[] {
  const tier = /^tier-(\d)-model$/.exec(name)?.[1]
  if (tier !== undefined) return [`chat=20/1s,key=tier${tier}`]
  return name === 'stated-limits' ? ['chat=20/1s', 'GET /user/v1/credit=5/1s'] : []
}

let gateway: EmbeddedGateway
beforeAll(async () => {
  gateway = await startEmbeddedGateway({ bareModels: true, minuteMs: MINUTE_MS })
})
afterAll(async () => {
  await gateway?.close()
})

function run(name: string): Promise<LoadResult> {
  const profile = allProfiles().find((p) => p.name === name)
  if (!profile) throw new Error(`no profile ${name}`)
  return runProfile({
    profile,
    context: {
      baseUrl: gateway.url,
      embedded: true,
      minuteMs: MINUTE_MS,
      keys: gateway.keys,
      models: NAMED,
      limits: limitsFor(name).map(parseLimitFlag),
      // capacity within tier 0's ceiling: a search of a few steps.
      tier: name === 'capacity' ? 0 : null,
      durationMs: 1000,
      rate: 4,
      connections: null,
      timeoutMs: 10_000,
      runId: newRunId(),
      getJson: jsonGetter(gateway.url, gateway.keys, 10_000),
    },
    runId: `bare-${name}`,
    shard: null,
    // One phase of the usage profiles' four: the others differ only in their rate.
    phases: /^tier-\d-usage$/.test(name) ? ['double'] : null,
    signal: AbortSignal.timeout(60_000),
    toolVersion: 'test',
  })
}

describe('every built-in profile runs against a catalogue of bare models, on the models named', () => {
  // One after another: the gateway's buckets are shared by the profiles of one tier.
  for (const name of allProfiles().map((p) => p.name)) {
    test(name, async () => {
      const result = await run(name)
      const ran = result.phases
      expect(ran.length, `${name} ran no phase`).toBeGreaterThan(0)
      for (const phase of ran) {
        expect(phase.sent, `${name}/${phase.plan.name} sent nothing`).toBeGreaterThan(0)
        expect(phase.answered, `${name}/${phase.plan.name} got no answer`).toBeGreaterThan(0)
      }
      const described = ran.map((p) => p.plan.description).join(' ')
      if (['tier-0-model', 'capacity', 'streaming', 'mixed'].includes(name)) expect(described).toContain(NAMED.chat)
      // The calls that name a model reached it: some were answered 2xx (429s aside, a 4xx would say otherwise).
      const ok = ran.reduce(
        (n, p) =>
          n +
          Object.entries(p.byStatus)
            .filter(([s]) => s.startsWith('2'))
            .reduce((a, [, c]) => a + c, 0),
        0,
      )
      expect(ok, `${name}: no call was answered 2xx`).toBeGreaterThan(0)
    }, 60_000)
  }
})
