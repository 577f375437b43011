/**
 * What earlier runs left on a target, found again by their run tags, and deleted. A run deletes what it creates in
 * its afterAll hooks; a run that was stopped (Ctrl-C, a cancelled CI job, a crash) cannot, and its files and video
 * jobs stay, counting against storage quotas and cluttering lists. Every resource a run creates carries its run
 * id (harness/worker/run-tag.ts), which is what makes it safe to find them again:
 *
 * - files (Part 1 §4.4) whose filename starts with `gc-<runId>-` (a load run's uploads too),
 * - video jobs (Part 2 §4.1) whose safety_identifier starts with `gc-<runId>-`,
 *
 * listed with every key given (main and the tier keys: each may belong to another account), and nothing else.
 * A resource is left alone when its run is named by --keep, or when its run started, or it was created, less than
 * --older-than ago: that run may still be going.
 */
import { isObject } from '../../common/json.ts'
import { KEY_SLOTS, type KeySlot } from '../keys.ts'
import type { Exchange, TargetClient } from '../worker/http-client.ts'
import { runIdOf, runStartedAt } from '../worker/run-tag.ts'

export const SWEEP_DEFAULTS = {
  /** Younger runs may still be running: a remote run of every family takes well under an hour. */
  olderThan: '2h',
  /** Part 1 §4.4: GET /v1/files answers at most 10000 files a page. */
  pageLimit: 10_000,
  /** A cursor that never ends is the target's bug; stop rather than loop. */
  maxPages: 1_000,
}

type Kind = 'file' | 'video'

export interface Found {
  kind: Kind
  id: string
  /** The filename or safety_identifier that carries the tag. */
  tag: string
  runId: string
  /** Unix seconds, where the target says. */
  createdAt: number | null
  bytes: number | null
  slot: KeySlot
  action: string
}

/** The keys to list with: each account may hold its own leftovers; the suspended account cannot list (403). */
export function listingSlots(keys: Partial<Record<KeySlot, string>>): KeySlot[] {
  const seen = new Set<string>()
  return KEY_SLOTS.filter((slot) => {
    const key = keys[slot]
    // The second key belongs to the main key's account, whose leftovers the main key lists.
    if (slot === 'suspended' || slot === 'second' || key === undefined || seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const numberOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null

function listProblem(slot: KeySlot, ex: Exchange, what: string): string {
  return `${slot}: ${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status}${what ? `, ${what}` : ''}`
}

/** GET /v1/files page by page (Part 1 §4.4: limit, after = the last file id, has_more). */
export async function listFiles(
  api: TargetClient,
  slot: KeySlot,
  pageLimit: number,
): Promise<{ items: Record<string, unknown>[]; problem?: string }> {
  const items: Record<string, unknown>[] = []
  let after: string | undefined
  for (let page = 0; page < SWEEP_DEFAULTS.maxPages; page += 1) {
    const ex = await api.get('/v1/files', { key: slot, query: { limit: pageLimit, after } })
    const body = ex.json
    if (ex.status !== 200 || !isObject(body) || !Array.isArray(body.data))
      return { items, problem: listProblem(slot, ex, ex.status === 200 ? 'not the list envelope' : '') }
    const data = body.data.filter(isObject)
    items.push(...data)
    const last = typeof body.last_id === 'string' ? body.last_id : data.at(-1)?.id
    if (body.has_more !== true || data.length === 0) return { items }
    if (typeof last !== 'string' || last === after)
      return { items, problem: listProblem(slot, ex, 'has_more with no cursor that moves on') }
    after = last
  }
  return { items, problem: `${slot}: GET /v1/files still had more after ${SWEEP_DEFAULTS.maxPages} pages` }
}

/** GET /v1/videos (Part 2 §2.1: an object with data; no cursor is shown, so one answer is all there is). */
export async function listVideos(
  api: TargetClient,
  slot: KeySlot,
): Promise<{ items: Record<string, unknown>[]; problem?: string; note?: string }> {
  const ex = await api.get('/v1/videos', { key: slot })
  const body = ex.json
  // A target without the video surface has nothing of ours there.
  if (ex.status === 404) return { items: [], note: `${slot}: GET /v1/videos answered 404; no video jobs looked at` }
  if (ex.status !== 200 || !isObject(body) || !Array.isArray(body.data))
    return { items: [], problem: listProblem(slot, ex, ex.status === 200 ? 'not an object with data' : '') }
  const note =
    body.has_more === true
      ? `${slot}: GET /v1/videos says has_more, and the reference shows no cursor: only the first page was looked at`
      : undefined
  return { items: body.data.filter(isObject), ...(note ? { note } : {}) }
}

export function ours(kind: Kind, item: Record<string, unknown>, slot: KeySlot): Found | undefined {
  const tag = kind === 'file' ? item.filename : item.safety_identifier
  if (typeof item.id !== 'string' || typeof tag !== 'string') return undefined
  const runId = runIdOf(tag)
  if (runId === undefined) return undefined
  return {
    kind,
    id: item.id,
    tag,
    runId,
    createdAt: numberOrNull(item.created_at),
    bytes: kind === 'file' ? numberOrNull(item.bytes) : null,
    slot,
    action: '',
  }
}

/** Whether to delete: never a kept run, never something that may belong to a run still going. */
export function decide(
  found: Found,
  settings: { keep: ReadonlySet<string>; olderThanMs: number },
  nowMs: number,
): string {
  if (settings.keep.has(found.runId)) return 'keep (--keep)'
  const cutoff = nowMs - settings.olderThanMs
  const started = runStartedAt(found.runId)?.getTime()
  if (started === undefined && found.createdAt === null) return 'keep (age unknown)'
  if ((started !== undefined && started > cutoff) || (found.createdAt !== null && found.createdAt * 1000 > cutoff))
    return 'keep (recent)'
  return 'delete'
}

export async function remove(api: TargetClient, found: Found): Promise<string> {
  const path = `/v1/${found.kind === 'file' ? 'files' : 'videos'}/${encodeURIComponent(found.id)}`
  try {
    const ex = await api.request({ method: 'DELETE', path, key: found.slot })
    if (ex.status >= 200 && ex.status < 300) return 'deleted'
    if (ex.status === 404) return 'gone (404)'
    return `failed (${ex.status})`
  } catch (error) {
    return `failed (${(error as Error).message.split('\n')[0]})`
  }
}
