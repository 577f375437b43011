/**
 * Makes the run's target ready: with a base URL, proves it answers at all (so that an unreachable target is one
 * clear line and exit 2, not a wall of failed tests); without one, starts the embedded reference gateway.
 */
import { randomBytes } from 'node:crypto'
import { DEFAULTS, type RunOptions, type TargetConfig } from './config.ts'
import { ConfigError, HarnessError } from '../errors.ts'

const PROBE = {
  path: '/public/models', // needs no key (Part 1 section 5); any HTTP answer at all proves the target is there
  maxTimeoutMs: 15_000,
}

export interface PreparedTarget {
  config: TargetConfig
  close(): Promise<void>
}

export function newRunId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  return `${stamp}-${randomBytes(2).toString('hex')}`
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
}

function unreachableReason(error: unknown, timeoutMs: number): string {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException }
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`
  const code = err.code ?? err.cause?.code
  if (code !== undefined) return REASONS[code] ?? code
  return err.cause?.message ?? err.message
}

export async function probe(baseUrl: string, timeoutMs: number): Promise<void> {
  const limit = Math.min(timeoutMs, PROBE.maxTimeoutMs)
  // Loaded here, not above: what only reads the embedded gateway's choices (a command's help) needs no HTTP client.
  const { request } = await import('undici')
  try {
    const response = await request(new URL(PROBE.path, baseUrl), {
      method: 'GET',
      signal: AbortSignal.timeout(limit),
      headersTimeout: limit,
    })
    await response.body.dump()
  } catch (error) {
    throw new HarnessError('TARGET_UNREACHABLE', `cannot reach ${baseUrl}: ${unreachableReason(error, limit)}`, {
      cause: error,
    })
  }
}

/**
 * The reference gateway's entry, loaded only when a run uses it. The one place outside scripts/ and test/ that
 * reaches into gateway/ (ARCHITECTURE.md: startEmbeddedGateway()).
 */
const gatewayEntry = () => import('../../gateway/embedded.ts')

/**
 * How the embedded gateway starts when a run has no base URL, as a load run chooses it: its minute, its rate-limit
 * algorithm (one of EmbeddedChoices' limiters) and limits it enforces on one route without announcing them.
 */
export interface EmbeddedChoice {
  minuteMs: number
  limiter?: string
  routeLimits?: readonly string[]
}

/** What a command may choose of the embedded gateway, to check its flags before anything starts. */
export interface EmbeddedChoices {
  /** The rate-limit algorithms, as --limiter names them. */
  limiters: readonly string[]
  /** Throws a ConfigError that shows the format of a route limit. */
  checkRouteLimit: (text: string) => void
}

export async function embeddedChoices(): Promise<EmbeddedChoices> {
  const { LIMITER_ALGORITHMS, parseRouteLimit } = await gatewayEntry()
  const checkRouteLimit = (text: string): void => {
    try {
      parseRouteLimit(text)
    } catch (error) {
      throw new ConfigError((error as Error).message)
    }
  }
  return { limiters: LIMITER_ALGORITHMS, checkRouteLimit }
}

export async function prepareTarget(
  options: RunOptions,
  runId: string = newRunId(),
  choice?: EmbeddedChoice,
): Promise<PreparedTarget> {
  const common = {
    asOf: options.asOf,
    budgetUsd: options.budgetUsd,
    timeoutMs: options.timeoutMs,
    largeUploads: options.largeUploads,
    models: options.models,
    nativeKeyHeader: options.nativeKeyHeader,
    names: options.names ?? {},
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
    ...(options.generate === undefined ? {} : { generate: options.generate }),
    runId,
  }
  if (options.baseUrl !== null) {
    await probe(options.baseUrl, options.timeoutMs)
    return {
      config: {
        ...common,
        baseUrl: options.baseUrl,
        embedded: false,
        keys: options.keys,
        minuteMs: options.minuteMs ?? DEFAULTS.realMinuteMs,
      },
      close: async () => {},
    }
  }
  const { startEmbeddedGateway } = await gatewayEntry()
  // An explicit as-of date moves the embedded gateway's clock too, so that date rules can be seen at any date; a
  // load run's choice is taken as it is, on today's clock.
  const minuteMs = choice?.minuteMs ?? DEFAULTS.embeddedMinuteMs
  const gateway = await startEmbeddedGateway(
    choice ?? { minuteMs, ...(options.asOfExplicit ? { now: `${options.asOf}T12:00:00Z` } : {}) },
  )
  return {
    config: {
      ...common,
      baseUrl: gateway.url,
      embedded: true,
      keys: { ...gateway.keys },
      models: { ...gateway.models, ...options.models },
      minuteMs,
    },
    close: () => gateway.close(),
  }
}

/** 127.0.0.0/8, ::1 and localhost: a target on this machine, where large uploads and long bursts cost nothing. */
export function isLoopback(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}
