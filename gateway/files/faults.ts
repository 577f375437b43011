/** Faults of the files endpoints (Part 1 §2.4, §4.4, §7, §8.4). See ../faults/registry.ts for what a fault is. */
import type { FaultDefinition } from '../faults/definition.ts'

export const FILES_FAULTS = [
  {
    name: 'file-bytes-string',
    breaks: ['P1-2.4-file-object'],
    description: 'File objects give bytes as a decimal string instead of an integer.',
  },
  {
    name: 'file-bytes-kib',
    breaks: ['P1-2.4-file-fields'],
    description: 'File objects give bytes as the size in KiB, rounded up.',
  },
  {
    name: 'created-at-ms',
    breaks: ['P1-2.4-created-at-now'],
    description: 'Uploads record created_at (and so expires_at) in Unix milliseconds.',
  },
  {
    name: 'file-list-no-has-more',
    breaks: ['P1-2.4-list-envelope'],
    description: 'The file list envelope has no has_more.',
  },
  {
    name: 'purpose-evals-refused',
    breaks: ['P1-4.4-purposes'],
    description: 'Uploads with purpose evals are refused with 400, as by a gateway that predates that purpose.',
  },
  {
    name: 'purpose-unchecked',
    breaks: ['P1-4.4-purpose-unknown'],
    relaxes: ['P1-4.4-purpose-unknown'],
    description: 'Any purpose string is accepted and stored.',
  },
  {
    name: 'purpose-optional',
    breaks: ['P1-4.4-required-fields'],
    relaxes: ['P1-4.4-required-fields'],
    description: 'An upload without purpose is stored with purpose user_data.',
  },
  {
    name: 'upload-limit-256mb',
    breaks: ['P1-4.4-file-size-limit'],
    description: 'The upload limit is 256 MB instead of 128 MB.',
  },
  {
    name: 'upload-limit-exclusive',
    breaks: ['P1-4.4-file-size-max'],
    description: 'A file of exactly 128 MB is refused: the limit check is >= instead of >.',
  },
  {
    name: 'expires-after-ignored',
    breaks: ['P1-2.4-expires-at'],
    description: 'A valid expires_after is accepted but not applied: expires_at stays null.',
  },
  {
    name: 'default-expiry',
    breaks: ['P1-2.4-expires-null'],
    description: 'Files uploaded without expires_after expire 30 days after created_at.',
  },
  {
    name: 'expires-anchor-unchecked',
    breaks: ['P1-2.4-expires-anchor'],
    relaxes: ['P1-2.4-expires-anchor'],
    description: 'Any expires_after anchor given is accepted and read as created_at.',
  },
  {
    name: 'expires-seconds-lenient',
    breaks: ['P1-2.4-expires-seconds-refused'],
    relaxes: ['P1-2.4-expires-seconds-refused'],
    description:
      'expires_after seconds is read with parseInt (86400.5 as 86400), and an unreadable one means no expiry.',
  },
  {
    name: 'expires-seconds-optional',
    breaks: ['P1-2.4-expires-seconds'],
    relaxes: ['P1-2.4-expires-seconds'],
    description: 'An expires_after without seconds is accepted, and the file does not expire.',
  },
  {
    name: 'list-order-ignored',
    breaks: ['P1-4.4-list-order'],
    description: 'The file list is always oldest first, whatever order says (and by default).',
  },
  {
    name: 'list-order-unchecked',
    breaks: ['P1-4.4-list-order-values'],
    relaxes: ['P1-4.4-list-order-values'],
    description: 'An order other than asc or desc is read as desc.',
  },
  {
    name: 'list-limit-ignored',
    breaks: ['P1-4.4-list-limit'],
    description: 'The file list ignores limit and returns every remaining file.',
  },
  {
    name: 'list-limit-unchecked',
    breaks: ['P1-4.4-list-limit-refused'],
    relaxes: ['P1-4.4-list-limit-refused'],
    description: 'Out-of-range limit values are clamped to 1..10000 instead of refused.',
  },
  {
    name: 'list-limit-min-refused',
    breaks: ['P1-4.4-list-limit-range'],
    description: 'limit=1 is refused with 400: the range check excludes its lower end.',
  },
  {
    name: 'list-limit-default-20',
    breaks: ['P1-4.4-list-limit-default'],
    description: 'Without limit, the file list returns at most 20 files, as many APIs do by default.',
  },
  {
    name: 'list-after-inclusive',
    breaks: ['P1-4.4-list-cursor'],
    description: 'A page after a cursor starts with the cursor file itself.',
  },
  {
    name: 'list-after-ignored',
    breaks: ['P1-4.4-list-cursor'],
    description: 'The after cursor of the file list is ignored: every page starts at the first file.',
  },
  {
    name: 'file-list-bytes-kib',
    breaks: ['P1-4.4-retrieve'],
    description: 'The file list gives bytes in KiB; the upload and retrieve answers give them right.',
  },
  {
    name: 'list-purpose-ignored',
    breaks: ['P1-4.4-list-purpose'],
    description: 'The purpose filter of the file list is ignored.',
  },
  {
    name: 'retrieve-expires-at-null',
    breaks: ['P1-4.4-retrieve'],
    description: 'GET /v1/files/{file_id} reports expires_at null even for a file that expires.',
  },
  {
    name: 'delete-noop',
    breaks: ['P1-4.4-delete'],
    description: 'DELETE /v1/files/{file_id} answers deleted true but keeps the file.',
  },
  {
    name: 'unknown-file-400',
    breaks: ['P1-4.4-delete'],
    description:
      'Retrieving or deleting a file id that does not exist answers 400, a deleted file too, instead of 404 for it.',
  },
  {
    name: 'unknown-file-500',
    breaks: ['P1-7-file-unknown-404'],
    description: 'Retrieving or deleting a file id the gateway never issued answers 500.',
  },
  {
    name: 'expires-anchor-optional',
    breaks: ['P1-2.4-expires-anchor-required'],
    relaxes: ['P1-2.4-expires-anchor-required'],
    description: 'An expires_after without anchor is taken as anchored at created_at.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the files faults: what its rules and reshapes are typed by. */
export type FilesFault = (typeof FILES_FAULTS)[number]['name']
