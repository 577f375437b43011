/**
 * The files one run of the files suite keeps while its tests read them: one upload per purpose of §4.4, in two
 * groups more than a second apart, so that the list has files with different created_at to order (created_at is
 * in whole seconds). The user_data file carries an expiration policy (§2.4); the others carry none.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { precondition, is2xx } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { TargetClient } from '../../harness/worker/http-client.ts'
import { deleteFile, PURPOSES, upload, type ExpiryForm, type Purpose, type Upload } from './uploads.ts'

/** One day: a value any reading of the expiration policy accepts (the reference states no range). */
export const EXPIRY_SECONDS = 86_400
export const EXPIRING: Purpose = 'user_data'

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
  /** The form of expires_after the target took, tried in the order of EXPIRY_FORMS; undefined when it took neither. */
  expiryForm: ExpiryForm | undefined
  /** What each form that was tried answered, for the failure message. */
  expiryTries: string[]
}

/** The fields first (the widely used convention), then one JSON part: §4.4 shows neither. */
const EXPIRY_FORMS: readonly ExpiryForm[] = ['fields', 'json']
const POLICY = { anchor: 'created_at', seconds: String(EXPIRY_SECONDS) }

export function purposeFixture(api: TargetClient): () => Promise<Fixture> {
  return memo(async () => {
    const uploads: PurposeUpload[] = []
    let expiryForm: ExpiryForm | undefined
    const expiryTries: string[] = []
    for (const [index, purpose] of PURPOSES.entries()) {
      if (index === FIRST_GROUP) await sleep(GROUP_GAP_MS)
      let up = await upload(api, { label: purpose, purpose })
      if (purpose === EXPIRING) {
        // The expiring file is the purpose's file where the target takes one form of the policy; else a plain one.
        const plain = up
        for (const form of EXPIRY_FORMS) {
          const tried = await upload(api, { label: purpose, purpose, expiresAfter: POLICY, expiryForm: form })
          expiryTries.push(`${form}: ${tried.ex.status} ${tried.ex.text.slice(0, 160)}`)
          if (tried.id !== undefined && is2xx(tried.ex)) {
            expiryForm = form
            up = tried
            if (plain.id !== undefined) await deleteFile(api, plain.id)
            break
          }
        }
      }
      const body = up.ex.json
      uploads.push({ ...up, purpose, file: up.id !== undefined && isObject(body) ? body : undefined })
    }
    const accepted = uploads.filter((u) => is2xx(u.ex) && u.file !== undefined)
    return { uploads, accepted, expiryForm, expiryTries }
  })
}

/** What §2.4 gives each field a check may read: a file that shows another type is P1-2.4-file-object's failure. */
const FIELD_TYPES = {
  bytes: Number.isInteger,
  created_at: Number.isInteger,
  expires_at: (v: unknown) => v === null || Number.isInteger(v),
  filename: (v: unknown) => typeof v === 'string',
  purpose: (v: unknown) => typeof v === 'string',
} as const

export type FileField = keyof typeof FIELD_TYPES

/**
 * The accepted uploads, for a check that reads `fields` of their file objects (and their ids): skipped when none
 * was accepted, or when one shows a field it reads with another type than §2.4 gives. A field the check does not
 * read is not asked for.
 */
export async function filesReading(fixture: () => Promise<Fixture>, fields: readonly FileField[]) {
  const { accepted } = await fixture()
  precondition(accepted.length > 0, 'P1-4.4-purposes', 'no upload was accepted')
  for (const u of accepted) {
    const wrong = fields.filter((field) => !FIELD_TYPES[field]((u.file as Record<string, unknown>)[field]))
    precondition(
      wrong.length === 0,
      'P1-2.4-file-object',
      `the ${u.purpose} upload answered ${wrong.map((f) => `${f} ${JSON.stringify((u.file as Record<string, unknown>)[f])}`).join(', ')}`,
    )
  }
  return accepted
}
