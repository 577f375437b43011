/**
 * A load profile as data: a JSON or YAML file, validated by schemas/load/profile.schema.json and then by the
 * rules a schema cannot say (min <= mean <= max, a closed loop cannot time streams). A mistake is a ConfigError
 * of one line: the file, the JSON pointer of the value, and what to fix, so the command exits 2.
 */
import { readFileSync, statSync } from 'node:fs'
import { extname } from 'node:path'
import { parse as parseYaml, YAMLParseError } from 'yaml'
import { parseDurationMs } from '../harness/duration.ts'
import { ConfigError } from '../harness/errors.ts'
import { schemas } from '../harness/schema-registry.ts'
import { checkDistinct, statedLimit, type StatedLimit, type StatedLimitInput } from './stated-limits.ts'
import type { RouteKind } from './types.ts'

export const WORKLOAD_SCHEMA = 'load/profile.schema.json'

const FILE_LIMITS = {
  maxBytes: 1024 * 1024, // a profile is a page of text; past this it is not one
}

export type KeyChoice = 'main' | 'tier0' | 'tier1' | 'tier2' | 'tier3' | 'tier4' | 'tier5' | 'highest'

export interface TokenSpread {
  mean: number
  stddev: number
  min: number
  max: number
}

export interface WorkloadRoute {
  kind: RouteKind
  weight: number
  model?: string
}

export interface WorkloadPhase {
  name: string
  description?: string
  key?: KeyChoice
  routes: WorkloadRoute[]
  inputTokens: TokenSpread
  maxOutputTokens: TokenSpread
  /** null: closed loop. */
  rate: number | null
  connections?: number
  durationMs: number
  arrival?: { process: 'constant' | 'poisson' | 'gamma'; burstiness?: number }
  ramp?: { shape: 'linear' | 'exponential'; spanMs: number; fromRate?: number }
  seed?: number
}

export interface Workload {
  /** Where it was read from, for messages. */
  file: string
  name: string
  description: string
  key: KeyChoice
  seed?: number
  caps: { maxDurationMs: number; maxRequests: number }
  phases: WorkloadPhase[]
  /** Limits the operator states for the target (stated-limits.ts). */
  limits?: StatedLimit[]
}

export const WORKLOAD_DEFAULTS = {
  inputTokens: { mean: 16, stddev: 0 },
  maxOutputTokens: { mean: 64, stddev: 0 },
  maxDurationMs: 10 * 60_000,
  maxRequests: 100_000,
}

/** A value of --profile that names a file rather than a built-in profile. */
export function isProfileFile(value: string): boolean {
  return value.includes('/') || value.includes('\\') || /\.(json|ya?ml)$/i.test(value)
}

/** The shape the schema admits, before defaults. */
interface RawTokens {
  mean: number
  stddev?: number
  min?: number
  max?: number
}
interface RawPhase
  extends Omit<WorkloadPhase, 'inputTokens' | 'maxOutputTokens' | 'durationMs' | 'ramp' | 'rate' | 'routes'> {
  routes: (Omit<WorkloadRoute, 'weight'> & { weight?: number })[]
  inputTokens?: RawTokens
  maxOutputTokens?: RawTokens
  rate?: number
  duration: string
  ramp?: { shape: 'linear' | 'exponential'; span: string; from?: number }
}
interface RawWorkload {
  name: string
  description: string
  key?: KeyChoice
  seed?: number
  caps?: { maxDuration?: string; maxRequests?: number }
  phases: RawPhase[]
  limits?: StatedLimitInput[]
}

function parseText(file: string, text: string): unknown {
  const ext = extname(file).toLowerCase()
  try {
    if (ext === '.json') return JSON.parse(text) as unknown
    return parseYaml(text, { uniqueKeys: true }) as unknown
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const at = error.linePos?.[0]
      const what = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')
      throw new ConfigError(`${file}${at ? `:${at.line}:${at.col}` : ''}: not YAML: ${what}`)
    }
    throw new ConfigError(`${file}: not JSON: ${(error as Error).message.split('\n')[0]}`)
  }
}

function tokens(
  raw: RawTokens | undefined,
  fallback: { mean: number; stddev: number },
  file: string,
  pointer: string,
): TokenSpread {
  const mean = raw?.mean ?? fallback.mean
  const stddev = raw?.stddev ?? fallback.stddev
  const min = raw?.min ?? Math.max(1, Math.floor(stddev === 0 ? mean : mean - 4 * stddev))
  const max = raw?.max ?? Math.ceil(stddev === 0 ? mean : mean + 4 * stddev)
  if (!(min <= mean && mean <= max))
    throw new ConfigError(`${file}: ${pointer}: needs min <= mean <= max (got min ${min}, mean ${mean}, max ${max})`)
  return { mean, stddev, min, max }
}

function duration(raw: string, file: string, pointer: string, min = 1000): number {
  const ms = parseDurationMs(raw)
  if (ms === undefined || ms < min || ms > 3_600_000)
    throw new ConfigError(
      `${file}: ${pointer}: must be a duration from ${min / 1000}s to 1h, e.g. 20s or 2m (got "${raw}")`,
    )
  return ms
}

const STREAMED: readonly RouteKind[] = ['responses-stream', 'chat-stream']

function phaseOf(raw: RawPhase, file: string, at: string): WorkloadPhase {
  const rate = raw.rate ?? null
  if (rate === null) {
    if (raw.connections === undefined)
      throw new ConfigError(
        `${file}: ${at}: a phase without a rate is a closed loop and needs connections (or give a rate in calls per second)`,
      )
    const streamed = raw.routes.findIndex((r) => STREAMED.includes(r.kind))
    if (streamed >= 0)
      throw new ConfigError(
        `${file}: ${at}/routes/${streamed}/kind: a closed loop (no rate) cannot time streams; give the phase a rate`,
      )
    for (const field of ['arrival', 'ramp'] as const)
      if (raw[field] !== undefined)
        throw new ConfigError(
          `${file}: ${at}/${field}: only an open-loop phase (with a rate) has an arrival process or a ramp`,
        )
  }
  if (raw.arrival?.burstiness !== undefined && raw.arrival.process !== 'gamma')
    throw new ConfigError(`${file}: ${at}/arrival/burstiness: only the gamma process takes a burstiness`)
  if (raw.ramp?.shape === 'exponential' && raw.ramp.from === 0)
    throw new ConfigError(`${file}: ${at}/ramp/from: an exponential ramp cannot start at 0 calls per second`)
  const ramp = raw.ramp
    ? {
        shape: raw.ramp.shape,
        spanMs: duration(raw.ramp.span, file, `${at}/ramp/span`),
        ...(raw.ramp.from !== undefined ? { fromRate: raw.ramp.from } : {}),
      }
    : undefined
  return {
    name: raw.name,
    ...(raw.description !== undefined ? { description: raw.description } : {}),
    ...(raw.key !== undefined ? { key: raw.key } : {}),
    routes: raw.routes.map((r) => ({
      kind: r.kind,
      weight: r.weight ?? 1,
      ...(r.model !== undefined ? { model: r.model } : {}),
    })),
    inputTokens: tokens(raw.inputTokens, WORKLOAD_DEFAULTS.inputTokens, file, `${at}/inputTokens`),
    maxOutputTokens: tokens(raw.maxOutputTokens, WORKLOAD_DEFAULTS.maxOutputTokens, file, `${at}/maxOutputTokens`),
    rate,
    ...(raw.connections !== undefined ? { connections: raw.connections } : {}),
    durationMs: duration(raw.duration, file, `${at}/duration`),
    ...(raw.arrival ? { arrival: raw.arrival } : {}),
    ...(ramp ? { ramp } : {}),
    ...(raw.seed !== undefined ? { seed: raw.seed } : {}),
  }
}

function limitsOf(raw: readonly StatedLimitInput[], file: string): StatedLimit[] {
  const limits = raw.map((l, i) =>
    statedLimit(l, `${file}: /limits/${i}`, `${l.route}=${l.limit}/${l.period}${l.key ? `,key=${l.key}` : ''}`),
  )
  checkDistinct(limits, `${file}: /limits`)
  return limits
}

/** Validates parsed data as a workload; `file` only names it in messages. */
export function workloadOf(data: unknown, file: string): Workload {
  const result = schemas().validate(WORKLOAD_SCHEMA, data)
  if (!result.ok) {
    // The first error names the innermost value at fault; the rest usually follow from it.
    throw new ConfigError(
      `${file}: ${result.errors[0] ?? 'does not match the profile schema'}${result.errors.length > 1 ? ` (and ${result.errors.length - 1} more)` : ''}`,
    )
  }
  const raw = data as RawWorkload
  const seen = new Set<string>()
  raw.phases.forEach((p, i) => {
    if (seen.has(p.name))
      throw new ConfigError(
        `${file}: /phases/${i}/name: "${p.name}" names an earlier phase too; phase names must differ`,
      )
    seen.add(p.name)
  })
  return {
    file,
    name: raw.name,
    description: raw.description,
    key: raw.key ?? 'main',
    ...(raw.seed !== undefined ? { seed: raw.seed } : {}),
    caps: {
      maxDurationMs:
        raw.caps?.maxDuration !== undefined
          ? duration(raw.caps.maxDuration, file, '/caps/maxDuration')
          : WORKLOAD_DEFAULTS.maxDurationMs,
      maxRequests: raw.caps?.maxRequests ?? WORKLOAD_DEFAULTS.maxRequests,
    },
    phases: raw.phases.map((p, i) => phaseOf(p, file, `/phases/${i}`)),
    ...(raw.limits ? { limits: limitsOf(raw.limits, file) } : {}),
  }
}

/** Reads a profile file (.json, .yaml or .yml). */
export function readWorkload(path: string): Workload {
  const ext = extname(path).toLowerCase()
  if (!['.json', '.yaml', '.yml'].includes(ext))
    throw new ConfigError(`${path}: a profile file ends in .json, .yaml or .yml`)
  let size: number
  try {
    size = statSync(path).size
  } catch {
    throw new ConfigError(`${path}: no such profile file`)
  }
  if (size > FILE_LIMITS.maxBytes)
    throw new ConfigError(`${path}: ${size} bytes is past the ${FILE_LIMITS.maxBytes} a profile file may have`)
  const text = readFileSync(path, 'utf8')
  return workloadOf(parseText(path, text), path)
}
