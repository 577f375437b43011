/** Faults of moderation (Part 2 §2.4, §4.7, §7). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const MODERATION_FAULTS = [
  {
    name: 'moderation-id-missing',
    breaks: ['P2-2.4-result-shape'],
    description: 'POST /v1/moderations answers without id.',
  },
  {
    name: 'moderation-category-missing',
    breaks: ['P2-2.4-categories'],
    description:
      'Moderation results lack illicit/violent in categories, category_scores and category_applied_input_types.',
  },
  {
    name: 'moderation-score-percent',
    breaks: ['P2-2.4-score-range'],
    description: 'category_scores are percentages (0 to 100) instead of numbers from 0 to 1.',
  },
  {
    name: 'moderation-image-applies-everywhere',
    breaks: ['P2-2.4-applied-input-types'],
    description: 'For an input with an image, category_applied_input_types lists image under all thirteen categories.',
  },
  {
    name: 'moderation-image-not-applied',
    breaks: ['P2-2.4-image-applies'],
    description: 'For an input with an image, category_applied_input_types lists image under no category.',
  },
  {
    name: 'moderation-text-not-applied',
    breaks: ['P2-2.4-applied-text'],
    description: 'After a text-only input, category_applied_input_types lists no input type under any category.',
  },
  {
    name: 'moderation-one-result-for-array',
    breaks: ['P2-4.7-input-forms'],
    description: 'An array of strings gets one result (for its first string) instead of one per input.',
  },
  {
    name: 'moderation-text-items-refused',
    breaks: ['P2-4.7-input-forms'],
    description: 'An array of content items that are all {type text} is refused with 400 (an image item is required).',
  },
  {
    name: 'moderation-stable-refused',
    breaks: ['P2-4.7-named-models'],
    description: 'text-moderation-stable is refused with 400.',
  },
  {
    name: 'moderation-model-required',
    breaks: ['P2-4.7-model-optional'],
    description: 'A moderation request without model is refused with 400.',
  },
  {
    name: 'moderation-guard-refused',
    breaks: ['P2-4.7-guard-model'],
    description: 'The hosted guard model is listed but refused with 400.',
  },
  {
    name: 'moderation-image-refused',
    breaks: ['P2-4.7-input-forms'],
    description: 'The omni models refuse image input with 400, as the text models do.',
  },
  {
    name: 'moderation-image-refused-dated',
    breaks: ['P2-4.7-image-omni'],
    description: 'omni-moderation-2024-09-26 refuses image input with 400; omni-moderation-latest takes it.',
  },
  {
    name: 'moderation-named-model-charged',
    breaks: ['P2-4.7-named-models-no-charge'],
    description: 'Each call to one of the four named (free) moderation models is charged $0.001.',
  },
  {
    name: 'moderation-missing-input-served',
    breaks: ['P2-7-moderation-400'],
    relaxes: ['P2-7-moderation-400'],
    description: 'A moderation request without input answers 200 with no results instead of 400.',
  },
  {
    name: 'moderation-key-optional',
    breaks: ['P2-7-moderation-401'],
    description: 'POST /v1/moderations serves calls without a key (or with an unknown one) as the main account.',
  },
  {
    name: 'moderation-unknown-model-defaulted',
    breaks: ['P2-4.7-unknown-model'],
    description: 'A moderation request naming a model that does not exist is served by omni-moderation-latest.',
  },
  {
    name: 'moderation-429-usage-body',
    breaks: ['P2-7-moderation-429'],
    description:
      "The moderation model's 429 has the /user/v1 body ({error: rate_limit_exceeded, message}) instead of the compatible error object.",
  },
  {
    name: 'moderation-inline-flagged-string',
    breaks: ['P2-4.7-inline-result-type'],
    description: 'Inline moderation results on chat completions give flagged as the string "true" or "false".',
  },
  // SHOULD requirements: a run with these warns and still exits 0.
  {
    name: 'moderation-input-type-unchecked',
    breaks: ['P2-7-moderation-input-type-refused'],
    relaxes: ['P2-7-moderation-input-type-refused'],
    description: 'An input that is a number or an object is moderated as its JSON text instead of refused.',
  },
  {
    name: 'moderation-image-any-model',
    breaks: ['P2-4.7-image-text-model-refused'],
    relaxes: ['P2-4.7-image-text-model-refused'],
    description: 'The text-only moderation models accept image input and answer scores.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the moderation faults: what its rules and reshapes are typed by. */
export type ModerationFault = (typeof MODERATION_FAULTS)[number]['name']
