/**
 * Choices of the files endpoints that the reference leaves open, made as real providers make them (variations.ts),
 * in one place so that the normal path reads as the reference says:
 * - binary-megabytes: 128 MB and the storage quotas of §8.4 read as MiB;
 * - expires-json-part: expires_after taken only as one part holding JSON text;
 * - no-assistants-files: purpose assistants refused (§4.4: "only … when enabled");
 * - opaque-file-ids: an id the gateway never issued refused as invalid (400), one it issued and deleted a 404;
 * - storage-blocks-when-full: the storage quota checked before an upload only, so one that starts with room is taken.
 */
import { invalidParameter } from '../errors.ts'
import type { VariationName } from '../variations.ts'

type Variations = ReadonlySet<VariationName>

const MB = 1_000_000
const MIB = 1_048_576

/** A limit the tables give in decimal bytes, as this gateway reads it. */
export function megabytesAsRead(variations: Variations, bytes: number): number {
  return variations.has('binary-megabytes') ? Math.round((bytes / MB) * MIB) : bytes
}

/** The bracketed fields of expires_after, refused where only the JSON part is taken. */
export function checkExpiryForm(variations: Variations, field: string): void {
  if (variations.has('expires-json-part') && field.startsWith('expires_after['))
    throw invalidParameter(field, 'expires_after is one field holding the policy as JSON: {"anchor":…,"seconds":…}.')
}

export function checkPurposeEnabled(variations: Variations, purpose: string): void {
  if (variations.has('no-assistants-files') && purpose === 'assistants')
    throw invalidParameter('purpose', 'Files for assistants are not enabled for this account.')
}

/** An id this gateway never issued: invalid under opaque-file-ids, else the caller's 404 applies. */
export function checkIssued(variations: Variations, issued: boolean, id: string): void {
  if (!issued && variations.has('opaque-file-ids')) throw invalidParameter('file_id', `Invalid file id '${id}'.`)
}

/** Whether an upload is refused as it takes storage past the quota, or taken whole and the next one refused. */
export function refusesOverflow(variations: Variations): boolean {
  return !variations.has('storage-blocks-when-full')
}
