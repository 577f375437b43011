/** Faults of the videos endpoints (Part 2 §2.1, §3, §4.1, §7, §8). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const VIDEOS_FAULTS = [
  {
    name: 'video-safety-identifier-array',
    breaks: ['P2-2.1-video-job'],
    description: 'Video jobs give safety_identifier as a one-item array instead of a string.',
  },
  {
    name: 'video-routes-absent',
    breaks: ['P2-2.1-video-list', 'P2-2.1-video-job'],
    description:
      'No /v1/videos route is served (each a 404): one failure for each route the words state, the list and the create, and every other videos check skips naming one of them.',
  },
  {
    name: 'video-list-bare-array',
    breaks: ['P2-2.1-video-list'],
    description: 'GET /v1/videos answers a bare array of jobs instead of an object with data.',
  },
  {
    name: 'video-status-pending',
    breaks: ['P2-3-status-values'],
    description:
      'A queued job reports status pending, a value the reference never shows (a warning: the four are observed).',
  },
  {
    name: 'video-request-id-own',
    breaks: ['P2-2.1-request-id'],
    description: 'request_id is a fresh UUID v7 of the gateway, not the svc-request-id of the creating call.',
  },
  {
    name: 'video-failed-charged',
    breaks: ['P2-3-failed-no-cost', 'P2-4.1-interrupted-charge'],
    description: 'A job that could not start (failed at creation) is charged as if it had started.',
  },
  {
    name: 'video-free',
    breaks: ['P2-3-started-charged', 'P2-4.1-interrupted-charged'],
    description: 'Jobs that start are never charged (a warning: no time is fixed for a charge to show).',
  },
  {
    name: 'video-content-early',
    breaks: ['P2-3-content-completed-only'],
    description: 'GET /v1/videos/{id}/content serves the MP4 in any status, queued, processing and failed included.',
  },
  {
    name: 'video-content-missing',
    breaks: ['P2-4.1-content-served'],
    description: 'GET /v1/videos/{id}/content answers 404 even for a completed job.',
  },
  {
    name: 'video-default-landscape',
    breaks: ['P2-4.1-defaults'],
    description: 'A create without size makes a 1280x720 video instead of the default 720x1280.',
  },
  {
    name: 'video-default-8s',
    breaks: ['P2-4.1-defaults'],
    description: 'A create without seconds makes an 8-second video instead of the default 4.',
  },
  {
    name: 'video-model-gen-turbo-missing',
    breaks: ['P2-4.1-models'],
    description: 'gen4_turbo is refused with 400 as an unknown model.',
  },
  {
    name: 'video-model-unchecked',
    breaks: ['P2-4.1-model-unknown'],
    relaxes: ['P2-4.1-model-unknown'],
    description:
      'A model id outside the eight video models is accepted and served by the rules of vidA-2 (a warning: the refusal is not stated).',
  },
  {
    name: 'video-prompt-optional',
    breaks: ['P2-4.1-required-fields'],
    relaxes: ['P2-4.1-required-fields'],
    description: 'A create without prompt (or with an empty one) is accepted.',
  },
  {
    name: 'video-prompt-limit-999',
    breaks: ['P2-8-prompt-length'],
    description: 'The prompt limit is 999 characters instead of 1000: a prompt of 1000 is refused.',
  },
  {
    name: 'video-prompt-limit-1024',
    breaks: ['P2-8-prompt-refused'],
    relaxes: ['P2-8-prompt-refused'],
    description: 'The prompt limit is 1024 characters instead of 1000 (a warning: the refusal is not stated).',
  },
  {
    name: 'video-seconds-any-multiple',
    breaks: ['P2-4.1-seconds-values'],
    relaxes: ['P2-4.1-seconds-values'],
    description: 'vidA models accept any multiple of 4 as seconds, e.g. "16".',
  },
  {
    name: 'video-seconds-number-accepted',
    breaks: ['P2-4.1-seconds-string'],
    // Read as its string, a number still meets the listed values, which the reader judges once it is text.
    relaxes: ['P2-4.1-seconds-string', 'P2-4.1-seconds-values'],
    description: 'seconds sent as a JSON number is accepted and read as its string.',
  },
  {
    name: 'video-pro-sizes-missing',
    breaks: ['P2-4.1-sizes-listed'],
    description: 'vidA-2-pro accepts only the two sizes of vidA-2: 1024x1792 and 1792x1024 are refused.',
  },
  {
    name: 'video-sizes-unchecked',
    breaks: ['P2-4.1-sizes-unlisted'],
    relaxes: ['P2-4.1-sizes-unlisted'],
    description: 'Any WIDTHxHEIGHT is accepted for every model (a warning: the refusal is not stated).',
  },
  {
    name: 'video-webp-refused',
    breaks: ['P2-4.1-input-reference'],
    description: 'A WebP input_reference is refused with 400; only JPEG and PNG are taken.',
  },
  {
    name: 'video-reference-unchecked',
    breaks: ['P2-4.1-input-reference-type'],
    description:
      'input_reference is not checked: bytes that are no JPEG, PNG or WebP (a GIF, text) are accepted (a warning: the refusal is not stated).',
  },
  {
    name: 'video-safety-identifier-64',
    breaks: ['P2-8-safety-identifier-length'],
    description: 'safety_identifier is limited to 64 characters (the responses limit) instead of 256.',
  },
  {
    name: 'video-safety-identifier-unlimited',
    breaks: ['P2-8-safety-identifier-refused'],
    relaxes: ['P2-8-safety-identifier-refused'],
    description: 'safety_identifier has no length limit (a warning: the refusal is not stated).',
  },
  {
    name: 'video-filter-safety-ignored',
    breaks: ['P2-4.1-list-filter-safety'],
    description: 'The safety_identifier filter of GET /v1/videos is ignored.',
  },
  {
    name: 'video-filter-request-id-ignored',
    breaks: ['P2-4.1-list-filter-request-id'],
    description: 'The request_id filter of GET /v1/videos is ignored.',
  },
  {
    name: 'video-retrieve-no-safety-identifier',
    breaks: ['P2-4.1-retrieve'],
    description: 'GET /v1/videos/{id} answers safety_identifier null although the job has one.',
  },
  {
    name: 'video-unknown-400',
    breaks: ['P1-7-video-unknown-404'],
    description: 'A video id that does not exist answers 400 instead of 404, even that of a job the caller deleted.',
  },
  {
    name: 'video-unknown-500',
    breaks: ['P1-7-video-never-issued'],
    description: 'A video id the gateway never issued answers 500 (a lookup that breaks); a deleted one still 404.',
  },
  {
    name: 'video-list-open',
    breaks: ['P2-5-video-auth'],
    description: 'GET /v1/videos without a key, or with an invalid one, answers 200 with an empty list instead of 401.',
  },
  {
    name: 'video-retrieve-open',
    breaks: ['P2-5-video-auth'],
    description: "GET /v1/videos/{id} without a key answers the job (any account's) instead of 401.",
  },
  {
    name: 'video-edits-served',
    breaks: ['P2-4.1-unavailable-routes'],
    description:
      'POST /v1/videos/edits, "not available" (§4.1), is served: it makes a new job from video_id like a remix.',
  },
  {
    name: 'video-delete-noop',
    breaks: ['P2-4.1-delete'],
    description: 'DELETE /v1/videos/{id} answers deleted true but keeps the job.',
  },
  {
    name: 'video-remix-404',
    breaks: ['P2-4.1-remix'],
    description: 'POST /v1/videos/{id}/remix is not served (404 unsupported route).',
  },
  {
    name: 'video-list-request-id-own',
    breaks: ['P2-2.1-request-id'],
    description:
      'GET /v1/videos gives each job a fresh request_id of its own (the request_id filter still matches the true one); create and retrieve are right.',
  },
  {
    name: 'video-list-status-stale',
    breaks: ['P2-3-terminal-stable'],
    description:
      'GET /v1/videos shows a completed job as processing (a stale status cache); retrieve says completed (a warning: transitions are not shown).',
  },
  {
    name: 'video-drop-on-disconnect',
    breaks: ['P2-4.1-interrupted-listed'],
    description:
      'A create whose client hangs up soon after sending it (within 30 s, no later call on the connection) is charged but the job is discarded.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the videos faults: what its rules and reshapes are typed by. */
export type VideosFault = (typeof VIDEOS_FAULTS)[number]['name']
