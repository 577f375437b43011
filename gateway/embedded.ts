/**
 * The one entry point other parts of the project import (ARCHITECTURE.md): starts a reference gateway on a
 * loopback port for a run that has no GATEWAY_BASE_URL, and stops it afterwards.
 */
import { ADMIN_KEY, SEEDED_KEYS, type SeededKeys } from './account/accounts.ts'
import { SetupError } from './errors.ts'

export type { SeededKeys } from './account/accounts.ts'
/** What a command may offer of the gateway before starting one: its algorithms, and the check of a route limit. */
export { LIMITER_ALGORITHMS } from './limiter.ts'
export { parseRouteLimit } from './route-limits.ts'

export interface EmbeddedGatewayOptions {
  /** Default 0: the system picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** ISO date or date-time the gateway clock starts at; it then advances in real time. */
  now?: string
  /** Length of a rate-limit minute in milliseconds (default 60000). */
  minuteMs?: number
  /** The algorithm of every rate-limit bucket (limiter.ts LIMITER_ALGORITHMS; default fixed-window). */
  limiter?: string
  /** Names from the fault registry (gateway/faults/registry.ts); an unknown name is an error listing the valid ones. */
  faults?: string[]
  /** Allowed variation of Part 1 §9.2 (see vary.ts). */
  vary?: boolean
  /** With vary: milliseconds a routed call waits before its route runs (default 300). */
  varyLatencyMs?: number
  /** Further key values accepted as seeded keys (alias -> seeded key value): self-tests with keys of their own. */
  keyAliases?: Readonly<Record<string, string>>
  /** How long a video job stays queued, then processing, in milliseconds (default 250). */
  videoStepMs?: number
  /** Model endpoints answer the convention's bare model only, without the reference's fields. */
  bareModels?: boolean
  /** Every choice the reference leaves open, made as real providers make it (variations.ts). */
  real?: boolean
  /** Single such choices, by name (variations.ts). */
  variations?: string[]
  /** The native interface's key header (default x-native-api-key). */
  nativeKeyHeader?: string
  /** Limits on one route each that the catalogue does not announce, e.g. 'POST /v1/chat/completions=30/10s'. */
  routeLimits?: readonly string[]
}

export interface EmbeddedGateway {
  /** Host root, e.g. http://127.0.0.1:41234, without a trailing slash. */
  url: string
  keys: SeededKeys
  /**
   * Models by the capability the model list cannot show (config.ts CAPABILITIES): the chat model that takes audio,
   * which section 2.3 gives no flag for. A run names them as a user names a target's (GATEWAY_MODELS).
   */
  models: Readonly<Record<string, string>>
  /** Bearer key of the admin routes (admin.ts), e.g. to raise an account's tier in a test. */
  adminKey: string
  close(): Promise<void>
}

export async function startEmbeddedGateway(opts: EmbeddedGatewayOptions = {}): Promise<EmbeddedGateway> {
  // The server loads with the first gateway: a command that only reads the choices above does not pay for it.
  const [{ resolveOptions }, { createGateway }, { CATALOGUE }] = await Promise.all([
    import('./options.ts'),
    import('./server.ts'),
    import('./models/catalogue.ts'),
  ])
  const audioChat = CATALOGUE.find((model) => model.mode === 'chat' && model.audio === true)
  const options = resolveOptions(opts, { port: 0 })
  const { app } = createGateway({
    now: opts.now,
    minuteMs: opts.minuteMs,
    limiter: opts.limiter,
    faults: opts.faults,
    vary: opts.vary,
    varyLatencyMs: opts.varyLatencyMs,
    videoStepMs: opts.videoStepMs,
    bareModels: opts.bareModels,
    real: opts.real,
    variations: opts.variations,
    nativeKeyHeader: opts.nativeKeyHeader,
    ...(opts.routeLimits ? { routeLimits: opts.routeLimits } : {}),
    ...(opts.keyAliases ? { keyAliases: opts.keyAliases } : {}),
  })
  await app.listen({ port: options.port, host: options.host })
  const address = app.server.address()
  if (address === null || typeof address === 'string') {
    await app.close()
    throw new SetupError('LISTEN_FAILED', `the gateway did not get a TCP address (got ${String(address)})`)
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${host}:${address.port}`,
    keys: { ...SEEDED_KEYS },
    models: audioChat ? { 'chat-audio': audioChat.id } : {},
    adminKey: ADMIN_KEY,
    close: async () => {
      await app.close()
    },
  }
}
