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
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
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
  TIERS,
  usageRequestsPerMinute,
} from '../limit-tables.ts'
import type { BucketReading, RateLimiter } from '../limiter.ts'
import type { GatewayState } from '../state.ts'
import { rateLimitRules, type Counter, type RateLimitRules } from './rules.ts'

/** The keys of an account's own buckets (the usage bucket's is every account's under a fault). */
interface AccountKeys {
  readonly requests: string
  readonly tokens: string
  readonly usage: string
  readonly route: string
}

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
  // One function for every call, which reads the call from the context it is called on: a closure made per call
  // would hold its request and reply, and V8 may place it in the old generation, where it keeps them alive until a
  // full collection.
  const admitModelStage = function (this: RequestContext, model: CatalogueModel): void {
    admitModel(state, rules, this, model)
  }
  // Each account's bucket keys, built once: a key built on every call is a new string to hash at every lookup.
  const keysByAccount = new Map<string, AccountKeys>()
  const keysOf = (account: Account): AccountKeys => {
    let keys = keysByAccount.get(account.id)
    if (keys === undefined) {
      keys = {
        requests: `account-requests:${account.id}`,
        tokens: `account-tokens:${account.id}`,
        usage: `usage-requests:${rules.usageBucketPerAccount ? account.id : 'every-account'}`,
        route: `route:${account.id}`,
      }
      keysByAccount.set(account.id, keys)
    }
    return keys
  }
  // The account class's limits by tier, read once: the table's lookup makes a new object on every call.
  const accountLimits = TIERS.map((tier) => classLimits('account', tier))

  // Callback style: the count is synchronous except under a fault, and an async hook would cost every call a
  // promise and a tick. A refusal sends its answer and does not call done, which ends the call's hooks.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const context = state.contexts.of(request)
    if (!context.caller) {
      done()
      return
    }
    const { account } = context.caller
    const usage = context.family === 'usage'
    const keys = keysOf(account)
    const requestKey = usage ? keys.usage : keys.requests
    const requestLimit = usage ? usageRequestsPerMinute(account.tier) : accountLimits[account.tier]!.rpm
    const counted = usage ? countUsage(requestKey, requestLimit) : countRequest(requestKey, requestLimit)
    context.countedRequest = { limiter, key: requestKey, limit: requestLimit }
    if (counted instanceof Promise) {
      counted.then((requests) => admitted(request, reply, context, requests)).then((goesOn) => goesOn && done(), done)
    } else if (admitted(request, reply, context, counted)) {
      done()
    }
  }

  /**
   * The rest of the hook once the call is counted: the other buckets, the readings the headers report. Whether the
   * call goes on; a refusal has sent its answer.
   */
  function admitted(
    request: FastifyRequest,
    reply: FastifyReply,
    context: RequestContext,
    requests: BucketReading,
  ): boolean {
    const { account } = context.caller!
    const usage = context.family === 'usage'
    // A limit the operator put on this route counts every call on it, refused ones included, as the others do.
    const route = state.routeLimits.size === 0 ? undefined : state.routeLimits.get(`${request.method} ${context.path}`)
    const routeRequests = route?.limiter.take(keysOf(account).route, route.limit.limit, 1)
    if (routeRequests) context.routeRequests = routeRequests
    const tokens = limiter.read(keysOf(account).tokens, accountLimits[account.tier]!.tpm)
    context.limits = { requests: routeRequests ?? requests, tokens, projectTokens: null }
    if (!usage) {
      context.reply = reply
      context.admitModel = admitModelStage
    }
    if (requests.admitted && routeRequests !== undefined && !routeRequests.admitted) {
      refuseByRoute(state, rules, reply, routeRequests, usage)
      return false
    }
    if (requests.admitted || (usage && !rules.limitUsage)) return true

    const retryAfter = rules.retryAfter(retryAfterSeconds(requests, clock.now()))
    reply.header('retry-after', String(retryAfter))
    const message = `Rate limit of ${requests.limit} requests per minute exceeded; retry after ${retryAfter} s.`
    const body =
      usage && rules.usage429Body ? usageError(429, message) : compatibleError(429, message, rules.compatible429Details)
    reply.code(429).send(body)
    return false
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
function admitModel(state: GatewayState, rules: RateLimitRules, context: RequestContext, model: CatalogueModel): void {
  const { limiter, dayLimiter, clock } = state
  const account: Account = context.caller!.account
  const reply = context.reply!
  const { request } = reply
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
    if (context.tokenBuckets)
      for (const bucket of context.tokenBuckets) bucket.limiter.add(bucket.key, bucket.limit, used)
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
  const rules = rateLimitRules(state.faults)
  // §4.1's "a number followed by s" is a sample form: some providers send bare seconds instead.
  const duration = state.variations.has('reset-seconds')
    ? (ms: number) => String(Math.max(0, Math.ceil(ms)) / 1000)
    : formatGoDuration
  const reset = (reading: BucketReading, now: number): string =>
    rules.resetHeader ? rules.resetHeader(reading.resetAt, now) : duration(reading.resetAt - now)

  const write = (reply: FastifyReply, names: BucketHeaderNames, reading: BucketReading, now: number): void => {
    reply.header(names.limit, String(reading.limit))
    reply.header(names.remaining, String(reading.remaining))
    reply.header(names.reset, reset(reading, now))
  }

  return (request: FastifyRequest, reply: FastifyReply, now: number): void => {
    const { limits } = state.contexts.of(request)
    if (!limits) return
    write(reply, REQUESTS_HEADERS, limits.requests, now)
    write(reply, TOKENS_HEADERS, limits.tokens, now)
    if (limits.projectTokens) write(reply, PROJECT_TOKENS_HEADERS, limits.projectTokens, now)
  }
}

interface BucketHeaderNames {
  readonly limit: string
  readonly remaining: string
  readonly reset: string
}

/** Each bucket's header names as literals: a name built on every response is a new string to look up each time. */
const REQUESTS_HEADERS: BucketHeaderNames = {
  limit: 'x-ratelimit-limit-requests',
  remaining: 'x-ratelimit-remaining-requests',
  reset: 'x-ratelimit-reset-requests',
}
const TOKENS_HEADERS: BucketHeaderNames = {
  limit: 'x-ratelimit-limit-tokens',
  remaining: 'x-ratelimit-remaining-tokens',
  reset: 'x-ratelimit-reset-tokens',
}
const PROJECT_TOKENS_HEADERS: BucketHeaderNames = {
  limit: 'x-ratelimit-limit-project-tokens',
  remaining: 'x-ratelimit-remaining-project-tokens',
  reset: 'x-ratelimit-reset-project-tokens',
}
