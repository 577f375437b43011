/**
 * npm run conformance -- sweep [--yes] [--keep RUN_ID]... [--older-than 2h] [--base-url URL]
 *
 * Finds what earlier runs left on the target (leftovers.ts says how, and what is never touched) and, with --yes,
 * deletes it. Dry run by default. Exit 0: everything was listed (and, with --yes, deleted); 2: bad configuration,
 * an unreachable target, or a list or delete that failed.
 */
import { DEFAULT_NATIVE_KEY_HEADER, loadEnv, resolveOptions, type Env, type TargetConfig } from '../setup/config.ts'
import type { KeySlot } from '../keys.ts'
import { parseDurationMs } from '../duration.ts'
import { ConfigError, isHarnessError } from '../errors.ts'
import { TargetClient } from '../worker/http-client.ts'
import { isRunId } from '../worker/run-tag.ts'
import { newRunId, probe } from '../setup/target.ts'
import { decide, type Found, listFiles, listingSlots, listVideos, ours, remove, SWEEP_DEFAULTS } from './leftovers.ts'
import { parseSweepFlags, SWEEP_USAGE } from './sweep-flags.ts'

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

interface Settings {
  baseUrl: string
  keys: Partial<Record<KeySlot, string>>
  timeoutMs: number
  yes: boolean
  keep: Set<string>
  olderThanMs: number
}

function parseSettings(argv: string[], io: SweepIo): Settings | 'help' {
  const values = parseSweepFlags(argv)
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
