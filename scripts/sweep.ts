/**
 * npm run conformance -- sweep [--yes] [--keep RUN_ID]... [--older-than 2h] [--base-url URL]
 *
 * Finds what earlier runs left on the target and, with --yes, deletes it. A run deletes what it creates in its
 * afterAll hooks; a run that was stopped (Ctrl-C, a cancelled CI job, a crash) cannot, and its files and video
 * jobs stay, counting against storage quotas and cluttering lists. Every resource a run creates carries its run
 * id (harness/worker/run-tag.ts), which is what makes it safe to find them again:
 *
 * - files (Part 1 §4.4) whose filename starts with `gc-<runId>-` (a load run's uploads too),
 * - video jobs (Part 2 §4.1) whose safety_identifier starts with `gc-<runId>-`,
 *
 * listed with every key given (main and the tier keys: each may belong to another account), and nothing else.
 * A resource is left alone when its run is named by --keep, or when its run started, or it was created, less than
 * --older-than ago: that run may still be going. Dry run by default. Exit 0: everything was listed (and, with
 * --yes, deleted); 2: bad configuration, an unreachable target, or a list or delete that failed.
 */
import { parseArgs } from 'node:util'
import {
  DEFAULT_NATIVE_KEY_HEADER,
  KEY_SLOTS,
  loadEnv,
  resolveOptions,
  type Env,
  type KeySlot,
  type TargetConfig,
} from '../harness/setup/config.ts'
import { parseDurationMs } from '../harness/duration.ts'
import { ConfigError, isHarnessError } from '../harness/errors.ts'
import { TargetClient, type Exchange } from '../harness/worker/http-client.ts'
import { isRunId, runIdOf, runStartedAt } from '../harness/worker/run-tag.ts'
import { newRunId, probe } from '../harness/setup/target.ts'
import { isObject } from '../common/json.ts'

const SWEEP_DEFAULTS = {
  /** Younger runs may still be running: a remote run of every family takes well under an hour. */
  olderThan: '2h',
  /** Part 1 §4.4: GET /v1/files answers at most 10000 files a page. */
  pageLimit: 10_000,
  /** A cursor that never ends is the target's bug; stop rather than loop. */
  maxPages: 1_000,
}

const SWEEP_USAGE = `Usage: gateway-conformance sweep [--yes] [--keep RUN_ID]... [--older-than DURATION] [--base-url URL]

Lists what earlier conformance and load runs left on the target: files whose filename starts with gc-<run id>-
and video jobs whose safety_identifier starts with gc-<run id>-, with every key given (GATEWAY_API_KEY
and GATEWAY_API_KEY_TIER0..5). Nothing else is ever listed or deleted.

Options:
  --yes                   delete what is listed (default: a dry run that deletes nothing)
  --keep RUN_ID           leave this run's resources alone (repeatable)
  --older-than DURATION   only runs started, and resources created, at least this long ago (default ${SWEEP_DEFAULTS.olderThan}; e.g. 30m, 0s)
  --base-url URL          the target (GATEWAY_BASE_URL); required: the embedded gateway starts empty
  -h, --help              this text

Exit codes: 0 listed (and with --yes deleted) everything, 2 bad configuration, unreachable target, or a list or
delete that failed.
`

export interface SweepIo {
  out(text: string): void
  err(text: string): void
  /** The environment; `.env` in `cwd` fills what it lacks, as for a conformance run. */
  env: Env
  cwd: string
  now(): number
  /** Page size of the file list (tests make it small to see the cursor followed). */
  pageLimit?: number
}

const processIo: SweepIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  now: Date.now,
}

type Kind = 'file' | 'video'

interface Found {
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

interface Settings {
  baseUrl: string
  keys: Partial<Record<KeySlot, string>>
  timeoutMs: number
  yes: boolean
  keep: Set<string>
  olderThanMs: number
}

function parseSettings(argv: string[], io: SweepIo): Settings | 'help' {
  let values: { 'base-url'?: string; yes?: boolean; keep?: string[]; 'older-than'?: string; help?: boolean }
  try {
    ;({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        yes: { type: 'boolean' },
        keep: { type: 'string', multiple: true },
        'older-than': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run conformance -- sweep --help)`)
  }
  if (values.help === true) return 'help'
  const options = resolveOptions(
    loadEnv(io.env, io.cwd),
    values['base-url'] === undefined ? {} : { 'base-url': values['base-url'] },
    [],
    [],
  )
  if (options.baseUrl === null) {
    throw new ConfigError(
      'sweep needs a target: set GATEWAY_BASE_URL or --base-url (the embedded reference gateway starts empty, so it has nothing to sweep)',
    )
  }
  for (const id of values.keep ?? []) {
    if (!isRunId(id))
      throw new ConfigError(`--keep "${id}" is not a run id (YYYYMMDD-HHMMSS-xxxx, as in reports/<run-id>/)`)
  }
  const olderThanRaw = values['older-than'] ?? SWEEP_DEFAULTS.olderThan
  const olderThanMs = parseDurationMs(olderThanRaw)
  if (olderThanMs === undefined)
    throw new ConfigError(`--older-than "${olderThanRaw}" is not a duration such as 2h, 30m or 0s`)
  return {
    baseUrl: options.baseUrl,
    keys: options.keys,
    timeoutMs: options.timeoutMs,
    yes: values.yes === true,
    keep: new Set(values.keep ?? []),
    olderThanMs,
  }
}

/** The keys to list with: each account may hold its own leftovers; the suspended account cannot list (403). */
function listingSlots(keys: Partial<Record<KeySlot, string>>): KeySlot[] {
  const seen = new Set<string>()
  return KEY_SLOTS.filter((slot) => {
    const key = keys[slot]
    if (slot === 'suspended' || key === undefined || seen.has(key)) return false
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
async function listFiles(
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
async function listVideos(
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

function ours(kind: Kind, item: Record<string, unknown>, slot: KeySlot): Found | undefined {
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
function decide(found: Found, settings: Settings, nowMs: number): string {
  if (settings.keep.has(found.runId)) return 'keep (--keep)'
  const cutoff = nowMs - settings.olderThanMs
  const started = runStartedAt(found.runId)?.getTime()
  if (started === undefined && found.createdAt === null) return 'keep (age unknown)'
  if ((started !== undefined && started > cutoff) || (found.createdAt !== null && found.createdAt * 1000 > cutoff))
    return 'keep (recent)'
  return 'delete'
}

async function remove(api: TargetClient, found: Found): Promise<string> {
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

function table(rows: Found[]): string {
  const cells = rows.map((f) => [
    f.kind,
    f.id,
    f.tag.length > 48 ? `${f.tag.slice(0, 45)}...` : f.tag,
    f.runId,
    f.createdAt === null ? '-' : new Date(f.createdAt * 1000).toISOString().replace('.000Z', 'Z'),
    f.bytes === null ? '-' : String(f.bytes),
    f.slot,
    f.action,
  ])
  const header = ['kind', 'id', 'name', 'run', 'created', 'bytes', 'key', 'action']
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)))
  const line = (c: string[]) =>
    c
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd()
  return `${[line(header), ...cells.map(line)].join('\n')}\n`
}

export async function runSweep(argv: string[], io: SweepIo = processIo): Promise<number> {
  try {
    const settings = parseSettings(argv, io)
    if (settings === 'help') {
      io.out(SWEEP_USAGE)
      return 0
    }
    await probe(settings.baseUrl, settings.timeoutMs)
    const config: TargetConfig = {
      baseUrl: settings.baseUrl,
      embedded: false,
      keys: settings.keys,
      asOf: '',
      budgetUsd: null,
      timeoutMs: settings.timeoutMs,
      largeUploads: false,
      models: {},
      nativeKeyHeader: DEFAULT_NATIVE_KEY_HEADER,
      runId: newRunId(),
    }
    const api = new TargetClient(config)
    const problems: string[] = []
    const notes: string[] = []
    const found = new Map<string, Found>()
    let looked = 0
    const slots = listingSlots(settings.keys)
    for (const slot of slots) {
      const files = await listFiles(api, slot, io.pageLimit ?? SWEEP_DEFAULTS.pageLimit)
      const videos = await listVideos(api, slot)
      for (const r of [files, videos]) if (r.problem !== undefined) problems.push(r.problem)
      if (videos.note !== undefined) notes.push(videos.note)
      looked += files.items.length + videos.items.length
      const mine = [
        ...files.items.map((i) => ours('file', i, slot)),
        ...videos.items.map((i) => ours('video', i, slot)),
      ]
      // Keys of one organization see the same resources: the first key that listed one deletes it.
      for (const f of mine) if (f !== undefined && !found.has(`${f.kind}:${f.id}`)) found.set(`${f.kind}:${f.id}`, f)
    }
    const rows = [...found.values()]
    for (const f of rows) f.action = decide(f, settings, io.now())
    const doomed = rows.filter((f) => f.action === 'delete')
    if (settings.yes) for (const f of doomed) f.action = await remove(api, f)
    io.out(
      `sweep ${settings.baseUrl}: ${looked} resources listed with ${slots.length} keys; ${rows.length} carry a run tag; ${doomed.length} left by runs older than ${formatMs(settings.olderThanMs)}${settings.keep.size > 0 ? ' and not kept' : ''}\n`,
    )
    if (rows.length > 0) io.out(table(rows))
    for (const note of notes) io.out(`note: ${note}\n`)
    const failed = rows.filter((f) => f.action.startsWith('failed'))
    if (!settings.yes && doomed.length > 0)
      io.out(`dry run: nothing deleted; add --yes to delete the ${doomed.length} marked delete\n`)
    if (settings.yes)
      io.out(
        `deleted ${rows.filter((f) => f.action === 'deleted' || f.action.startsWith('gone')).length} of ${doomed.length}\n`,
      )
    for (const p of problems) io.err(`sweep: could not list: ${p}\n`)
    if (failed.length > 0) io.err(`sweep: ${failed.length} deletes failed\n`)
    return problems.length > 0 || failed.length > 0 ? 2 : 0
  } catch (error) {
    io.err(
      isHarnessError(error)
        ? `sweep: ${error.message}\n`
        : `sweep: internal error: ${(error as Error).stack ?? String(error)}\n`,
    )
    return 2
  }
}

function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000} h`
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000} min`
  return `${Math.round(ms / 1000)} s`
}
