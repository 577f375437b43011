/**
 * The headers faults that only reshape the headers of a response, applied by the hooks; ./headers-faults.ts names them.
 */
import { legacyHeaderApplies } from './request-id.ts'
import { onErrors, RATE_LIMIT_BUCKETS, type HeaderReshapes } from '../faults/reply-headers.ts'
import type { HeadersFault } from './headers-faults.ts'

/**
 * The header faults that only bend the headers written (../faults/reply-headers.ts); the others change the ids minted.
 */
export const HEADERS_HEADER_RESHAPES: HeaderReshapes<HeadersFault> = {
  'no-svc-request-id-on-errors': onErrors((reply) => {
    reply.removeHeader('svc-request-id')
    reply.removeHeader('x-request-id')
  }),
  'x-request-id-after-cutoff': (reply) => {
    const id = reply.getHeader('svc-request-id')
    if (id !== undefined) reply.header('x-request-id', id)
  },
  // Inside the window x-request-id is the gateway's own; past it, one an intermediary added is left alone.
  'x-request-id-missing': (reply, _context, now) => {
    if (legacyHeaderApplies(now)) reply.removeHeader('x-request-id')
  },
  'no-ratelimit-headers-on-errors': onErrors((reply) => {
    for (const bucket of RATE_LIMIT_BUCKETS)
      for (const field of ['limit', 'remaining', 'reset']) reply.removeHeader(`x-ratelimit-${field}-${bucket}`)
  }),
}
