/**
 * What the gateway knows about one call beyond Fastify's request: who called, which model the call
 * concerns, and the rate-limit readings, gathered by the hooks and routes and read back when the
 * response is sent (headers, transaction record).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Account } from './account/accounts.ts'
import type { Clock } from './clock.ts'
import { GatewayError, type ErrorFamily } from './errors.ts'
import type { CatalogueModel } from './models/catalogue.ts'
import type { BucketReading, RateLimiter } from './limiter.ts'

/**
 * `required` unless a route says otherwise; unknown routes identify a caller if they can but refuse no one
 * (`optional`, which a route may also declare).
 */
export type AuthPolicy = 'required' | 'none' | 'optional'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether the route needs an API key (Part 1 section 5.1). */
    auth?: AuthPolicy
    /** Whether the key may come in x-api-key, selecting the alternate format (section 5.3). */
    apiKeyHeader?: boolean
    /** Whether the key may come in x-native-api-key (Part 2 section 5.2: the native interface only). */
    nativeKeyHeader?: boolean
  }
}

export type KeyForm = 'bearer' | 'x-api-key' | 'x-native-api-key'

export interface Caller {
  readonly account: Account
  /** The header the key came in; it selects the response format on the model endpoints. */
  readonly keyForm: KeyForm
}

export interface TokenCounts {
  total: number
  prompt: number
  completion: number
  reasoning: number
  cached: number
}

/**
 * The counts of a call that consumed nothing, shared by all such calls: routes replace a call's counts whole and
 * never change them in place, and frozen, an attempt to would throw.
 */
export const NO_TOKENS: TokenCounts = Object.freeze({ total: 0, prompt: 0, completion: 0, reasoning: 0, cached: 0 })

export interface RequestContext {
  /** Gateway-clock milliseconds at which the request started. */
  readonly requestedAt: number
  /** URL path without the query string. */
  readonly path: string
  readonly family: ErrorFamily
  caller: Caller | null
  /** The model the call concerns, "" when it names none. */
  model: string
  safetyIdentifier: string | null
  stream: boolean
  tokens: TokenCounts
  /** The buckets the rate-limit headers report; projectTokens only where a project-scoped bucket applies. */
  limits: { requests: BucketReading; tokens: BucketReading; projectTokens: BucketReading | null } | null
  /**
   * Set by the rate-limit hook on /v1 calls: counts a call that names a model against that model's limits. One
   * function serves every call and reads the call from its context, so call it as `context.admitModel?.(model)`.
   */
  admitModel?: (this: RequestContext, model: CatalogueModel) => void
  /** The call's reply, where admitModel is set: the model stage reads the request and may set Retry-After. */
  reply?: FastifyReply
  /** The call's --route-limit bucket, when its route has one: the request bucket its headers report. */
  routeRequests?: BucketReading
  /** Where this call's request was counted, and the buckets its tokens go to when it has finished. */
  countedRequest?: { limiter: RateLimiter; key: string; limit: number }
  tokenBuckets?: ReadonlyArray<{ limiter: RateLimiter; key: string; limit: number }>
  /** The svc-request-id the response carries, set when headers are written; the transaction id. */
  responseId: string | null
}

export function isUsagePath(path: string): boolean {
  return path === '/user/v1' || path.startsWith('/user/v1/')
}

export function isV1Path(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/')
}

/** The authenticated caller of a route that requires a key; the auth hook has refused the call otherwise. */
export function requireCaller(context: RequestContext): Caller {
  if (!context.caller) throw new GatewayError(500, 'The call reached an authenticated route without a caller.')
  return context.caller
}

export class RequestContexts {
  // A property of the request, not a WeakMap entry: a weak map's entries cost every young-generation
  // collection work of their own, and the context lives exactly as long as its request anyway.
  readonly #key = Symbol('gateway request context')

  private readonly clock: Clock

  constructor(clock: Clock) {
    this.clock = clock
  }

  /** The call's context, opened on first use (the first onRequest hook), so requested_at is the start. */
  of(request: FastifyRequest): RequestContext {
    const carrier = request as unknown as { [key: symbol]: RequestContext | undefined }
    let context = carrier[this.#key]
    if (!context) {
      context = this.#open(request)
      carrier[this.#key] = context
    }
    return context
  }

  #open(request: FastifyRequest): RequestContext {
    const { url } = request
    const query = url.indexOf('?')
    const path = query === -1 ? url : url.slice(0, query)
    // A route whose path names a model (:model_id) concerns that model, whether or not the call gets
    // as far as the handler: a 429 on GET /v1/models/{id} is still a call about that model.
    const params = request.params as Record<string, unknown> | null | undefined
    const model = typeof params?.model_id === 'string' ? params.model_id : ''
    return new CallContext(this.clock.now(), path, model)
  }
}

/**
 * A class rather than an object literal: V8 may allocate a literal's objects straight into the old generation once
 * most of them outlive a young collection, and a context there would keep its request and reply (and all they hold)
 * alive until a full collection.
 */
class CallContext implements RequestContext {
  readonly requestedAt: number
  readonly path: string
  readonly family: ErrorFamily
  caller: Caller | null = null
  model: string
  safetyIdentifier: string | null = null
  stream = false
  tokens: TokenCounts = NO_TOKENS
  limits: RequestContext['limits'] = null
  admitModel?: (this: RequestContext, model: CatalogueModel) => void
  reply?: FastifyReply
  routeRequests?: BucketReading
  countedRequest?: RequestContext['countedRequest']
  tokenBuckets?: RequestContext['tokenBuckets']
  responseId: string | null = null

  constructor(requestedAt: number, path: string, model: string) {
    this.requestedAt = requestedAt
    this.path = path
    this.family = isUsagePath(path) ? 'usage' : 'compatible'
    this.model = model
  }
}
