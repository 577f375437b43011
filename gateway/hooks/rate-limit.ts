/**
 * Rate limits and their headers (Part 1 sections 4.1, 7, 8.1, 8.3).
 *
 * Buckets belong to the organization (the account: all its keys share them) and count per "minute" (--minute-ms)
 * or per day (1440 minutes), by the algorithm --limiter names (../limiter.ts):
 * - /user/v1: the usage limit of section 8.1, requests per minute by tier;
 * - every other authenticated call: the organization-wide ceiling of the `account` class;
 * - a call that names a catalogue model (routes call `resolveModel`, which calls `context.admitModel`):
 *   that model's pool as well, with every limit of section 8.3 its class has: RPM, RPD, TPM, TPD and,
 *   for image models, IPM (the request's `n`). Whichever is hit first refuses the call. Sibling aliases
 *   listed in `pools` share one pool.
 * - the project-scoped token bucket (section 4.1) on the routes of `projectTokenRoutes`: smaller than the
 *   model's TPM, so a call can be throttled by it while the token bucket has room.
 * - a route an operator limited (--route-limit, ../route-limits.ts): that route's bucket per account as well.
 *
 * Requests are counted at admission, refused and failed calls included (section 7). Tokens are counted
 * when the call has finished, from what it consumed; a token bucket admits a call while it has any room.
 * The headers report the most specific buckets: the model's on model calls, otherwise the account's or the
 * usage limit's, and on a route an operator limited that route's.
 *
 * A refused call is 429 with Retry-After (whole seconds until the bucket admits a call again, rounded up so that
 * waiting it is enough) in the dialect of its path family. x-ratelimit-reset-* say when the bucket is full again.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Account } from '../account/accounts.ts'
import type { CatalogueModel } from '../models/catalogue.ts'
import type { RequestContext } from '../context.ts'
import { compatibleError, GatewayError, usageError } from '../errors.ts'
import { formatGoDuration } from '../go-duration.ts'
import {
  classLimits,
  MAX_IMAGES,
  modelLimits,
  poolOf,
  PROJECT_TOKEN_ROUTES,
  projectTokensPerMinute,
  usageRequestsPerMinute,
} from '../limit-tables.ts'
import type { BucketReading, RateLimiter } from '../limiter.ts'
import type { GatewayState } from '../state.ts'
import { rateLimitRules, type Counter, type RateLimitRules } from './rules.ts'

/** A bucket that the finished call's tokens are added to. */
interface TokenBucket {
  readonly limiter: RateLimiter
  readonly key: string
  readonly limit: number
}

/** Whole seconds until the bucket admits a call again, at least 1: a client that waits it never retries too early. */
export function retryAfterSeconds(reading: BucketReading, now: number): number {
  return Math.max(1, Math.ceil((reading.retryAt - now) / 1000))
}

export function rateLimitHook(state: GatewayState) {
  const { limiter, clock } = state
  const rules = rateLimitRules(state.faults)

  // Counting a request is one synchronous step, check and count together: the rules choose the counters once.
  const countRequest: Counter = rules.requestCounter(limiter)
  const countUsage: Counter = rules.usageCounter(countRequest)

  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const context = state.contexts.of(request)
    if (!context.caller) return undefined
    const { account } = context.caller
    const usage = context.family === 'usage'
    const accountLimits = classLimits('account', account.tier)
    const requestKey = usage
      ? `usage-requests:${rules.usageBucketPerAccount ? account.id : 'every-account'}`
      : `account-requests:${account.id}`
    const requestLimit = usage ? usageRequestsPerMinute(account.tier) : accountLimits.rpm
    const requests = usage ? await countUsage(requestKey, requestLimit) : await countRequest(requestKey, requestLimit)
    context.countedRequest = { limiter, key: requestKey, limit: requestLimit }
    // A limit the operator put on this route counts every call on it, refused ones included, as the others do.
    const route = state.routeLimits.get(`${request.method} ${context.path}`)
    const routeRequests = route?.limiter.take(`route:${account.id}`, route.limit.limit, 1)
    if (routeRequests) context.routeRequests = routeRequests
    const tokens = limiter.read(`account-tokens:${account.id}`, accountLimits.tpm)
    context.limits = { requests: routeRequests ?? requests, tokens, projectTokens: null }
    if (!usage) context.admitModel = (model) => admitModel(state, rules, request, reply, context, model)
    if (requests.admitted && routeRequests !== undefined && !routeRequests.admitted)
      return refuseByRoute(state, rules, reply, routeRequests, usage)
    if (requests.admitted || (usage && !rules.limitUsage)) return undefined

    const retryAfter = rules.retryAfter(retryAfterSeconds(requests, clock.now()))
    reply.header('retry-after', String(retryAfter))
    const message = `Rate limit of ${requests.limit} requests per minute exceeded; retry after ${retryAfter} s.`
    const body =
      usage && rules.usage429Body ? usageError(429, message) : compatibleError(429, message, rules.compatible429Details)
    return reply.code(429).send(body)
  }
}

/**
 * A spent --route-limit bucket: 429 with Retry-After, as every other limit; under `route-limit-503` the 503
 * without Retry-After that some gateways answer instead.
 */
function refuseByRoute(
  state: GatewayState,
  rules: RateLimitRules,
  reply: FastifyReply,
  reading: BucketReading,
  usage: boolean,
): FastifyReply {
  const message = `Rate limit of ${reading.limit} requests on this route exceeded.`
  if (rules.routeLimitStatus === 503)
    return reply.code(503).send(usage ? usageError(503, message) : compatibleError(503, message))
  const retryAfter = rules.retryAfter(retryAfterSeconds(reading, state.clock.now()))
  reply.header('retry-after', String(retryAfter))
  const text = `${message.slice(0, -1)}; retry after ${retryAfter} s.`
  return reply.code(429).send(usage ? usageError(429, text) : compatibleError(429, text, rules.compatible429Details))
}

/**
 * The model stage: counts the call against the model's pool and refuses it with 429 when any of its
 * limits is reached. Throws a GatewayError, which the route's error handler answers in its dialect.
 * A caller below the model's min_tier has no limits for it: requireTier refuses that call.
 */
function admitModel(
  state: GatewayState,
  rules: RateLimitRules,
  request: FastifyRequest,
  reply: FastifyReply,
  context: RequestContext,
  model: CatalogueModel,
): void {
  const { limiter, dayLimiter, clock } = state
  const account: Account = context.caller!.account
  if (account.tier < model.minTier) return
  const limits = modelLimits(model.rateClass, account.tier)
  const owner = rules.modelPoolPerKey ? `${account.id}:${keyOf(request)}` : account.id
  const base = `${owner}:${poolOf(model.id)}`
  const requests = limiter.take(`model-requests:${base}`, limits.rpm, 1)
  // Token buckets admit a call while a token is left; what the call consumes is counted when it has finished.
  const tokens = limiter.read(`model-tokens:${base}`, limits.tpm, 1)
  const buckets: TokenBucket[] = [{ limiter, key: `model-tokens:${base}`, limit: limits.tpm }]
  // Each check is [what, reading]; the first that refuses names the limit in the 429.
  const checks: Array<[string, BucketReading]> = []
  if (rules.checkModelRpm) checks.push([`${limits.rpm} requests per minute`, requests])
  if (limits.rpd !== undefined)
    checks.push([`${limits.rpd} requests per day`, dayLimiter.take(`model-requests-day:${base}`, limits.rpd, 1)])
  if (limits.ipm !== undefined && model.mode === 'image_generation') {
    checks.push([
      `${limits.ipm} images per minute`,
      limiter.take(`model-images:${base}`, limits.ipm, imagesAsked(request.body)),
    ])
  }
  if (rules.checkModelTpm) checks.push([`${limits.tpm} tokens per minute`, tokens])
  if (limits.tpd !== undefined) {
    buckets.push({ limiter: dayLimiter, key: `model-tokens-day:${base}`, limit: limits.tpd })
    checks.push([`${limits.tpd} tokens per day`, dayLimiter.read(`model-tokens-day:${base}`, limits.tpd, 1)])
  }
  let projectTokens: BucketReading | null = null
  if (PROJECT_TOKEN_ROUTES.has(context.path)) {
    const limit = projectTokensPerMinute(account.tier)
    projectTokens = limiter.read(`project-tokens:${account.id}`, limit, 1)
    buckets.push({ limiter, key: `project-tokens:${account.id}`, limit })
    checks.push([`the project's ${limit} tokens per minute`, projectTokens])
  }
  // The headers keep reporting the route's own bucket where the operator put one.
  context.limits = { requests: context.routeRequests ?? requests, tokens, projectTokens }
  context.tokenBuckets = buckets

  const refused = checks.find(([, reading]) => !reading.admitted)
  if (!refused) return
  const [what, reading] = refused
  const retryAfter = rules.retryAfter(retryAfterSeconds(reading, clock.now()))
  reply.header('retry-after', String(retryAfter))
  throw new GatewayError(429, `Rate limit of ${what} reached for ${model.id}; retry after ${retryAfter} s.`, {
    param: null,
    ...rules.compatible429Details,
  })
}

/** The credential a call presented (for `model-limits-per-key`, which pools a model's limits per key). */
function keyOf(request: FastifyRequest): string {
  const { authorization, 'x-api-key': apiKey } = request.headers
  return String(authorization ?? apiKey ?? '')
}

/**
 * `n` of an image request (default 1); a bad value counts as 1 and the route refuses it. So does an `n` above what
 * the route allows: counted as asked, one refused request for 2^31 images would use up the images-per-minute
 * bucket and refuse every image call of the account until the window ends.
 */
function imagesAsked(body: unknown): number {
  const n = typeof body === 'object' && body !== null ? (body as { n?: unknown }).n : undefined
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= MAX_IMAGES ? n : 1
}

/** onResponse: tokens the call consumed go into its token buckets; the rules say whether a failed call counts. */
export function countFinishedCall(state: GatewayState) {
  const rules = rateLimitRules(state.faults)
  return (request: FastifyRequest, reply: FastifyReply): void => {
    const context = state.contexts.of(request)
    const used = context.tokens.total
    for (const bucket of context.tokenBuckets ?? []) bucket.limiter.add(bucket.key, bucket.limit, used)
    if (used > 0 && context.caller && !context.tokenBuckets) {
      const { account } = context.caller
      state.limiter.add(`account-tokens:${account.id}`, classLimits('account', account.tier).tpm, used)
    }
    if (!rules.countFailedCalls && reply.statusCode >= 400 && reply.statusCode !== 429 && context.countedRequest) {
      context.countedRequest.limiter.refund(context.countedRequest.key, context.countedRequest.limit, 1)
    }
  }
}

/** onSend: the x-ratelimit-* headers of section 4.1 on every authenticated response, 429s included. */
export function rateLimitHeaders(state: GatewayState) {
  const { clock } = state
  const rules = rateLimitRules(state.faults)
  // §4.1's "a number followed by s" is a sample form: some providers send bare seconds instead.
  const duration = state.variations.has('reset-seconds')
    ? (ms: number) => String(Math.max(0, Math.ceil(ms)) / 1000)
    : formatGoDuration
  const reset = (reading: BucketReading): string => {
    const now = clock.now()
    return rules.resetHeader ? rules.resetHeader(reading.resetAt, now) : duration(reading.resetAt - now)
  }

  const write = (
    reply: FastifyReply,
    bucket: 'requests' | 'tokens' | 'project-tokens',
    reading: BucketReading,
  ): void => {
    reply.header(`x-ratelimit-limit-${bucket}`, String(reading.limit))
    reply.header(`x-ratelimit-remaining-${bucket}`, String(reading.remaining))
    reply.header(`x-ratelimit-reset-${bucket}`, reset(reading))
  }

  return (request: FastifyRequest, reply: FastifyReply): void => {
    const { limits } = state.contexts.of(request)
    if (!limits) return
    write(reply, 'requests', limits.requests)
    write(reply, 'tokens', limits.tokens)
    if (limits.projectTokens) write(reply, 'project-tokens', limits.projectTokens)
  }
}
