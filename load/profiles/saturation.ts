/**
 * saturation: the highest throughput the target sustains, closed loop (autocannon keeps `connections` calls in
 * flight), with the key of the highest tier that has the most room: GET /v1/models, then a non-streaming
 * /v1/responses call. Answers of every status count as throughput and are shown apart: a target that answers
 * 429 past a tier's ceiling sustains that too, and the 2xx rate is the figure to read.
 */
import { requireKey, slotOf, TIERS, type PlanContext, type Profile } from '../profile.ts'
import type { KeySlotName, PhasePlan } from '../types.ts'
import { anyChatModel } from './tier-model.ts'

export const SATURATION = {
  connections: 32, // enough to keep two cores of a gateway busy; more only queues
}

function highestTierSlot(ctx: PlanContext): KeySlotName {
  if (ctx.tier !== null) return slotOf(ctx.tier)
  const tier = [...TIERS].reverse().find((t) => ctx.keys[slotOf(t)] !== undefined)
  return tier === undefined ? 'main' : slotOf(tier)
}

export function saturationProfile(): Profile {
  return {
    name: 'saturation',
    description: 'Closed-loop saturation of GET /v1/models and of a non-streaming POST /v1/responses with the highest tier key',
    tier: null,
    caps: { maxDurationMs: 10 * 60_000, maxRequests: 2_000_000 },
    async plan(ctx: PlanContext): Promise<PhasePlan[]> {
      const slot = highestTierSlot(ctx)
      requireKey(ctx, slot, 'saturation')
      const connections = ctx.connections ?? SATURATION.connections
      const durationMs = ctx.durationMs ?? 20_000
      const common = { engine: 'autocannon' as const, slot, rate: ctx.rate, connections, durationMs, bucket: null, expectedLimit: null, fromRest: false, verdicts: ['throughput' as const] }
      const models: PhasePlan = { ...common, name: 'models', description: `GET /v1/models, ${connections} connections, closed loop`, requests: [{ method: 'GET', path: '/v1/models' }] }
      // The responses phase needs a model, looked up only when it runs (--phase models needs no lookup).
      if (ctx.phases && !ctx.phases.includes('responses')) return [models, { ...models, name: 'responses', skip: 'not selected' }]
      const model = await anyChatModel(ctx, slot)
      return [
        models,
        {
          ...common,
          name: 'responses',
          description: `POST /v1/responses (${model}, not streamed), ${connections} connections, closed loop`,
          requests: [{ method: 'POST', path: '/v1/responses', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, input: 'Say hi.', max_output_tokens: 16 }) }],
        },
      ]
    },
  }
}
