/**
 * Stored files (Part 1 sections 2.4, 4.4, 8.4): an in-memory index per account whose bytes live in a
 * temporary folder, os.tmpdir()/gateway-files-<pid>/<one folder per gateway>/, so that uploads of up to
 * 128 MB never sit in memory. A file's bytes are removed when it is deleted, when it expires and when
 * the gateway closes.
 *
 * Storage is counted per account: the bytes of stored files plus the bytes of uploads still arriving
 * (reserved chunk by chunk), so that concurrent uploads cannot together pass the quota.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readdir, rm, rmdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Clock } from '../clock.ts'
import { fileLimits, MAX_UPLOAD_BYTES, type FileTierLimits, type Tier } from '../limit-tables.ts'
import { SetupError } from '../errors.ts'
import { valuesOf } from '../../common/request-schemas.ts'

/** Section 4.4: the purposes an upload may name, as the upload's request schema lists them. */
export const FILE_PURPOSES: readonly string[] = valuesOf('POST /v1/files', 'body', 'purpose')
/** One of FILE_PURPOSES (or, under the fault purpose-unchecked, any string). */
export type FilePurpose = string

export function isFilePurpose(value: string): value is FilePurpose {
  return FILE_PURPOSES.includes(value)
}

export interface StoredFile {
  readonly id: string
  readonly accountId: string
  readonly bytes: number
  /** Unix seconds. */
  readonly createdAt: number
  /** Unix seconds, or null when the file has no expiry. */
  readonly expiresAt: number | null
  readonly filename: string
  readonly purpose: FilePurpose
  /** The type the upload declared for the file part; the download answers with it. */
  readonly contentType: string
  /** Where the bytes are. */
  readonly path: string
  /** Order of upload: breaks ties between files created in the same second. */
  readonly seq: number
}

/** Smaller limits for self-tests, so that the quota and the size rule can be reached without hundreds of MB. */
export interface FileStoreOptions {
  maxUploadBytes?: number
  tiers?: Partial<Record<Tier, Partial<FileTierLimits>>>
}

const FOLDER_PREFIX = 'gateway-files-'

/**
 * A gateway killed before it could close leaves its folder behind; the next one removes the folders of
 * processes that no longer run. Best effort: a folder it cannot judge or remove is left alone.
 */
async function removeAbandonedFolders(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[])
  for (const name of names) {
    const pid = Number(name.slice(FOLDER_PREFIX.length))
    if (
      !name.startsWith(FOLDER_PREFIX) ||
      !Number.isSafeInteger(pid) ||
      pid <= 0 ||
      pid === process.pid ||
      isRunning(pid)
    )
      continue
    await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined)
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but is someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export const FILE_STORE_DEFAULTS = {
  sweepIntervalMs: 60_000, // expired files are also removed whenever their account touches /v1/files
}

export class FileStore {
  readonly maxUploadBytes: number
  readonly #tiers: FileStoreOptions['tiers']
  readonly #files = new Map<string, StoredFile>()
  readonly #reserved = new Map<string, number>()
  /** Removals of bytes under way, so that sweep() and close() can wait for them. */
  readonly #removing = new Set<Promise<void>>()
  #seq = 0
  #dir: Promise<string> | undefined
  #sweeper: NodeJS.Timeout | undefined
  #closed = false

  private readonly clock: Clock

  constructor(clock: Clock, options: FileStoreOptions = {}) {
    this.clock = clock
    this.maxUploadBytes = options.maxUploadBytes ?? MAX_UPLOAD_BYTES
    this.#tiers = options.tiers
  }

  limits(tier: Tier): FileTierLimits {
    return { ...fileLimits(tier), ...this.#tiers?.[tier] }
  }

  /** A fresh path in this gateway's folder for an upload's bytes; the folder is made on first use. */
  async tempPath(): Promise<string> {
    if (this.#closed) throw new SetupError('STORE_CLOSED', 'the file store is closed')
    this.#dir ??= (async () => {
      await removeAbandonedFolders()
      const root = join(tmpdir(), `${FOLDER_PREFIX}${process.pid}`)
      await mkdir(root, { recursive: true })
      return mkdtemp(join(root, 'g-'))
    })()
    this.#sweeper ??= setInterval(() => void this.sweep(), FILE_STORE_DEFAULTS.sweepIntervalMs).unref()
    return join(await this.#dir, randomBytes(12).toString('hex'))
  }

  newId(): string {
    return `file-${randomBytes(12).toString('hex')}`
  }

  nextSeq(): number {
    this.#seq += 1
    return this.#seq
  }

  /** Bytes the account holds: stored files and uploads in progress. */
  usedBytes(accountId: string): number {
    let used = this.#reserved.get(accountId) ?? 0
    for (const file of this.#files.values()) if (file.accountId === accountId) used += file.bytes
    return used
  }

  /** Counts `bytes` of an upload in progress against the account's storage. */
  reserve(accountId: string, bytes: number): void {
    this.#reserved.set(accountId, (this.#reserved.get(accountId) ?? 0) + bytes)
  }

  release(accountId: string, bytes: number): void {
    const left = (this.#reserved.get(accountId) ?? 0) - bytes
    if (left > 0) this.#reserved.set(accountId, left)
    else this.#reserved.delete(accountId)
  }

  /** Stores an uploaded file; its bytes, reserved while they arrived, now count as stored. */
  commit(file: StoredFile): void {
    this.#files.set(file.id, file)
    this.release(file.accountId, file.bytes)
  }

  /** The account's file, or undefined when it does not exist, is another account's, or has expired. */
  get(accountId: string, id: string): StoredFile | undefined {
    const file = this.#files.get(id)
    if (!file || file.accountId !== accountId) return undefined
    if (this.#expired(file)) {
      void this.#drop(file)
      return undefined
    }
    return file
  }

  /** The account's live files, oldest first (created_at, then upload order). */
  list(accountId: string): StoredFile[] {
    const files: StoredFile[] = []
    for (const file of this.#files.values()) {
      if (file.accountId !== accountId) continue
      if (this.#expired(file)) void this.#drop(file)
      else files.push(file)
    }
    return files.sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq)
  }

  /** Removes the account's file and its bytes; false when there was none. */
  async remove(accountId: string, id: string): Promise<boolean> {
    const file = this.get(accountId, id)
    if (!file) return false
    await this.#drop(file)
    return true
  }

  /** Removes every expired file, and waits for removals already under way. */
  async sweep(): Promise<void> {
    for (const file of this.#files.values()) if (this.#expired(file)) void this.#drop(file)
    await Promise.all(this.#removing)
  }

  /** Removes every file's bytes and this gateway's folder (onClose). */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#sweeper) clearInterval(this.#sweeper)
    this.#files.clear()
    await Promise.all(this.#removing)
    const dir = this.#dir
    if (dir === undefined) return
    const path = await dir.catch(() => undefined)
    if (path === undefined) return
    await rm(path, { recursive: true, force: true })
    // The shared parent goes too once no other gateway of this process uses it.
    await rmdir(join(path, '..')).catch(() => undefined)
  }

  #expired(file: StoredFile): boolean {
    return file.expiresAt !== null && file.expiresAt * 1000 <= this.clock.now()
  }

  /** Forgets the file at once; its bytes go in the background (awaited by whoever needs them gone). */
  #drop(file: StoredFile): Promise<void> {
    if (this.#files.get(file.id) === file) this.#files.delete(file.id)
    // A file the system could not remove is forgotten all the same; close() removes the folder.
    const removal = rm(file.path, { force: true }).catch(() => undefined)
    this.#removing.add(removal)
    void removal.finally(() => this.#removing.delete(removal))
    return removal
  }
}
