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
import { NO_TOKENS, type RequestContext, type TokenCounts } from '../context.ts'
import type { StoredTransaction, TransactionRecord } from '../account/transactions.ts'

/** The provider recorded for calls that concern no catalogue model. */
const GATEWAY_PROVIDER = 'gateway'

/** Dates of records as they are first read; the text of the second is reused as listings read many of them. */
const toIso = isoFormatter()

export function storeTransaction(state: GatewayState) {
  const rules = accountRules(state.faults)

  return (request: FastifyRequest, reply: FastifyReply, now: number): void => {
    const status = reply.statusCode
    if (status >= 400 && !rules.recordFailedCalls) return
    if (status < 400 && !rules.recordResponses && request.routeOptions.url === '/v1/responses') return

    const context = state.contexts.of(request)
    const id = context.responseId ?? request.id
    const createdMs = Math.max(now, context.requestedAt)
    state.transactions.add(
      new CallTransaction(id, createdMs, status, rules.recordStreamAlways || context.stream, context),
      id,
    )
  }
}

/**
 * A stored call whose record of section 2.2 is built when it is first read: most calls are never listed, so the
 * response path formats no dates, and the store keeps fewer objects per call.
 */
class CallTransaction implements StoredTransaction {
  readonly accountId: string | null
  readonly apiKeyId: number | null
  readonly path: string
  readonly createdMs: number
  readonly #id: string
  readonly #requestedMs: number
  readonly #safetyIdentifier: string | null
  readonly #model: string
  readonly #status: number
  readonly #stream: boolean
  readonly #tokens: TokenCounts
  #record: TransactionRecord | undefined

  constructor(id: string, createdMs: number, status: number, stream: boolean, context: RequestContext) {
    const caller = context.caller
    this.accountId = caller?.account.id ?? null
    this.apiKeyId = caller?.account.key.id ?? null
    this.path = context.path
    this.createdMs = createdMs
    this.#id = id
    this.#requestedMs = context.requestedAt
    this.#safetyIdentifier = context.safetyIdentifier
    this.#model = context.model
    this.#status = status
    this.#stream = stream
    // A copy, so that the record keeps the counts as they were when the response was sent.
    this.#tokens = context.tokens === NO_TOKENS ? NO_TOKENS : { ...context.tokens }
  }

  get record(): TransactionRecord {
    this.#record ??= {
      id: this.#id,
      created_at: toIso(this.createdMs),
      requested_at: toIso(this.#requestedMs),
      safety_identifier: this.#safetyIdentifier,
      model: this.#model,
      provider: findModel(this.#model)?.ownedBy ?? GATEWAY_PROVIDER,
      status_code: this.#status,
      stream: this.#stream,
      tokens: this.#tokens,
    }
    return this.#record
  }
}
