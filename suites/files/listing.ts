/**
 * Reading the file list (Part 1 §2.4, §4.4) and paging through it. A shared remote account may hold files of
 * other runs, which may come and go while a test runs: checks of order and paging look at all files where that is
 * stable (sortedness) and at the run's own files where it is not (gaps, repeats).
 */
import { precondition, is2xx } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import { pollUntil } from '../../harness/worker/helpers.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { runConfig } from '../../harness/worker/suite.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { expectAccepted } from '../shared/refusals.ts'
import { rangeOf } from '../../common/request-schemas.ts'

interface FileList {
  ex: Exchange
  items: Array<Record<string, unknown>>
  ids: string[]
  firstId: unknown
  lastId: unknown
  hasMore: unknown
}

/** Section 4.4's range of limit, read from the request schema the reference gateway enforces too. */
export const LIMIT_RANGE = rangeOf('GET /v1/files', 'query', 'limit')
/** Section 4.4: the largest limit, so that one call lists every file of an account that holds at most that many. */
export const MAX_LIMIT = LIMIT_RANGE.max

export async function listFiles(
  api: TargetClient,
  query: Record<string, string | number> = {},
  key: KeySlot = 'main',
): Promise<FileList> {
  return readList(await api.get('/v1/files', { query, key }))
}

function readList(ex: Exchange): FileList {
  expectAccepted([[`GET ${ex.excerpt.path}`, ex]], 'the file list (§7: 2xx success)')
  const body = ex.json
  precondition(
    isObject(body) && Array.isArray(body.data),
    'P1-2.4-list-envelope',
    `${ex.excerpt.path} did not answer an object with a data array`,
  )
  const items = body.data.filter(isObject)
  return {
    ex,
    items,
    ids: items.flatMap((item) => (typeof item.id === 'string' ? [item.id] : [])),
    firstId: body.first_id,
    lastId: body.last_id,
    hasMore: body.has_more,
  }
}

/** The whole list in one order, for tests that need every file: skipped when the account holds too many. */
export async function fullList(api: TargetClient, order: 'asc' | 'desc', key: KeySlot = 'main'): Promise<FileList> {
  const list = await listFiles(api, { order, limit: MAX_LIMIT }, key)
  precondition(
    schemas().validate('files/list.json', list.ex.json).ok,
    'P1-2.4-list-envelope',
    'the list does not have the envelope of §2.4',
  )
  precondition(
    list.hasMore === false,
    'P1-4.4-list-limit',
    `the account holds more than ${MAX_LIMIT} files, so no single page lists them all`,
  )
  return list
}

/**
 * How long files just uploaded may take to be listed: the reference does not say a list shows a file at once, so
 * a list read right after an upload may wait the run's settle bound (GATEWAY_SETTLE_MS), as a charge may.
 */
/** The settle bound of the run, read when a list is polled (the run's configuration is known only then). */
const listSettle = (): { timeoutMs: number; intervalMs: number } => ({
  timeoutMs: runConfig().settleMs ?? DEFAULTS.settleMs,
  intervalMs: 500,
})

/** A list read until `settled` holds of it, or as it stands at the settle bound. */
async function readUntil(read: () => Promise<FileList>, settled: (list: FileList) => boolean): Promise<FileList> {
  let last = await read()
  if (settled(last)) return last
  await pollUntil(async () => {
    last = await read()
    return settled(last) ? last : undefined
  }, listSettle())
  return last
}

/** A list read until it holds every one of `ids` (files the run just uploaded), or as it stands at the settle bound. */
function holding(read: () => Promise<FileList>, ids: readonly string[]): Promise<FileList> {
  return readUntil(read, (list) => ids.every((id) => list.ids.includes(id)))
}

/** The whole list in one order (fullList), once it holds every one of `ids`. */
export function fullListHolding(
  api: TargetClient,
  order: 'asc' | 'desc',
  ids: readonly string[],
  key: KeySlot = 'main',
): Promise<FileList> {
  return holding(() => fullList(api, order, key), ids)
}

/** The list for `query`, read until it no longer holds `id` (a file just deleted), or as it stands at the settle bound. */
export function listWithout(api: TargetClient, query: Record<string, string | number>, id: string): Promise<FileList> {
  return readUntil(
    () => listFiles(api, query),
    (list) => !list.ids.includes(id),
  )
}

/** The list for `query`, once it holds every one of `ids`. */
export function listHolding(
  api: TargetClient,
  query: Record<string, string | number>,
  ids: readonly string[],
): Promise<FileList> {
  return holding(() => listFiles(api, query), ids)
}

/** GET /v1/files/{file_id} of a file just deleted, read until it no longer answers 2xx or the settle bound passed. */
export async function retrievedUntilGone(api: TargetClient, id: string): Promise<Exchange> {
  const path = `/v1/files/${encodeURIComponent(id)}`
  let last = await api.get(path)
  if (!is2xx(last)) return last
  await pollUntil(async () => {
    last = await api.get(path)
    return is2xx(last) ? undefined : last
  }, listSettle())
  return last
}

/** created_at of each item, failing when one is not an integer (the file-object requirement reports that). */
function createdAts(list: FileList): number[] {
  const values = list.items.map((item) => item.created_at)
  precondition(
    values.every((v) => Number.isInteger(v)),
    'P1-2.4-file-object',
    'a listed file has no integer created_at',
  )
  return values as number[]
}

/** Places where the list breaks the order: an item whose created_at is out of order with the one before it. */
export function orderBreaks(list: FileList, order: 'asc' | 'desc'): string[] {
  const times = createdAts(list)
  const breaks: string[] = []
  for (let i = 1; i < times.length; i += 1) {
    const [before, after] = [times[i - 1] as number, times[i] as number]
    if (order === 'asc' ? after < before : after > before)
      breaks.push(`/data/${i} (${list.ids[i]}) created_at ${after} after /data/${i - 1} created_at ${before}`)
  }
  return breaks
}

export interface Paged {
  /** Every id of every page, in the order read. */
  seen: string[]
  pages: number
  /** The last page read, and whether it said no more files follow. */
  last: FileList
  /**
   * Where the envelope read otherwise than its usual meaning (§2.4 names the fields, not what they mean):
   * first_id and last_id not naming the first and last file, has_more false while one of `ours` was to come.
   */
  envelope: Array<{ problem: string; ex: Exchange }>
}

/**
 * Pages with `after` from just before the first of `ours` (as `full` orders them) until every one of `ours` was
 * seen and has_more is false, a page is empty, or `maxPages` were read. has_more does not end the paging while
 * one of `ours` is still to come: the cursor is judged on its own, and the envelope's meaning is only noted.
 * A cursor naming another client's file that was deleted meanwhile ends the paging as 'cursor-gone': the reference
 * does not say what `after` a missing file gives, so the caller pages again rather than judge it.
 */
export async function pageThrough(
  api: TargetClient,
  order: 'asc' | 'desc',
  full: FileList,
  ours: readonly string[],
  limit: number,
  maxPages: number,
): Promise<Paged | 'cursor-gone'> {
  const start = full.ids.indexOf(ours[0] as string)
  let after = start > 0 ? full.ids[start - 1] : undefined
  const seen: string[] = []
  const envelope: Paged['envelope'] = []
  for (let pages = 1; ; pages += 1) {
    const ex = await api.get('/v1/files', { query: { order, limit, ...(after === undefined ? {} : { after }) } })
    if (ex.status !== 200 && after !== undefined && !ours.includes(after) && (await gone(api, after)))
      return 'cursor-gone'
    const page = readList(ex)
    precondition(page.ids.length <= limit, 'P1-4.4-list-limit', `limit=${limit} returned ${page.ids.length} files`)
    if (page.ids.length > 0 && !(page.firstId === page.ids[0] && page.lastId === page.ids.at(-1)))
      envelope.push({
        problem: `order=${order}: first_id ${String(page.firstId)}, last_id ${String(page.lastId)}, data ${page.ids.join(', ')}`,
        ex: page.ex,
      })
    seen.push(...page.ids)
    const pending = ours.filter((id) => !seen.includes(id))
    if (pending.length > 0 && page.hasMore !== true)
      envelope.push({
        problem: `order=${order}: has_more ${String(page.hasMore)} while ${pending.length} of the run's files (${pending.join(', ')}) come later`,
        ex: page.ex,
      })
    const done = pending.length === 0 && page.hasMore !== true
    if (done || page.ids.length === 0 || pages >= maxPages) return { seen, pages, last: page, envelope }
    after = page.ids.at(-1)
  }
}

/** Whether a file another client holds is gone now: its cursor may then be refused. */
async function gone(api: TargetClient, id: string): Promise<boolean> {
  const ex = await api.get(`/v1/files/${encodeURIComponent(id)}`)
  return ex.status === 404
}
