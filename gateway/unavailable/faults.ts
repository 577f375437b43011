/**
 * Faults of the announced but unavailable surfaces (Part 1 §1.6, §2.8-2.10, §3, §4.6, §4.9, §8.5). See
 * ../faults/registry.ts for what a fault is. A `planned-<surface>-*` fault also offers that surface, with the planned
 * shapes and rules but for the one defect named, so that the suite's conditional checks meet a target that
 * does offer it (../unavailable/routes.ts).
 */
import type { FaultDefinition } from '../faults/definition.ts'

export const UNAVAILABLE_FAULTS = [
  {
    name: 'planned-route-plain-text',
    breaks: ['P1-1.6-unavailable-route'],
    description: 'The planned routes answer 404 with a plain-text page instead of a JSON unsupported-route error.',
  },
  {
    name: 'planned-input-tokens-string',
    breaks: ['P1-4.6-input-tokens'],
    description: 'POST /v1/responses/input_tokens is offered and gives input_tokens as a string.',
  },
  {
    name: 'planned-batch-object-malformed',
    breaks: ['P1-2.8-batch-object'],
    description: 'Batches are offered; the batch object gives created_at as an ISO 8601 string.',
  },
  {
    name: 'planned-batch-window-48h',
    breaks: ['P1-4.9-batch-completion-window'],
    description: 'Batches are offered; a completion_window other than 24h (such as 48h) is accepted.',
  },
  {
    name: 'planned-batch-metadata-unchecked',
    breaks: ['P1-4.9-batch-metadata'],
    description: 'Batches are offered; metadata with more than 16 pairs is accepted.',
  },
  {
    name: 'planned-batch-endpoint-unchecked',
    breaks: ['P1-4.9-batch-endpoint'],
    description: 'Batches are offered; any endpoint value is accepted, e.g. /v1/files.',
  },
  {
    name: 'planned-batch-videos-accepted',
    breaks: ['P2-4.1-video-batches-unavailable'],
    description: 'Batches are offered; a batch of videos (endpoint /v1/videos) is accepted.',
  },
  {
    name: 'planned-batch-list-limit-unchecked',
    breaks: ['P1-4.9-batch-list-limit'],
    description: 'Batches are offered; the list accepts limit 0 and 101 instead of refusing them.',
  },
  {
    name: 'planned-assistant-object-malformed',
    breaks: ['P1-2.10-assistant-object'],
    description: 'Assistants are offered; the assistant object has no tools array.',
  },
  {
    name: 'planned-assistant-limits-unchecked',
    breaks: ['P1-4.9-assistant-limits'],
    description: 'Assistants are offered; name, description, instructions and tools past their limits are accepted.',
  },
  {
    name: 'planned-threads-any-role',
    breaks: ['P1-4.9-threads-rules'],
    description: 'Assistants and threads are offered; a thread message with role assistant is accepted.',
  },
  {
    name: 'planned-fine-tuning-job-malformed',
    breaks: ['P1-2.9-fine-tuning-job'],
    description: 'Fine-tuning is offered; a job reports status validating_files, which is not a planned status.',
  },
  {
    name: 'planned-fine-tuning-suffix-unchecked',
    breaks: ['P1-4.9-fine-tuning-rules'],
    description: 'Fine-tuning is offered; a suffix longer than 64 characters is accepted.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the unavailable faults: what its rules and reshapes are typed by. */
export type UnavailableFault = (typeof UNAVAILABLE_FAULTS)[number]['name']
