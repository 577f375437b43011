/**
 * The files one run of the files suite keeps while its tests read them: one upload per purpose of §4.4, in two
 * groups more than a second apart, so that the list has files with different created_at to order (created_at is
 * in whole seconds). The user_data file carries an expiration policy (§2.4); the others carry none.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/helpers.ts'
import type { TargetClient } from '../../harness/http-client.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { PURPOSES, upload, type Purpose, type Upload } from './uploads.ts'

/** One day: a value any reading of the expiration policy accepts (the reference states no range). */
export const EXPIRY_SECONDS = 86_400
export const EXPIRING: Purpose = 'user_data'

/** An upload "returns a file object" (§4.4) without a stated status: 200, or 201 for a created resource. */
export const ACCEPTED: readonly number[] = [200, 201]

const GROUP_GAP_MS = 1_100 // two calls more than a second apart get different Unix seconds
const FIRST_GROUP = 3

interface PurposeUpload extends Upload {
  purpose: Purpose
  /** The answer as an object, when it is one. */
  file: Record<string, unknown> | undefined
}

interface Fixture {
  uploads: PurposeUpload[]
  /** Uploads that were accepted with a file object, in upload order. */
  accepted: PurposeUpload[]
  /** Accepted uploads whose answer matches files/file.json. */
  valid: PurposeUpload[]
}

export function purposeFixture(api: TargetClient): () => Promise<Fixture> {
  return memo(async () => {
    const uploads: PurposeUpload[] = []
    for (const [index, purpose] of PURPOSES.entries()) {
      if (index === FIRST_GROUP) await sleep(GROUP_GAP_MS)
      const up = await upload(api, {
        label: purpose,
        purpose,
        ...(purpose === EXPIRING ? { expiresAfter: { anchor: 'created_at', seconds: String(EXPIRY_SECONDS) } } : {}),
      })
      const body = up.ex.json
      uploads.push({ ...up, purpose, file: up.id !== undefined && isObject(body) ? body : undefined })
    }
    const accepted = uploads.filter((u) => ACCEPTED.includes(u.ex.status) && u.file !== undefined)
    const valid = accepted.filter((u) => schemas().validate('files/file.json', u.file).ok)
    return { uploads, accepted, valid }
  })
}
