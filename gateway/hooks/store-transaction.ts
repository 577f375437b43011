/**
 * Stores every call as a transaction (Part 1 sections 1.4, 2.2, 4.2) while its response is being
 * sent: failed calls too, since every call is billed and identified by its svc-request-id. The record
 * is in the store before the client has the response, so it can be listed at once.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { accountRules } from '../account/rules.ts'
import { findModel } from '../models/catalogue.ts'
import { isoFormatter } from '../clock.ts'
import type { GatewayState } from '../state.ts'

/** The provider recorded for calls that concern no catalogue model. */
const GATEWAY_PROVIDER = 'gateway'

export function storeTransaction(state: GatewayState) {
  const { clock } = state
  const rules = accountRules(state.faults)
  const toIso = isoFormatter()

  return (request: FastifyRequest, reply: FastifyReply): void => {
    const status = reply.statusCode
    if (status >= 400 && !rules.recordFailedCalls) return
    if (status < 400 && !rules.recordResponses && request.routeOptions.url === '/v1/responses') return

    const context = state.contexts.of(request)
    const createdMs = Math.max(clock.now(), context.requestedAt)
    const caller = context.caller
    state.transactions.add({
      record: {
        id: context.responseId ?? request.id,
        created_at: toIso(createdMs),
        requested_at: toIso(context.requestedAt),
        safety_identifier: context.safetyIdentifier,
        model: context.model,
        provider: findModel(context.model)?.ownedBy ?? GATEWAY_PROVIDER,
        status_code: status,
        stream: rules.recordStreamAlways || context.stream,
        tokens: { ...context.tokens },
      },
      accountId: caller?.account.id ?? null,
      apiKeyId: caller?.account.key.id ?? null,
      path: context.path,
      createdMs,
    })
  }
}
