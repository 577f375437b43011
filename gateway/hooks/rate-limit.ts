/**
 * Rate limits and their headers (Part 1 sections 4.1, 7, 8.1, 8.3).
 *
 * Every authenticated call reads two per-account buckets:
 * - requests: on /user/v1 the usage limit of section 8.1; elsewhere the `account` class of
 *   model-rate-limits.json, since no route here runs a model (reading a model's record does not);
 * - tokens: the `account` class tpm. Calls that consume no tokens only read it.
 *
 * A call over the request limit is refused with 429 and Retry-After, in the dialect of its path family.
 * Refused and failed calls count too (section 7). Calls without a valid key have no caller and count
 * against nothing.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { compatibleError, usageError } from '../errors.ts'
import { formatGoDuration } from '../go-duration.ts'
import { classLimits, usageRequestsPerMinute } from '../limit-tables.ts'
import type { WindowReading } from '../limiter.ts'
import type { GatewayState } from '../state.ts'

export function rateLimitHook(state: GatewayState) {
  const { faults, limiter, clock } = state

  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const context = state.contexts.of(request)
    if (!context.caller) return undefined
    const { account } = context.caller
    const usage = context.family === 'usage'
    const accountLimits = classLimits('account', account.tier)
    const requests = usage
      ? limiter.take(`usage-requests:${account.id}`, usageRequestsPerMinute(account.tier), 1)
      : limiter.take(`account-requests:${account.id}`, accountLimits.rpm, 1)
    const tokens = limiter.take(`account-tokens:${account.id}`, accountLimits.tpm, 0)
    context.limits = { requests, tokens }
    if (requests.admitted || (usage && faults.has('usage-limit-off'))) return undefined

    // Whole seconds, rounded up: a client that waits Retry-After never retries before the reset.
    const retryAfter = Math.max(1, Math.ceil((requests.resetAt - clock.now()) / 1000))
    reply.header('retry-after', String(retryAfter))
    const message = `Rate limit of ${requests.limit} requests per minute exceeded; retry after ${retryAfter} s.`
    const body = usage && !faults.has('usage-429-wrong-body') ? usageError(429, message) : compatibleError(429, message)
    return reply.code(429).send(body)
  }
}

/** onSend: the six x-ratelimit-* headers of section 4.1 on every authenticated response. */
export function rateLimitHeaders(state: GatewayState) {
  const { faults, clock } = state

  const reset = (reading: WindowReading): string =>
    faults.has('ratelimit-reset-epoch') ? String(Math.ceil(reading.resetAt / 1000)) : formatGoDuration(reading.resetAt - clock.now())

  const write = (reply: FastifyReply, bucket: 'requests' | 'tokens', reading: WindowReading): void => {
    reply.header(`x-ratelimit-limit-${bucket}`, String(reading.limit))
    reply.header(`x-ratelimit-remaining-${bucket}`, String(reading.remaining))
    reply.header(`x-ratelimit-reset-${bucket}`, reset(reading))
  }

  return (request: FastifyRequest, reply: FastifyReply): void => {
    const { limits } = state.contexts.of(request)
    if (!limits) return
    if (reply.statusCode >= 400 && faults.has('no-ratelimit-headers-on-errors')) return
    write(reply, 'requests', limits.requests)
    write(reply, 'tokens', limits.tokens)
  }
}
