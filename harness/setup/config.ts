/**
 * Configuration: environment (and `.env`, read with dotenv) overridden by command-line flags, validated once.
 * Every problem becomes a ConfigError whose message is one line saying what to fix.
 */
import { DEFAULT_NATIVE_KEY_HEADER } from '../../common/native-key.ts'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { isCalendarDate, todayUtc } from '../clock.ts'
import { parseDurationMs } from '../duration.ts'
import { ConfigError } from '../errors.ts'
import { RUN_STOP_DEFAULTS } from './run-stop.ts'
import { GENERATE_DEFAULTS, type GenerateSettings } from '../generate/settings.ts'
import { KEY_ENV, KEY_SLOTS, type KeySlot } from '../keys.ts'

export const DEFAULTS = {
  timeoutMs: 30_000, // per request; long enough for a slow staging target, short enough that nothing hangs
  remoteBudgetUsd: 50, // a remote run spends at most this unless GATEWAY_BUDGET_USD says otherwise: a full run reserves about $39 at the reference's prices
  reportDir: 'reports', // parent of reports/<run-id>/ and reports/latest
  maxTimeoutMs: 900_000, // the flex tier may take up to 900 s (Part 1 section 8.5); more is a typo
  suiteWorkers: 4, // suite files run side by side: they wait on the target, not on the CPU, even on two cores
  maxRunMs: 24 * 3_600_000, // the longest --max-duration: a day; more is a typo
  embeddedMinuteMs: 10_000, // the embedded gateway's rate-limit minute, so that waiting for a window takes seconds
  realMinuteMs: 60_000, // a target's rate-limit minute unless GATEWAY_MINUTE_MS says it was shortened
  settleMs: 30_000, // how long a charge (or a listed job) may take to show unless GATEWAY_SETTLE_MS says otherwise
  embeddedSettleMs: 2_000, // the reference gateway charges as it answers: a short bound keeps "not charged" checks quick
  maxSettleMs: 600_000, // the longest GATEWAY_SETTLE_MS: ten minutes; more is a typo
}

/** What the user asked for, validated. `baseUrl: null` means: start the embedded reference gateway. */
export interface RunOptions {
  baseUrl: string | null
  keys: Partial<Record<KeySlot, string>>
  asOf: string
  asOfExplicit: boolean
  budgetUsd: number | null
  timeoutMs: number
  /**
   * GATEWAY_LARGE_UPLOADS: run uploads of hundreds of MB (file size limit, storage quota) against a remote target
   * too; loopback targets always do.
   */
  largeUploads: boolean
  /** GATEWAY_MODELS and GATEWAY_AUDIO_MODELS, parsed: capability -> the target's model id; the rest are discovered. */
  models: NamedModels
  /** GATEWAY_NATIVE_KEY_HEADER: the header the native interface takes a key in, lower case. */
  nativeKeyHeader: string
  /** GATEWAY_NAMES, parsed: the reference's neutral name -> the target's name (suites/shared/names.ts). */
  names?: Names
  /** GATEWAY_MINUTE_MS: the target's rate-limit minute, for a reference gateway started with --minute-ms. */
  minuteMs?: number | null
  /**
   * GATEWAY_SETTLE_MS: how long a call's effect may take to show in a later read: a charge in the credit record
   * (suites/shared/credit.ts), a video job in the list or gone from it (suites/videos/jobs.ts).
   */
  settleMs?: number
  families: string[] | null
  grep: string | null
  reportDir: string
  filters: string[]
  /** --level must: only tests of MUST requirements; null runs every level. Optional: runs built in code omit it. */
  level?: 'MUST' | null
  /** --shard i/n: this run takes the i-th of n slices of the suite files (vitest's shard). */
  shard?: Shard | null
  /** --baseline FILE: requirements known to fail on this target (harness/report/baseline.ts). */
  baseline?: string | null
  /** --update-baseline: write the baseline file from this run. */
  updateBaseline?: boolean
  /** Run a failed MUST test once more at once and report a pass then as flaky (harness/worker/rerun.ts); --no-rerun: off. */
  rerun?: boolean
  /** GATEWAY_MAX_DURATION or --max-duration: past it the run stops calling (harness/setup/run-stop.ts). Optional: runs built in code omit it. */
  maxDurationMs?: number
  /** --generate-runs and --generate-seed: the generation phase's size and seed (suites/generated/). Optional: runs built in code omit it. */
  generate?: GenerateSettings
}

export interface Shard {
  index: number
  count: number
}

export interface FlagValues {
  'base-url'?: string
  models?: string
  names?: string
  family?: string
  grep?: string
  'as-of'?: string
  'report-dir'?: string
  level?: string
  shard?: string
  baseline?: string
  'update-baseline'?: boolean
  'no-rerun'?: boolean
  'max-duration'?: string
  'generate-runs'?: string
  'generate-seed'?: string
}

export type Env = Record<string, string | undefined>

/** Reads `.env` in `dir` if present; variables already in the environment win, as with dotenv. */
export function loadEnv(processEnv: Env, dir: string = process.cwd()): Env {
  let fileVars: Env = {}
  try {
    fileVars = parseDotenv(readFileSync(resolve(dir, '.env')))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(`cannot read .env: ${(error as Error).message}`)
    }
  }
  return { ...fileVars, ...processEnv }
}

function parseBaseUrl(raw: string, source: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`${source} "${raw}" is not a URL; give the host root, e.g. https://gateway.example.com`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${source} must start with http:// or https:// (got "${url.protocol}")`)
  }
  if (url.username || url.password)
    throw new ConfigError(`${source} must not hold credentials; put keys in GATEWAY_API_KEY`)
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new ConfigError(
      `${source} must be the host root with no path or query (got "${raw}"); drop "${url.pathname}${url.search}${url.hash}"`,
    )
  }
  return url.origin
}

function parseAsOf(raw: string, source: string): string {
  if (!isCalendarDate(raw)) throw new ConfigError(`${source} must be a date written YYYY-MM-DD (got "${raw}")`)
  return raw
}

function parsePositiveInt(raw: string, source: string, max: number): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigError(`${source} must be a whole number of milliseconds from 1 to ${max} (got "${raw}")`)
  }
  return Number(raw)
}

/**
 * The capabilities a suite needs a model for. The reference names some models, neutralises others and leaves the
 * rest to the catalogue's fields; a target whose list lacks those fields names its models here instead.
 */
export const CAPABILITIES = [
  'chat',
  'responses',
  'reasoning',
  'embedding',
  'image',
  'completion',
  'moderation',
  'speech',
  'transcribe',
  'transcribe-newer',
  'diarize',
  'ocr',
  'video',
  'native',
  'native-speech',
  'synthesis',
  'chat-audio',
] as const
export type Capability = (typeof CAPABILITIES)[number]
export type NamedModels = Partial<Record<Capability, string>>

/** The capabilities GATEWAY_AUDIO_MODELS may name: it spells part of GATEWAY_MODELS, and keeps working. */
export const AUDIO_CAPABILITIES: readonly Capability[] = ['speech', 'transcribe', 'transcribe-newer', 'diarize']

export { DEFAULT_NATIVE_KEY_HEADER }

function parseModels(raw: string, source: string, allowed: readonly Capability[]): NamedModels {
  const out: NamedModels = {}
  for (const pair of raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const [capability, id, ...rest] = pair.split('=').map((s) => s.trim())
    if (!capability || !id || rest.length > 0 || !(allowed as readonly string[]).includes(capability)) {
      throw new ConfigError(
        `${source}: "${pair}" is not capability=model-id with a capability from ${allowed.join(', ')}`,
      )
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a model id must not hold control characters
    if (/[\s\x00-\x1f\x7f]/.test(id))
      throw new ConfigError(`${source}: the model id "${id}" holds whitespace or a control character`)
    out[capability as Capability] = id
  }
  return out
}

/** Reference name -> the target's name, for the ids the reference neutralised (GATEWAY_NAMES, --names). */
export type Names = Readonly<Record<string, string>>

function parseNames(raw: string, source: string): Names {
  const out: Record<string, string> = {}
  for (const pair of raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const [from, to, ...rest] = pair.split('=').map((s) => s.trim())
    if (!from || !to || rest.length > 0)
      throw new ConfigError(`${source}: "${pair}" is not reference-name=target-name, e.g. vidA-2=my-video-model`)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a name goes into paths and bodies as it is
    if (/[\s\x00-\x1f\x7f]/.test(to))
      throw new ConfigError(`${source}: the name "${to}" holds whitespace or a control character`)
    if (from in out) throw new ConfigError(`${source}: "${from}" is named twice`)
    out[from] = to
  }
  return out
}

function parseMinute(raw: string, baseUrl: string | null): number {
  if (baseUrl === null)
    throw new ConfigError(
      `GATEWAY_MINUTE_MS is for a target started with a shortened minute; the embedded gateway's is ${DEFAULTS.embeddedMinuteMs} ms`,
    )
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 200 || Number(raw) > DEFAULTS.realMinuteMs) {
    throw new ConfigError(
      `GATEWAY_MINUTE_MS must be whole milliseconds from 200 to ${DEFAULTS.realMinuteMs} (got "${raw}")`,
    )
  }
  return Number(raw)
}

function parseSettle(raw: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > DEFAULTS.maxSettleMs)
    throw new ConfigError(
      `GATEWAY_SETTLE_MS must be whole milliseconds from 0 to ${DEFAULTS.maxSettleMs} (got "${raw}")`,
    )
  return Number(raw)
}

function parseHeaderName(raw: string, source: string): string {
  // An HTTP token (RFC 9110 section 5.6.2), and not one of the headers the suite sets itself.
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(raw))
    throw new ConfigError(`${source} must be an HTTP header name such as x-native-api-key (got "${raw}")`)
  if (['authorization', 'content-type', 'accept', 'host', 'content-length'].includes(raw.toLowerCase())) {
    throw new ConfigError(`${source} must name the native key header, not ${raw}`)
  }
  return raw.toLowerCase()
}

function parseSwitch(raw: string, source: string): boolean {
  const word = raw.trim().toLowerCase()
  if (word === '1' || word === 'true' || word === 'yes') return true
  if (word === '0' || word === 'false' || word === 'no' || word === '') return false
  throw new ConfigError(`${source} must be 1 or 0 (true or false), got '${raw}'`)
}

function parseBudget(raw: string, source: string): number {
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new ConfigError(`${source} must be a non-negative number of US dollars (got "${raw}")`)
  }
  return value
}

function parseKey(raw: string, name: string): string {
  // A key goes into a header; whitespace or control characters would break the request or smuggle another header.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a key must not hold control characters
  if (/[\s\x00-\x1f\x7f]/.test(raw))
    throw new ConfigError(`${name} contains whitespace or a control character; check how it was pasted`)
  return raw
}

function parseFamilies(raw: string, known: readonly string[]): string[] {
  const families = raw
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '')
  if (families.length === 0) throw new ConfigError(`--family needs at least one family: ${known.join(', ')}`)
  for (const family of families) {
    if (!known.includes(family)) throw new ConfigError(`unknown family "${family}": choose from ${known.join(', ')}`)
  }
  return [...new Set(families)]
}

function parseGrep(raw: string): string {
  try {
    new RegExp(raw)
  } catch (error) {
    throw new ConfigError(
      `--grep "${raw}" is not a regular expression: ${(error as Error).message.split(': ').pop() ?? ''}`,
    )
  }
  return raw
}

function parseLevel(raw: string): 'MUST' | null {
  const word = raw.trim().toLowerCase()
  if (word === 'must') return 'MUST'
  if (word === 'all') return null
  throw new ConfigError(`--level must be "must" (only MUST requirements) or "all" (got "${raw}")`)
}

/** Past this many shards a slice is a file or two of the suite, or calls too few for a load verdict. */
export const MAX_SHARDS = 64

/** `--shard i/n`, for conformance runs and load runs alike: the i-th of n slices. */
export function parseShard(raw: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw)
  const index = Number(match?.[1])
  const count = Number(match?.[2])
  if (match === null || count < 1 || count > MAX_SHARDS || index < 1 || index > count) {
    throw new ConfigError(`--shard must be i/n with 1 <= i <= n <= ${MAX_SHARDS}, e.g. 2/3 (got "${raw}")`)
  }
  return { index, count }
}

/** Combines environment and flags into validated options. `knownFamilies` are the families that have suites. */
export function resolveOptions(
  env: Env,
  flags: FlagValues,
  filters: string[],
  knownFamilies: readonly string[],
): RunOptions {
  const value = (name: string): string | undefined => {
    const v = env[name]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  const baseUrlRaw = flags['base-url'] ?? value('GATEWAY_BASE_URL')
  const baseUrl =
    baseUrlRaw === undefined ? null : parseBaseUrl(baseUrlRaw, flags['base-url'] ? '--base-url' : 'GATEWAY_BASE_URL')

  const keys: Partial<Record<KeySlot, string>> = {}
  for (const slot of KEY_SLOTS) {
    const raw = value(KEY_ENV[slot])
    if (raw !== undefined) keys[slot] = parseKey(raw, KEY_ENV[slot])
  }
  if (baseUrl !== null && keys.main === undefined) {
    throw new ConfigError(
      `GATEWAY_API_KEY is not set: the target ${baseUrl} needs a key (set it in the environment or in .env)`,
    )
  }

  const asOfRaw = flags['as-of'] ?? value('GATEWAY_AS_OF')
  const asOf = asOfRaw === undefined ? todayUtc() : parseAsOf(asOfRaw, flags['as-of'] ? '--as-of' : 'GATEWAY_AS_OF')

  const timeoutRaw = value('GATEWAY_TIMEOUT_MS')
  const timeoutMs =
    timeoutRaw === undefined
      ? DEFAULTS.timeoutMs
      : parsePositiveInt(timeoutRaw, 'GATEWAY_TIMEOUT_MS', DEFAULTS.maxTimeoutMs)

  const budgetRaw = value('GATEWAY_BUDGET_USD')
  const budgetUsd =
    budgetRaw !== undefined
      ? parseBudget(budgetRaw, 'GATEWAY_BUDGET_USD')
      : baseUrl === null
        ? null
        : DEFAULTS.remoteBudgetUsd

  const maxDurationRaw = flags['max-duration'] ?? value('GATEWAY_MAX_DURATION')
  const maxDurationMs =
    maxDurationRaw === undefined
      ? RUN_STOP_DEFAULTS.maxDurationMs
      : parseMaxDuration(maxDurationRaw, flags['max-duration'] ? '--max-duration' : 'GATEWAY_MAX_DURATION')

  const largeRaw = value('GATEWAY_LARGE_UPLOADS')
  const largeUploads = largeRaw === undefined ? false : parseSwitch(largeRaw, 'GATEWAY_LARGE_UPLOADS')

  const minuteRaw = value('GATEWAY_MINUTE_MS')
  const minuteMs = minuteRaw === undefined ? null : parseMinute(minuteRaw, baseUrl)
  const settleRaw = value('GATEWAY_SETTLE_MS')
  const settleMs =
    settleRaw !== undefined ? parseSettle(settleRaw) : baseUrl === null ? DEFAULTS.embeddedSettleMs : DEFAULTS.settleMs

  const audioRaw = value('GATEWAY_AUDIO_MODELS')
  const modelsRaw = flags.models ?? value('GATEWAY_MODELS')
  const models: NamedModels = {
    ...(audioRaw === undefined ? {} : parseModels(audioRaw, 'GATEWAY_AUDIO_MODELS', AUDIO_CAPABILITIES)),
    ...(modelsRaw === undefined
      ? {}
      : parseModels(modelsRaw, flags.models !== undefined ? '--models' : 'GATEWAY_MODELS', CAPABILITIES)),
  }
  const namesRaw = flags.names ?? value('GATEWAY_NAMES')
  const names =
    namesRaw === undefined ? {} : parseNames(namesRaw, flags.names !== undefined ? '--names' : 'GATEWAY_NAMES')
  const headerRaw = value('GATEWAY_NATIVE_KEY_HEADER')
  const nativeKeyHeader =
    headerRaw === undefined ? DEFAULT_NATIVE_KEY_HEADER : parseHeaderName(headerRaw, 'GATEWAY_NATIVE_KEY_HEADER')

  return {
    baseUrl,
    keys,
    asOf,
    asOfExplicit: asOfRaw !== undefined,
    budgetUsd,
    timeoutMs,
    largeUploads,
    models,
    nativeKeyHeader,
    names,
    minuteMs,
    settleMs,
    families: flags.family === undefined ? null : parseFamilies(flags.family, knownFamilies),
    grep: flags.grep === undefined || flags.grep === '' ? null : parseGrep(flags.grep),
    reportDir: flags['report-dir'] ?? DEFAULTS.reportDir,
    filters,
    level: flags.level === undefined ? null : parseLevel(flags.level),
    shard: flags.shard === undefined ? null : parseShard(flags.shard),
    ...baselineOptions(flags),
    rerun: flags['no-rerun'] !== true,
    maxDurationMs,
    generate: generateSettings(flags),
  }
}

function parseWhole(raw: string, source: string, max: number): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > max)
    throw new ConfigError(`${source} must be a whole number from 0 to ${max} (got "${raw}")`)
  return Number(raw)
}

/** The generation phase's settings: cases of each kind per route (0 turns it off) and the seed. */
function generateSettings(flags: FlagValues): GenerateSettings {
  const runs = flags['generate-runs']
  const seed = flags['generate-seed']
  return {
    runs: runs === undefined ? GENERATE_DEFAULTS.runs : parseWhole(runs, '--generate-runs', GENERATE_DEFAULTS.maxRuns),
    seed: seed === undefined ? GENERATE_DEFAULTS.seed : parseWhole(seed, '--generate-seed', GENERATE_DEFAULTS.maxSeed),
  }
}

function parseMaxDuration(raw: string, source: string): number {
  const ms = parseDurationMs(raw)
  if (ms === undefined || ms < 1000 || ms > DEFAULTS.maxRunMs)
    throw new ConfigError(`${source} must be a duration from 1s to 24h such as 30m, 90s or 1h30m (got "${raw}")`)
  return Math.round(ms)
}

function baselineOptions(flags: FlagValues): { baseline: string | null; updateBaseline: boolean } {
  const baseline = flags.baseline === undefined || flags.baseline.trim() === '' ? null : flags.baseline
  const updateBaseline = flags['update-baseline'] === true
  if (updateBaseline && baseline === null)
    throw new ConfigError('--update-baseline needs --baseline FILE: the file to write')
  // A shard sees part of the run: the entries of the other shards would look "not run" and the file would be half.
  if (updateBaseline && flags.shard !== undefined)
    throw new ConfigError(
      '--update-baseline needs a whole run, not a shard: run once without --shard to write the baseline',
    )
  return { baseline, updateBaseline }
}

/** What a target's config shares with the run's options (keys: the embedded gateway's own when it is the target). */
type TargetOptions =
  | 'keys'
  | 'asOf'
  | 'budgetUsd'
  | 'timeoutMs'
  | 'largeUploads'
  | 'models'
  | 'nativeKeyHeader'
  | 'names'
  | 'settleMs'
  | 'generate'

/** The target as the suites see it: always a URL and keys, whether embedded or given. */
export interface TargetConfig extends Pick<RunOptions, TargetOptions> {
  baseUrl: string
  embedded: boolean
  /** The period of the target's per-minute buckets in ms: a real minute unless shortened (embedded, GATEWAY_MINUTE_MS). */
  minuteMs?: number
  runId: string
  /** Set by the conformance command: a failed MUST test runs once more at once (harness/worker/rerun.ts). */
  rerunFailures?: boolean
  /** Set by the conformance command: when the run stops calling (epoch ms, GATEWAY_MAX_DURATION; harness/setup/run-stop.ts). */
  deadlineAt?: number
  /** Set by the conformance command: the file whose presence stops every worker's calls (harness/setup/run-stop.ts). */
  stopFile?: string
}
