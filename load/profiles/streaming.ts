/**
 * streaming: streamed /v1/responses at a constant arrival rate, timed event by event (section 6.2): time to first
 * token, inter-token latency, end-to-end latency and output tokens per second, as p50/p90/p99.
 */
import { connectionsFor, requireKey, slotOf, type PlanContext, type Profile } from '../profile.ts'
import type { PhasePlan } from '../types.ts'
import { anyChatModel } from './tier-model.ts'

export const STREAMING = { rate: 5, seconds: 20, maxOutputTokens: 128 }

export function streamingProfile(): Profile {
  return {
    name: 'streaming',
    description: `Streamed POST /v1/responses at a constant arrival rate (${STREAMING.rate}/s by default): TTFT, inter-token and end-to-end latency, output tokens per second`,
    tier: null,
    caps: { maxDurationMs: 10 * 60_000, maxRequests: 20_000 },
    async plan(ctx: PlanContext): Promise<PhasePlan[]> {
      const slot = ctx.tier === null ? 'main' : slotOf(ctx.tier)
      requireKey(ctx, slot, 'streaming')
      const model = await anyChatModel(ctx, slot)
      const rate = ctx.rate ?? STREAMING.rate
      return [
        {
          name: 'streams',
          description: `${rate}/s streamed responses of up to ${STREAMING.maxOutputTokens} tokens (${model})`,
          engine: 'scheduler',
          slot,
          requests: [
            {
              method: 'POST',
              path: '/v1/responses',
              headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
              body: JSON.stringify({ model, input: 'Write a short paragraph about the sea.', stream: true, max_output_tokens: STREAMING.maxOutputTokens }),
              stream: true,
            },
          ],
          rate,
          connections: connectionsFor(ctx, rate * 4),
          durationMs: ctx.durationMs ?? STREAMING.seconds * 1000,
          bucket: null,
          expectedLimit: null,
          fromRest: false,
          verdicts: ['streaming'],
        },
      ]
    },
  }
}
