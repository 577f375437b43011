/** Files rules (Part 1 §2.4, §4.4, §7, §8.4), read by the routes and upload reader; three tiers faults bend them. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { TiersFault } from '../hooks/tiers-faults.ts'
import type { FilesFault as OwnFault } from './faults.ts'
import { FILE_PURPOSES } from './store.ts'
import { defaultOf, rangeOf } from '../../common/request-schemas.ts'

/** GET /v1/files's limit as its request schema states it (section 4.4). */
const LIST_LIMIT = rangeOf('GET /v1/files', 'query', 'limit')
const LIST_LIMIT_DEFAULT = defaultOf<number>('GET /v1/files', 'query', 'limit')

type FilesFault = OwnFault | TiersFault

export type FileOperation = 'uploads' | 'downloads' | 'deletes'

const DAY_SECONDS = 86_400

export type FilesRules = Readonly<ReturnType<typeof filesRules>>

export function filesRules(faults: FaultSet) {
  const bent = bentBy<FilesFault>(faults)
  return {
    ...uploadRules(bent),
    // Section 8.4: each operation has its per-minute column; one fault limits uploads by the downloads column,
    // one leaves deletes unlimited (null).
    perMinuteColumn: {
      uploads: bent('uploads-per-minute-downloads') ? 'downloadsPerMinute' : 'uploadsPerMinute',
      downloads: 'downloadsPerMinute',
      deletes: bent('deletes-unlimited') ? null : 'deletesPerMinute',
    } as const satisfies Record<FileOperation, string | null>,
    // limit is 1 to 10000, 10000 by default: one fault refuses 1, one clamps what is out of range, one defaults to 20.
    listLimit: { min: LIST_LIMIT.min + (bent('list-limit-min-refused') ? 1 : 0), max: LIST_LIMIT.max },
    clampListLimit: bent('list-limit-unchecked'),
    listLimitDefault: bent('list-limit-default-20') ? 20 : LIST_LIMIT_DEFAULT,
    // A page holds at most limit files; the fault answers every remaining file.
    honourListLimit: !bent('list-limit-ignored'),
    // The list is in the order asked, newest first by default; the fault lists oldest first whatever is asked.
    honourListOrder: !bent('list-order-ignored'),
    // purpose filters the list; the fault ignores it.
    honourListPurpose: !bent('list-purpose-ignored'),
    // A page starts after its after cursor; one fault ignores after, one starts the page with the cursor file.
    honourListAfter: !bent('list-after-ignored'),
    filesSkippedAtCursor: bent('list-after-inclusive') ? 0 : 1,
    // DELETE removes the file; the fault answers deleted and keeps it.
    deleteRemoves: !bent('delete-noop'),
    // Section 7: an id with no file is 404; one fault answers 400 for every such id, one 500 for an id never issued.
    unknownIdInvalid: bent('unknown-file-400'),
    neverIssuedIdFails: bent('unknown-file-500'),
  }
}

/** Whether a fault of the family is on. */
type Bent = (fault: FilesFault) => boolean

/** What an upload may be and what it records (sections 2.4, 4.4, 8.4). */
function uploadRules(bent: Bent) {
  return {
    // Section 8.4: uploads stop at the tier's storage quota; the fault stores whatever the account holds.
    checkStorageQuota: !bent('storage-quota-ignored'),
    // Section 4.4: at most 128 MB a file, the store's limit as read (null); the fault allows 256 MB.
    maxUploadBytes: bent('upload-limit-256mb') ? 256_000_000 : null,
    // A file of exactly the limit is taken; the fault refuses it.
    takeFileOfMaxSize: !bent('upload-limit-exclusive'),
    // Section 2.4: created_at in Unix seconds; the fault records milliseconds.
    msPerCreatedAtUnit: bent('created-at-ms') ? 1 : 1000,
    // Without expires_after a file never expires (null); the fault expires it after 30 days.
    defaultLifetimeSeconds: bent('default-expiry') ? 30 * DAY_SECONDS : null,
    // A valid expires_after sets expires_at; the fault leaves it null.
    honourExpiresAfter: !bent('expires-after-ignored'),
    // expires_after.anchor is required and created_at; one fault takes any anchor given, one takes none.
    checkAnchor: !bent('expires-anchor-unchecked'),
    requireAnchor: !bent('expires-anchor-optional'),
    // expires_after.seconds is required, an integer in range; one fault takes none (no expiry), one reads it with
    // parseInt (none when unreadable).
    requireSeconds: !bent('expires-seconds-optional'),
    readSecondsLeniently: bent('expires-seconds-lenient'),
    // Section 4.4's purposes are taken, any other refused; one fault refuses evals, one takes any string.
    purposes: FILE_PURPOSES.filter((purpose) => purpose !== 'evals' || !bent('purpose-evals-refused')),
    takeAnyPurpose: bent('purpose-unchecked'),
  }
}
