/** Faults of shared headers (Part 1 §4.1, §9.4). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

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

/** The names of the headers faults: what its rules and reshapes are typed by. */
export type HeadersFault = (typeof HEADERS_FAULTS)[number]['name']
