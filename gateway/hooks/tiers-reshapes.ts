/** The tiers faults that only reshape the headers of a response, applied by the hooks; ./tiers-faults.ts names them. */
import { RATE_LIMIT_BUCKETS, type HeaderReshapes } from '../faults/reply-headers.ts'
import type { TiersFault } from './tiers-faults.ts'

/** The tier faults that only bend the headers written (../faults/reply-headers.ts); the others act in the limiter. */
export const TIERS_HEADER_RESHAPES: HeaderReshapes<TiersFault> = {
  // On /v1/usage the requests limit is given per hour, sixty times the per-minute limit.
  'usage-limit-header-wrong': (reply, context) => {
    const limit = reply.getHeader('x-ratelimit-limit-requests')
    if (context.family === 'usage' && limit !== undefined)
      reply.header('x-ratelimit-limit-requests', String(Number(limit) * 60))
  },
  'remaining-not-decreasing': (reply) => {
    for (const bucket of RATE_LIMIT_BUCKETS) {
      const limit = reply.getHeader(`x-ratelimit-limit-${bucket}`)
      if (limit !== undefined) reply.header(`x-ratelimit-remaining-${bucket}`, limit)
    }
  },
  'project-headers-partial': (reply) => {
    reply.removeHeader('x-ratelimit-reset-project-tokens')
  },
}
