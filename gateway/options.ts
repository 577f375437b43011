/**
 * Options of the reference gateway, shared by the gateway command (command.ts) and the embedded
 * entry point. Every check ends in an OptionError whose message says what to fix, because the CLI
 * prints it as its one line of output.
 */
import { DEFAULT_NATIVE_KEY_HEADER } from '../common/native-key.ts'
import { parseInstant } from './clock.ts'
import { toFaultSet, type FaultName } from './faults/registry.ts'
import { LIMITER_ALGORITHMS, type LimiterAlgorithm } from './limiter.ts'
import { VARY_DEFAULTS } from './vary.ts'
import { CLI_DEFAULT_PORT, CLI_OPTIONS, DEFAULT_HOST, DEFAULT_LIMITER, DEFAULT_MINUTE_MS, parseCli } from './flags.ts'
import { toVariationSet, VARIATION_NAMES, type VariationName } from './variations.ts'
import { OptionError } from './errors.ts'
import { parseRouteLimit, type RouteLimit } from './route-limits.ts'

export interface GatewayOptionsInput {
  port?: number
  host?: string
  /** ISO date or date-time the gateway clock starts at; it then advances in real time. */
  now?: string
  /** Length of a rate-limit "minute" in milliseconds. */
  minuteMs?: number
  /** The algorithm of every rate-limit bucket (limiter.ts); default fixed-window. */
  limiter?: string
  faults?: readonly string[]
  /** Allowed variation (Part 1 §9.2): unknown properties, reordered keys, unfamiliar stream events; see vary.ts. */
  vary?: boolean
  /** With vary: milliseconds a routed call waits before its route runs (default VARY_DEFAULTS.latencyMs); 0 for none. */
  varyLatencyMs?: number
  /** How long a video job stays queued, and then processing, in milliseconds (Part 2 section 3; videos/store.ts). */
  videoStepMs?: number
  /** Model endpoints answer the convention's bare model (id, object, created, owned_by) without the reference's fields. */
  bareModels?: boolean
  /** Every choice the reference leaves open made as real providers make it (variations.ts). */
  real?: boolean
  /** Single such choices, by name (variations.ts). */
  variations?: readonly string[]
  /** The header the native interface takes a key in (Part 2 section 5.2 writes it with a neutral word). */
  nativeKeyHeader?: string
  /** Limits on one route each, beside the reference's, that the catalogue does not announce (route-limits.ts). */
  routeLimits?: readonly string[]
}

export interface GatewayOptions {
  port: number
  host: string
  /** Epoch milliseconds the clock starts at, or undefined for the real time. */
  startMs: number | undefined
  minuteMs: number
  limiter: LimiterAlgorithm
  faults: readonly FaultName[]
  vary: boolean
  /** Milliseconds a routed call waits before its route runs; 0 unless vary is on. */
  varyLatencyMs: number
  /** Only when given: undefined means the default of videos/store.ts (DEFAULT_VIDEO_STEP_MS). */
  videoStepMs?: number
  bareModels: boolean
  /** The choices of variations.ts in force: all of them under --real. */
  variations: ReadonlySet<VariationName>
  /** Lower case. */
  nativeKeyHeader: string
  routeLimits: readonly RouteLimit[]
}

function isLimiterAlgorithm(name: string): name is LimiterAlgorithm {
  return (LIMITER_ALGORITHMS as readonly string[]).includes(name)
}
export { DEFAULT_NATIVE_KEY_HEADER }

export function resolveOptions(input: GatewayOptionsInput, defaults: { port: number }): GatewayOptions {
  const port = input.port ?? defaults.port
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new OptionError(`--port must be an integer from 0 to 65535, got ${String(port)}`)
  }
  const host = input.host ?? DEFAULT_HOST
  if (host.trim() === '') throw new OptionError('--host must not be empty')
  const minuteMs = input.minuteMs ?? DEFAULT_MINUTE_MS
  if (!Number.isSafeInteger(minuteMs) || minuteMs < 1) {
    throw new OptionError(`--minute-ms must be a positive integer number of milliseconds, got ${String(minuteMs)}`)
  }
  const limiter = input.limiter ?? DEFAULT_LIMITER
  if (!isLimiterAlgorithm(limiter))
    throw new OptionError(`--limiter must be one of ${LIMITER_ALGORITHMS.join(', ')}, got '${limiter}'`)
  let startMs: number | undefined
  if (input.now !== undefined) {
    startMs = parseInstant(input.now)
    if (startMs === undefined) {
      throw new OptionError(
        `--now must be an ISO date (2026-09-01) or date-time (2026-09-01T12:00:00Z), got '${input.now}'`,
      )
    }
  }
  let faults: readonly FaultName[]
  try {
    faults = [...toFaultSet(input.faults ?? [])]
  } catch (error) {
    throw new OptionError(`--fault: ${(error as Error).message}`)
  }
  const videoStepMs = input.videoStepMs
  if (videoStepMs !== undefined && (!Number.isSafeInteger(videoStepMs) || videoStepMs < 1)) {
    throw new OptionError(
      `--video-step-ms must be a positive integer number of milliseconds, got ${String(videoStepMs)}`,
    )
  }
  const vary = input.vary === true
  if (input.varyLatencyMs !== undefined && !vary) throw new OptionError('--vary-latency-ms needs --vary')
  const varyLatencyMs = vary ? (input.varyLatencyMs ?? VARY_DEFAULTS.latencyMs) : 0
  if (!Number.isSafeInteger(varyLatencyMs) || varyLatencyMs < 0 || varyLatencyMs > 60_000) {
    throw new OptionError(`--vary-latency-ms must be an integer from 0 to 60000, got ${String(varyLatencyMs)}`)
  }
  let variations: ReadonlySet<VariationName>
  try {
    variations = input.real === true ? new Set(VARIATION_NAMES) : toVariationSet(input.variations ?? [])
  } catch (error) {
    throw new OptionError(`--variation: ${(error as Error).message}`)
  }
  const nativeKeyHeader = (input.nativeKeyHeader ?? DEFAULT_NATIVE_KEY_HEADER).toLowerCase()
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(nativeKeyHeader) || ['authorization', 'x-api-key'].includes(nativeKeyHeader)) {
    throw new OptionError(
      `--native-key-header must be a header name other than authorization and x-api-key, got '${input.nativeKeyHeader ?? ''}'`,
    )
  }
  return {
    port,
    host,
    startMs,
    minuteMs,
    limiter,
    faults,
    vary,
    varyLatencyMs,
    ...(videoStepMs === undefined ? {} : { videoStepMs }),
    bareModels: input.bareModels === true,
    variations,
    nativeKeyHeader,
    routeLimits: routeLimitsOf(input.routeLimits ?? []),
  }
}

function routeLimitsOf(texts: readonly string[]): RouteLimit[] {
  const limits = texts.map(parseRouteLimit)
  const routes = limits.map((l) => `${l.method} ${l.path}`)
  const twice = routes.find((r, i) => routes.indexOf(r) !== i)
  if (twice !== undefined) throw new OptionError(`--route-limit: ${twice} is limited twice; give one limit a route`)
  return limits
}

export type CliCommand =
  | { kind: 'serve'; options: GatewayOptions }
  | { kind: 'list-faults' }
  | { kind: 'list-variations' }
  | { kind: 'help' }

export function parseCommandLine(argv: readonly string[]): CliCommand {
  let values: ReturnType<typeof parseCli>['values']
  try {
    ;({ values } = parseCli(argv))
  } catch (error) {
    throw new OptionError(rewordParseError(error as Error & { code?: string }))
  }
  if (values.help) return { kind: 'help' }
  const faults = values.fault ?? []
  if (faults.includes('list')) return { kind: 'list-faults' }
  const variations = values.variation ?? []
  if (variations.includes('list')) return { kind: 'list-variations' }
  const options = resolveOptions(
    {
      port: values.port === undefined ? undefined : cliInteger('--port', values.port),
      host: values.host,
      now: values.now,
      minuteMs: values['minute-ms'] === undefined ? undefined : cliInteger('--minute-ms', values['minute-ms']),
      limiter: values.limiter,
      videoStepMs:
        values['video-step-ms'] === undefined ? undefined : cliInteger('--video-step-ms', values['video-step-ms']),
      faults,
      vary: values.vary === true,
      varyLatencyMs:
        values['vary-latency-ms'] === undefined
          ? undefined
          : cliInteger('--vary-latency-ms', values['vary-latency-ms']),
      bareModels: values['bare-models'] === true,
      real: values.real === true,
      variations,
      nativeKeyHeader: values['native-key-header'],
      routeLimits: values['route-limit'] ?? [],
    },
    { port: CLI_DEFAULT_PORT },
  )
  return { kind: 'serve', options }
}

function cliInteger(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new OptionError(`${flag} must be a non-negative integer, got '${text}'`)
  return Number(text)
}

/** node:util's messages mention positionals and internals; say which argument is wrong and what exists. */
function rewordParseError(error: Error & { code?: string }): string {
  const known = Object.keys(CLI_OPTIONS)
    .map((name) => `--${name}`)
    .join(', ')
  const argument = /'([^' ]*)/.exec(error.message)?.[1] ?? ''
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${argument}; valid options: ${known}`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return error.message.includes('argument missing')
        ? `option ${argument} needs a value (see --help)`
        : `option ${argument} takes no value`
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${argument}'; valid options: ${known}`
    default:
      return error.message
  }
}
