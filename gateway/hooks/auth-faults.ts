/** Faults of authentication (Part 1 §5, §7). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const AUTH_FAULTS = [
  {
    name: 'missing-key-allowed',
    breaks: ['P1-5.1-key-required'],
    description: 'On /v1 paths, a call with no key is served as the main (tier-2) account.',
  },
  {
    name: 'public-models-needs-auth',
    breaks: ['P1-5.1-public-models'],
    description: 'GET /public/models answers 401 without a key.',
  },
  {
    name: 'bearer-refused-on-transactions',
    breaks: ['P1-5.2-bearer'],
    description: 'GET /user/v1/transactions answers 401 unauthorized to Bearer keys.',
  },
  {
    name: 'x-api-key-refused',
    breaks: ['P1-5.3-x-api-key'],
    description: 'The x-api-key header is not accepted on the model endpoints (401, compatible body).',
  },
  {
    name: 'usage-401-wrong-body',
    breaks: ['P1-5.5-usage-401'],
    description: 'The /user/v1 401 body is { error: { code: "invalid_api_key", message } }.',
  },
  {
    name: 'suspended-usage-allowed',
    breaks: ['P1-5.5-usage-403'],
    description: 'The suspended account is served normally on /user/v1.',
  },
  {
    name: 'suspended-v1-allowed',
    breaks: ['P1-7-suspended-403'],
    description: 'The suspended account is served normally on /v1.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the auth faults: what its rules and reshapes are typed by. */
export type AuthFault = (typeof AUTH_FAULTS)[number]['name']
