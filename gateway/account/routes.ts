/**
 * The account and usage endpoints (Part 1 sections 2.1, 2.2, 4.2), under /user/v1 with Bearer keys:
 * the credit record, the transaction list and the lookup of transactions by id. Each call counts
 * against the usage rate limit of section 8.1 (hooks/rate-limit.ts).
 */
import type { FastifyInstance } from 'fastify'
import { EXCHANGE_RATE, type Account, type CreditGrant, type CreditPackage } from './accounts.ts'
import { requireCaller } from '../context.ts'
import { invalidParameter } from '../errors.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { ACCOUNT_ANSWER_RESHAPES } from './reshapes.ts'
import type { GatewayState } from '../state.ts'
import { seedHistory } from './history.ts'
import { listedUntilMs, unsettledIrt } from './settling.ts'
import { accountRules } from './rules.ts'
import { parseTransactionQuery, selectTransactions } from './transaction-query.ts'
import type { StoredTransaction, TransactionRecord } from './transactions.ts'
import type { VariationName } from '../variations.ts'

/** Section 8.5: lookup takes up to 1000 transactions per request. */
const LOOKUP_MAX_IDS = 1_000

export function registerAccountRoutes(app: FastifyInstance, state: GatewayState): void {
  seedHistory(state)
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, ACCOUNT_ANSWER_RESHAPES)
    registerRoutes(scope, state)
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState): void {
  const rules = accountRules(state.faults)

  app.get('/user/v1/credit', async (request) => {
    const { account } = requireCaller(state.contexts.of(request))
    return creditRecord(account, unsettledIrt(state, account))
  })

  app.get<{ Querystring: Record<string, unknown> }>('/user/v1/transactions', async (request) => {
    const { account } = requireCaller(state.contexts.of(request))
    const query = parseTransactionQuery(request.query, state.clock.now(), rules)
    const { entries, total } = selectTransactions(state.transactions, account.id, query, rules, listedUntilMs(state))
    return {
      transactions: entries.map((entry) => listed(entry, state.variations)),
      total,
      page: query.page,
      page_size: query.pageSize,
      has_more: query.page * query.pageSize < total,
    }
  })

  // The reference names this route but does not show its shapes (section 4.2). This gateway takes
  // { ids: [...] } and answers the caller's transactions among them plus the ids it could not find;
  // another account's transaction counts as not found, so ids reveal nothing across accounts.
  app.post<{ Body: unknown }>('/user/v1/transactions/lookup', async (request) => {
    const { account } = requireCaller(state.contexts.of(request))
    const transactions: TransactionRecord[] = []
    const notFound: string[] = []
    const until = listedUntilMs(state)
    for (const id of new Set(lookupIds(request.body))) {
      const entry = state.transactions.findById(id)
      if (entry && entry.accountId === account.id && entry.createdMs <= until) transactions.push(entry.record)
      else notFound.push(id)
    }
    return { transactions, not_found: notFound }
  })
}

/**
 * A listed transaction: the record of section 2.2 and the id of the key that made the call, which api_key_id filters
 * by and which no other answer shows (section 9.2 lets a record carry fields it does not list); hidden where a
 * provider lists only the fields of section 2.2.
 */
function listed(entry: StoredTransaction, variations: ReadonlySet<VariationName>) {
  if (variations.has('transactions-no-key-id') || entry.apiKeyId === null) return entry.record
  return { ...entry.record, api_key_id: entry.apiKeyId }
}

function lookupIds(body: unknown): string[] {
  const ids = typeof body === 'object' && body !== null ? (body as { ids?: unknown }).ids : undefined
  if (!Array.isArray(ids) || !ids.every((id): id is string => typeof id === 'string')) {
    throw invalidParameter('ids', 'the body must be { "ids": [...] }, an array of transaction id strings')
  }
  if (ids.length < 1 || ids.length > LOOKUP_MAX_IDS) {
    throw invalidParameter('ids', `ids must hold 1 to ${LOOKUP_MAX_IDS} transaction ids; got ${ids.length}`)
  }
  return ids
}

/**
 * The credit record of section 2.1. Amounts of sources are decimal strings; totals are numbers. `unsettled` is
 * what was charged but is not shown yet (settling.ts); sources show their settled remainders.
 */
function creditRecord(account: Account, unsettled = 0) {
  const sources: readonly CreditGrant[] = [...account.grants, ...account.packages]
  const limit = sum(sources.map((source) => source.amountIrt))
  const remaining = sum(sources.map((source) => source.remainingIrt)) + unsettled
  return {
    limit,
    remaining_irt: remaining,
    remaining_unit: round(remaining / EXCHANGE_RATE, 6),
    total_unit: round(limit / EXCHANGE_RATE, 6),
    exchange_rate: EXCHANGE_RATE,
    account_tier: account.tier,
    credit_sources: {
      grants: account.grants.map((grant) => ({ id: grant.id, ...sourceFields(grant) })),
      packages: account.packages.map((pack: CreditPackage) => ({
        id: pack.id,
        template_id: pack.templateId,
        name: pack.name,
        ...sourceFields(pack),
      })),
    },
  }
}

/** The fields grants and packages share, after their id. */
function sourceFields(source: CreditGrant) {
  return {
    description: source.description,
    amount_irt: decimal(source.amountIrt),
    remaining_irt: decimal(source.remainingIrt),
    end_date: source.endDate,
    allowed_services: ['api'],
    scope_details: structuredClone(source.scopeDetails),
  }
}

function decimal(irt: number): string {
  return irt.toFixed(2)
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}
