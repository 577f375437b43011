/**
 * svc-request-id and its legacy twin x-request-id (Part 1 sections 1.4, 4.1, 9.4).
 *
 * Every call gets a fresh UUID v7 from the gateway clock, minted as Fastify's request id so that it
 * exists from the first moment of the request; the onSend hook puts it on every response, errors and
 * unknown routes included. X-Client-Request-Id is the caller's own trace id and never replaces it.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../clock.ts'
import type { FaultSet } from '../faults/definition.ts'
import { requestIdRules } from './rules.ts'
import type { GatewayState } from '../state.ts'
import { createUuid7Generator, UUID_PATTERN } from '../uuid7.ts'
import { proxyRequestId } from '../vary.ts'

/** Section 9.4: x-request-id is returned from 2026-08-16 through 2026-10-15 (UTC days, inclusive). */
const LEGACY_HEADER_FROM = Date.UTC(2026, 7, 16)
const LEGACY_HEADER_UNTIL = Date.UTC(2026, 9, 16)

export function legacyHeaderApplies(nowMs: number): boolean {
  return nowMs >= LEGACY_HEADER_FROM && nowMs < LEGACY_HEADER_UNTIL
}

/** Past section 9.4's last day the service returns no x-request-id; an intermediary may add an unrelated one. */
function pastLegacyHeader(nowMs: number): boolean {
  return nowMs >= LEGACY_HEADER_UNTIL
}

/** Fastify's genReqId: the svc-request-id of each call. */
export function createRequestIdMinter(clock: Clock, faults: FaultSet): (raw: IncomingMessage) => string {
  const rules = requestIdRules(faults)
  const { idTimeMs } = rules
  const uuid7 = createUuid7Generator(idTimeMs === null ? clock : { now: () => idTimeMs })
  const mint = rules.idVersion === 4 ? randomUUID : uuid7
  return (raw) => {
    if (rules.echoClientId) {
      const client = raw.headers['x-client-request-id']
      if (typeof client === 'string' && UUID_PATTERN.test(client)) return client
    }
    return mint()
  }
}

/** onSend: writes the id headers and notes the id the response carries, which its transaction takes. */
export function requestIdHeaders(state: GatewayState) {
  const { clock } = state
  // Minted once, at start-up, where the rules hand every error response the same id.
  const reusedErrorId = requestIdRules(state.faults).reuseErrorId ? createUuid7Generator(clock)() : undefined

  return (request: FastifyRequest, reply: FastifyReply, now: number): void => {
    const failed = reply.statusCode >= 400
    const id = failed && reusedErrorId !== undefined ? reusedErrorId : request.id
    state.contexts.of(request).responseId = id
    reply.header('svc-request-id', id)
    if (legacyHeaderApplies(now)) reply.header('x-request-id', id)
    // Allowed variation (vary.ts): past the cut-off an intermediary may add an unrelated x-request-id (§4.1).
    else if (state.vary && pastLegacyHeader(now)) reply.header('x-request-id', proxyRequestId())
  }
}
