/**
 * tier-N-files: uploads per minute (section 8.4) at twice the tier's limit, with a file of a few bytes. Every
 * upload is deleted afterwards, paced by the delete limit's own headers.
 */
import { randomBytes } from 'node:crypto'
import { fileLimitsOf } from '../../harness/limits.ts'
import { runFileName } from '../../harness/worker/run-tag.ts'
import {
  connectionsFor,
  phaseMs,
  ratePerSecond,
  requireKey,
  slotOf,
  TIERS,
  type PlanContext,
  type Profile,
  type ProfileListing,
} from './profile.ts'
import type { PhasePlan, RequestSpec } from '../types.ts'

/**
 * An upload named `gc-<runId>-load-<label>.txt` (harness/worker/run-tag.ts), so a sweep can find what a stopped run
 * left.
 */
export function uploadRequest(runId: string, label: string): RequestSpec {
  const boundary = `----gc-load-${randomBytes(8).toString('hex')}`
  const body = Buffer.from(
    [
      `--${boundary}`,
      'Content-Disposition: form-data; name="purpose"',
      '',
      'user_data',
      `--${boundary}`,
      `Content-Disposition: form-data; name="file"; filename="${runFileName(runId, `load-${label}`, 'txt')}"`,
      'Content-Type: text/plain',
      '',
      'load test file',
      `--${boundary}--`,
      '',
    ].join('\r\n'),
  )
  return {
    method: 'POST',
    path: '/v1/files',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    collectId: true,
  }
}

export const PROFILES: ProfileListing[] = [{ order: 30, make: () => TIERS.map(tierFilesProfile) }]

export function tierFilesProfile(tier: number): Profile {
  const name = `tier-${tier}-files`
  const limits = fileLimitsOf(tier)
  return {
    name,
    description:
      `Uploads per minute (section 8.4) with the tier-${tier} key at twice its limit of ` +
      `${limits?.uploadsPerMinute} per minute; every upload is deleted afterwards`,
    tier,
    caps: { maxDurationMs: 20 * 60_000, maxRequests: 20_000 },
    async plan(ctx: PlanContext): Promise<PhasePlan[]> {
      const slot = slotOf(tier)
      requireKey(ctx, slot, name)
      const limit = limits?.uploadsPerMinute as number
      const rate = ratePerSecond(ctx, 2 * limit)
      return [
        {
          name: 'uploads',
          description: `2x the upload limit: ${rate.toFixed(2)} uploads/s against ${limit} per minute`,
          engine: 'scheduler',
          slot,
          requests: [uploadRequest(ctx.runId, `tier${tier}`)],
          rate,
          connections: connectionsFor(ctx, rate),
          durationMs: phaseMs(ctx, 2.2),
          bucket: 'requests',
          expectedLimit: limit,
          fromRest: true,
          verdicts: ['admission', 'headers', 'recovery'],
        },
      ]
    },
  }
}
