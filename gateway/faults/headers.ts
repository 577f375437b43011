/** Faults of shared headers (Part 1 §4.1, §9.4). See ../faults.ts for what a fault is. */
import { legacyHeaderApplies } from '../hooks/request-id.ts'
import type { FaultDefinition } from './definition.ts'
import { onErrors, RATE_LIMIT_BUCKETS, type HeaderReshapes } from './reply-headers.ts'

export const HEADERS_FAULTS = [
  {
    name: 'no-svc-request-id-on-errors',
    breaks: ['P1-4.1-svc-request-id'],
    description: 'Responses with status >= 400 carry no svc-request-id (nor x-request-id).',
  },
  {
    name: 'svc-request-id-v4',
    breaks: ['P1-4.1-svc-request-id'],
    description: 'Request ids are random UUID v4 instead of v7 (transactions use the same ids).',
  },
  {
    name: 'svc-request-id-reused-on-errors',
    breaks: ['P1-4.1-svc-request-id-unique'],
    description: 'Every response with status >= 400 carries one fixed UUID v7 minted at start-up.',
  },
  {
    name: 'echo-client-request-id',
    breaks: ['P1-4.1-client-request-id'],
    description: 'A syntactically valid UUID in X-Client-Request-Id is used as the svc-request-id.',
  },
  {
    name: 'x-request-id-after-cutoff',
    breaks: ['P1-9.4-x-request-id'],
    asOf: '2026-11-21',
    description: 'x-request-id equal to svc-request-id is sent on every response, whatever the date.',
  },
  {
    name: 'x-request-id-missing',
    breaks: ['P1-9.4-x-request-id'],
    asOf: '2026-09-01',
    description: 'x-request-id is never sent, not even during the migration window.',
  },
  {
    name: 'ratelimit-reset-epoch',
    breaks: ['P1-4.1-ratelimit-headers', 'P1-4.1-project-token-headers'],
    description:
      'Every x-ratelimit-reset-* header (requests, tokens, project tokens) holds the Unix time (integer seconds) of the reset, not a duration.',
  },
  {
    name: 'no-ratelimit-headers-on-errors',
    breaks: ['P1-4.1-ratelimit-headers'],
    description: 'Authenticated responses with status >= 400 carry no x-ratelimit-* headers.',
  },
  {
    name: 'svc-request-id-stale',
    breaks: ['P1-4.1-svc-request-id-time'],
    description: 'Request ids are valid, unique UUID v7 whose timestamp is 2020-01-01.',
  },
] as const satisfies readonly FaultDefinition[]

/** The header faults that only bend the headers written (./reply-headers.ts); the others change the ids minted. */
export const HEADERS_HEADER_RESHAPES: HeaderReshapes = {
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
