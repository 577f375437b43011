/**
 * Receiving an upload (Part 1 sections 2.4, 4.4, 8.4): POST /v1/files as multipart/form-data with a file
 * part `file` and the fields `purpose` and, optionally, `expires_after`. The file part is streamed to
 * the store's temporary folder while its bytes are counted; at the first byte past 128 MB, or past the
 * account's storage quota, the upload stops there and is refused without reading the rest.
 *
 * The reference shows expires_after as an object but not how a multipart form carries it. Two forms
 * are read: the fields `expires_after[anchor]` and `expires_after[seconds]` (the widely used
 * convention), or one field `expires_after` holding the object as JSON.
 */
import type { FaultSet } from '../faults/definition.ts'
import { checkForm } from '../request-validation.ts'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import type { Account } from '../account/accounts.ts'
import type { Clock } from '../clock.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { FILE_PURPOSES, isFilePurpose, type FilePurpose, type FileStore, type StoredFile } from './store.ts'
import { jsonTooDeep, tooDeep } from '../json-body.ts'
import { formError, PARSER_OPTIONS } from '../multipart-forms.ts'
import type { VariationName } from '../variations.ts'
import { checkExpiryForm, checkPurposeEnabled, megabytesAsRead, refusesOverflow } from './choices.ts'
import type { FilesRules } from './rules.ts'

/**
 * The range of expires_after.seconds. The reference requires an integer and gives no range; an hour to
 * thirty days is this gateway's own choice, the range of the widely used API.
 */
export const EXPIRY_SECONDS = { min: 3_600, max: 2_592_000 } as const

/** Bounds on the form besides the file itself; generous for three small fields. */
export const FORM_LIMITS = { fields: 20, fieldSize: 64 * 1024, parts: 32, files: 1, headerPairs: 100 } as const

interface Form {
  purpose?: string
  /** True once any form of expires_after was given; its members are then both required. */
  policy?: boolean
  anchor?: unknown
  seconds?: unknown
}

/**
 * Reads the form and writes the file; returns its record for the store to commit (its bytes stay
 * reserved against the quota until then). Every refusal is a GatewayError.
 */
export async function receiveUpload(
  request: FastifyRequest,
  store: FileStore,
  account: Account,
  rules: FilesRules,
  clock: Clock,
  variations: ReadonlySet<VariationName> = new Set(),
  faults: FaultSet = new Set(),
): Promise<StoredFile> {
  if (!request.isMultipart())
    throw invalidParameter('file', 'POST /v1/files takes multipart/form-data with the fields file and purpose.')
  const form: Form = {}
  let saved: { path: string; bytes: number; filename: string; contentType: string } | undefined
  let written = false
  try {
    // The busboy limit is a backstop one byte past ours, so that our own count, which also watches
    // the storage quota, is what refuses a file.
    for await (const part of request.parts({
      ...PARSER_OPTIONS,
      limits: { ...FORM_LIMITS, fileSize: uploadLimit(store, rules, variations) + 1 },
    })) {
      if (part.type === 'field') {
        checkExpiryForm(variations, part.fieldname)
        readField(form, part.fieldname, part.value)
        continue
      }
      if (part.fieldname !== 'file')
        throw invalidParameter(
          part.fieldname,
          `Unexpected file field '${part.fieldname}'; the file goes in the field file.`,
        )
      // Fields sent before the file are checked before its bytes are read.
      if (form.purpose !== undefined) checkPurpose(form.purpose, rules, variations)
      if (form.policy) expirySeconds(form, rules)
      saved = {
        path: await store.tempPath(),
        bytes: 0,
        filename: part.filename,
        contentType: part.mimetype || 'application/octet-stream',
      }
      saved.bytes = await saveFile(part.file, saved.path, store, account, rules, variations)
      written = true
    }
    if (!saved) throw invalidParameter('file', 'The form has no file part named file.')
    checkForm({ faults, variations }, 'POST /v1/files', {
      file: saved.filename,
      ...(form.purpose !== undefined ? { purpose: form.purpose } : {}),
      ...(form.policy ? { expires_after: present({ anchor: form.anchor, seconds: form.seconds }) } : {}),
    })
    const purpose = checkPurpose(form.purpose, rules, variations)
    const seconds = expirySeconds(form, rules)
    const createdAt = Math.floor(clock.now() / rules.msPerCreatedAtUnit)
    const lifetime = seconds ?? rules.defaultLifetimeSeconds
    return {
      id: store.newId(),
      accountId: account.id,
      bytes: saved.bytes,
      createdAt,
      expiresAt: lifetime === null || (seconds !== null && !rules.honourExpiresAfter) ? null : createdAt + lifetime,
      filename: saved.filename,
      purpose,
      contentType: saved.contentType,
      path: saved.path,
      seq: store.nextSeq(),
    }
  } catch (error) {
    if (written && saved) store.release(account.id, saved.bytes)
    if (saved) await rm(saved.path, { force: true })
    throw formError(error)
  }
}

/** The members given: a JSON policy's missing member is read as null. */
function present(members: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined && value !== null))
}

function readField(form: Form, name: string, value: unknown): void {
  const setOnce = <K extends keyof Form>(key: K, v: Form[K]): void => {
    if (form[key] !== undefined) throw invalidParameter(name, `${name} is given more than once.`)
    form[key] = v
  }
  switch (name) {
    case 'purpose':
      setOnce('purpose', String(value))
      return
    case 'expires_after[anchor]':
      form.policy = true
      setOnce('anchor', value)
      return
    case 'expires_after[seconds]':
      form.policy = true
      setOnce('seconds', value)
      return
    case 'expires_after': {
      // A part sent as application/json arrives parsed; a plain field arrives as text.
      let policy = value
      if (typeof value === 'string') {
        // The policy is echoed in messages with JSON.stringify, which a deeply nested value would overflow.
        if (jsonTooDeep(value)) throw tooDeep('expires_after')
        try {
          policy = JSON.parse(value)
        } catch {
          throw invalidParameter('expires_after', 'expires_after must be an object { anchor, seconds } (JSON).')
        }
      }
      if (typeof policy !== 'object' || policy === null || Array.isArray(policy))
        throw invalidParameter('expires_after', 'expires_after must be an object { anchor, seconds }.')
      const { anchor, seconds } = policy as Record<string, unknown>
      form.policy = true
      setOnce('anchor', anchor ?? null)
      setOnce('seconds', seconds ?? null)
      return
    }
    default:
      return // unknown fields are ignored, as unknown JSON properties would be
  }
}

function checkPurpose(
  purpose: string | undefined,
  rules: FilesRules,
  variations: ReadonlySet<VariationName>,
): FilePurpose {
  // Missing only where a fault lifts the requirement the validator judges (purpose-optional): stored as user_data.
  if (purpose === undefined) return 'user_data'
  checkPurposeEnabled(variations, purpose)
  if ((rules.purposes as readonly string[]).includes(purpose)) return purpose as FilePurpose
  // A purpose of the reference that this gateway does not take.
  if (isFilePurpose(purpose)) throw invalidParameter('purpose', `Unknown purpose '${purpose}'.`)
  if (rules.takeAnyPurpose) return purpose as FilePurpose
  throw invalidParameter('purpose', `Unknown purpose '${purpose}': use one of ${FILE_PURPOSES.join(', ')}.`)
}

/** expires_after as seconds after created_at, or null when the form has none (section 2.4). */
function expirySeconds(form: Form, rules: FilesRules): number | null {
  const { anchor, seconds } = form
  if (!form.policy) return null
  const anchorless = anchor === undefined || anchor === null
  if (anchorless ? rules.requireAnchor : rules.checkAnchor && anchor !== 'created_at') {
    throw invalidParameter(
      'expires_after[anchor]',
      `expires_after.anchor must be created_at, the only anchor supported; got ${JSON.stringify(anchor ?? null)}.`,
    )
  }
  if (seconds === undefined || seconds === null) {
    if (!rules.requireSeconds) return null
    throw invalidParameter('expires_after[seconds]', 'expires_after.seconds is required: an integer number of seconds.')
  }
  if (rules.readSecondsLeniently) {
    const lenient = Number.parseInt(String(seconds), 10)
    return Number.isNaN(lenient) ? null : lenient
  }
  const text = typeof seconds === 'number' ? String(seconds) : seconds
  if (typeof text !== 'string' || !/^\d+$/.test(text)) {
    throw invalidParameter(
      'expires_after[seconds]',
      `expires_after.seconds is required: an integer number of seconds; got ${JSON.stringify(seconds ?? null)}.`,
    )
  }
  const value = Number(text)
  if (value < EXPIRY_SECONDS.min || value > EXPIRY_SECONDS.max) {
    throw invalidParameter(
      'expires_after[seconds]',
      `expires_after.seconds must be from ${EXPIRY_SECONDS.min} to ${EXPIRY_SECONDS.max}; got ${text}.`,
    )
  }
  return value
}

/**
 * Writes the file part to `path`, counting its bytes against the size limit and the storage quota. The
 * bytes stay reserved against the quota when it succeeds, until the store commits the file.
 */
async function saveFile(
  file: Readable,
  path: string,
  store: FileStore,
  account: Account,
  rules: FilesRules,
  variations: ReadonlySet<VariationName>,
): Promise<number> {
  const max = uploadLimit(store, rules, variations)
  const quota = storageQuota(store, account, variations)
  const out = createWriteStream(path, { flags: 'wx' })
  let bytes = 0
  let reserved = 0
  try {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      bytes += chunk.length
      if (bytes > max || (bytes === max && !rules.takeFileOfMaxSize)) throw fileTooLarge(max)
      store.reserve(account.id, chunk.length)
      reserved += chunk.length
      const overflowChecked = rules.checkStorageQuota && refusesOverflow(variations)
      if (overflowChecked && store.usedBytes(account.id) > quota) throw storageFull(quota)
      if (!out.write(chunk)) await once(out, 'drain')
    }
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
    return bytes
  } catch (error) {
    store.release(account.id, reserved)
    // The file is opened in the background: wait until it is closed, or its open could create it after the
    // caller has removed it.
    if (!out.closed) await new Promise<void>((resolve) => out.destroy().once('close', () => resolve()))
    throw error
  }
}

/** Section 4.4: at most 128 MB a file. */
function uploadLimit(store: FileStore, rules: FilesRules, variations: ReadonlySet<VariationName>): number {
  return rules.maxUploadBytes ?? megabytesAsRead(variations, store.maxUploadBytes)
}

/** Section 8.4: the account's tier's storage quota. */
export function storageQuota(store: FileStore, account: Account, variations: ReadonlySet<VariationName>): number {
  return megabytesAsRead(variations, store.limits(account.tier).maxStorageBytes)
}

/** Section 7 lists 400 for an invalid request and no 413, so an oversized file is a 400. */
function fileTooLarge(max: number): GatewayError {
  return new GatewayError(400, `The file is larger than the upload limit of ${max} bytes (128 MB).`, {
    param: 'file',
    code: 'file_too_large',
  })
}

/**
 * Section 8.4: when storage is full, uploads are blocked until files are deleted or the tier rises.
 * 403 (no permission, section 7): the request is valid, the account may not store more. Not 429,
 * which clients retry with backoff (section 7) although waiting frees nothing; not 400, which says
 * the request itself is wrong.
 */
export function storageFull(quota: number): GatewayError {
  return new GatewayError(403, `File storage is full (${quota} bytes for this tier): delete files to upload more.`, {
    code: 'storage_quota_exceeded',
  })
}
