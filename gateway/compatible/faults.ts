/** Faults of the other compatible endpoints (Part 1 §4.8, §7). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const COMPATIBLE_FAULTS = [
  {
    name: 'compat-malformed-json-500',
    breaks: ['P1-7-compatible-malformed-json'],
    description: 'POST /v1/embeddings answers 500 instead of 400 to a body that is not valid JSON.',
  },
  {
    name: 'compat-embeddings-500',
    breaks: ['P1-4.8-compatible-served'],
    description:
      'POST /v1/embeddings answers 500 to every valid request (invalid ones are still refused with 400 or 404).',
  },
  {
    name: 'compat-missing-model-defaulted',
    breaks: ['P1-7-compatible-missing-field'],
    description: 'POST /v1/completions without a model is served by the first completion model instead of refused.',
  },
  {
    name: 'compat-unknown-model-served',
    breaks: ['P1-7-compatible-unknown-model'],
    description: 'POST /v1/embeddings naming a model that does not exist is served by the first embedding model.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the compatible faults: what its rules and reshapes are typed by. */
export type CompatibleFault = (typeof COMPATIBLE_FAULTS)[number]['name']
