/**
 * Everything one gateway instance holds in memory. Routes and hooks receive it explicitly; there is
 * no module-level state, so tests can run many gateways side by side.
 */
import { AccountDirectory } from './account/accounts.ts'
import { offsetClock, systemClock, type Clock } from './clock.ts'
import { RequestContexts } from './context.ts'
import type { FaultSet } from './faults/definition.ts'
import { tierRules, type TierRules } from './hooks/rules.ts'
import type { VariationName } from './variations.ts'
import { FileStore, type FileStoreOptions } from './files/store.ts'
import { createLimiter, type RateLimiter } from './limiter.ts'
import { resolveOptions, type GatewayOptionsInput } from './options.ts'
import type { RouteLimit } from './route-limits.ts'
import { DEFAULT_TRANSACTION_CAPACITY, TransactionStore } from './account/transactions.ts'
import { DEFAULT_VIDEO_STEP_MS } from './videos/store.ts'

export interface GatewayConfig extends Omit<GatewayOptionsInput, 'port' | 'host'> {
  /** Replaces the (offset) system clock; for tests that step time by hand. */
  clock?: Clock
  /** How many transactions the store keeps, newest first (default 10,000: account/transactions.ts says why). */
  transactionCapacity?: number
  /** Further key values accepted as a seeded key (alias -> seeded key value), for self-tests with keys of their own. */
  keyAliases?: Readonly<Record<string, string>>
  /** Smaller file limits for self-tests (default: schemas/limits/file-limits.json). */
  files?: FileStoreOptions
}

export interface GatewayState {
  readonly clock: Clock
  readonly faults: FaultSet
  /** The tiers family's rule every model route reads (hooks/rules.ts), derived once from the faults. */
  readonly tiers: TierRules
  /** Length of a rate-limit minute in milliseconds. */
  readonly minuteMs: number
  /** Allowed variation of Part 1 §9.2 is on (see vary.ts). */
  readonly vary: boolean
  /** With vary: milliseconds a routed call waits before its route runs. */
  readonly varyLatencyMs: number
  /** How long a video job stays queued, and then processing (Part 2 section 3; videos/store.ts). */
  readonly videoStepMs: number
  /** Model endpoints answer the convention's bare model only (options.ts). */
  readonly bareModels: boolean
  /** The choices the reference leaves open that this gateway makes as real providers do (variations.ts). */
  readonly variations: ReadonlySet<VariationName>
  /** The native interface's key header, lower case. */
  readonly nativeKeyHeader: string
  readonly accounts: AccountDirectory
  readonly transactions: TransactionStore
  /** Every per-minute bucket, of the algorithm --limiter names. */
  readonly limiter: RateLimiter
  /** The per-day limits of section 8.3: periods of 1440 rate-limit minutes, of the same algorithm. */
  readonly dayLimiter: RateLimiter
  readonly contexts: RequestContexts
  /** Uploaded files (section 4.4); their bytes are in a temporary folder until deleted, expired or closed. */
  readonly files: FileStore
  /** --route-limit: each with a limiter of its own period, of the --limiter algorithm. */
  readonly routeLimits: ReadonlyMap<string, { limit: RouteLimit; limiter: RateLimiter }>
}

export function createState(config: GatewayConfig = {}): GatewayState {
  const {
    startMs,
    minuteMs,
    limiter,
    faults,
    vary,
    varyLatencyMs,
    videoStepMs,
    bareModels,
    variations,
    nativeKeyHeader,
    routeLimits,
  } = resolveOptions(config, { port: 0 })
  const clock = config.clock ?? (startMs === undefined ? systemClock : offsetClock(startMs))
  const faultSet: FaultSet = new Set(faults)
  return {
    clock,
    faults: faultSet,
    tiers: tierRules(faultSet),
    minuteMs,
    vary,
    varyLatencyMs,
    videoStepMs: videoStepMs ?? DEFAULT_VIDEO_STEP_MS,
    bareModels,
    variations,
    nativeKeyHeader,
    accounts: new AccountDirectory(undefined, config.keyAliases),
    transactions: new TransactionStore(config.transactionCapacity ?? DEFAULT_TRANSACTION_CAPACITY),
    limiter: createLimiter(limiter, clock, minuteMs),
    dayLimiter: createLimiter(limiter, clock, minuteMs * 1440),
    contexts: new RequestContexts(clock),
    files: new FileStore(clock, config.files),
    routeLimits: new Map(
      routeLimits.map((l) => [
        `${l.method} ${l.path}`,
        { limit: l, limiter: createLimiter(limiter, clock, l.periodMs) },
      ]),
    ),
  }
}
