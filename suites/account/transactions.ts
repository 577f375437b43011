/** Reading and finding transactions (Part 1 §2.2, §4.2), shared by the account suites. */
import { expectAccepted } from '../shared/refusals.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'

export type Transaction = Record<string, unknown>

/** §4.2: data is available within 30 seconds of the call. */
export const AVAILABILITY_MS = 30_000
const MAX_PAGES = 5 // of 1000: enough for a busy staging account's last hour

export function transactionsOf(ex: Exchange): Transaction[] {
  const body = ex.json
  return isObject(body) && Array.isArray(body.transactions) ? body.transactions.filter(isObject) : []
}

/** Lists transactions (expecting a 2xx), with a key slot and query. */
export async function listTransactions(
  api: TargetClient,
  query: Record<string, string | number>,
  key: KeySlot = 'main',
): Promise<{ ex: Exchange; items: Transaction[] }> {
  const ex = await api.get('/user/v1/transactions', { key, query })
  expectAccepted([['GET /user/v1/transactions', ex]], 'the transaction list (§7: 2xx success)')
  return { ex, items: transactionsOf(ex) }
}

/** Looks for transactions by id in the last hour, page by page; returns those found. */
export async function findTransactions(
  api: TargetClient,
  ids: readonly string[],
  key: KeySlot,
  query: Record<string, string | number> = { hours_ago: 1 },
): Promise<Map<string, Transaction>> {
  const found = new Map<string, Transaction>()
  for (let page = 1; page <= MAX_PAGES && found.size < ids.length; page += 1) {
    const { ex, items } = await listTransactions(api, { ...query, page_size: 1000, page }, key)
    for (const t of items) if (typeof t.id === 'string' && ids.includes(t.id)) found.set(t.id, t)
    const body = ex.json
    if (!isObject(body) || body.has_more !== true) break
  }
  return found
}

/** Every transaction of a query, page by page (at most MAX_PAGES of 1000), with the first page's exchange. */
export async function listPages(
  api: TargetClient,
  query: Record<string, string | number>,
  key: KeySlot,
): Promise<{ ex: Exchange; items: Transaction[] }> {
  const first = await listTransactions(api, { ...query, page_size: 1000, page: 1 }, key)
  const items = [...first.items]
  let body = first.ex.json
  for (let page = 2; page <= MAX_PAGES && isObject(body) && body.has_more === true; page += 1) {
    const next = await listTransactions(api, { ...query, page_size: 1000, page }, key)
    items.push(...next.items)
    body = next.ex.json
  }
  return { ex: first.ex, items }
}

/**
 * Polling for a transaction (§4.2: "available within 30 seconds of the call"): soon after the call first, where a
 * target lists it at once, then less often, since each poll spends usage-endpoint requests limited per minute.
 */
export const AVAILABILITY_POLL = { firstMs: 250, factor: 2, maxIntervalMs: 4_000 } as const

/** When a call's answer ended on this machine's clock: its 30 seconds (§4.2) are counted from there. */
export function answeredAt(ex: Exchange): number {
  return ex.excerpt.startedAt + ex.excerpt.durationMs
}

/**
 * Polls, with backoff, until every id is listed or 30 seconds have passed since `since` (the answer of the latest
 * of their calls, `answeredAt`; by default now); returns what was found by then.
 */
export async function awaitTransactions(
  api: TargetClient,
  ids: readonly string[],
  key: KeySlot,
  query: Record<string, string | number> = { hours_ago: 1 },
  since: number = Date.now(),
): Promise<Map<string, Transaction>> {
  const deadline = since + AVAILABILITY_MS
  let interval: number = AVAILABILITY_POLL.firstMs
  for (;;) {
    const found = await findTransactions(api, ids, key, query)
    if (found.size === ids.length || Date.now() + interval > deadline) return found
    await new Promise((resolve) => setTimeout(resolve, interval))
    interval = Math.min(interval * AVAILABILITY_POLL.factor, AVAILABILITY_POLL.maxIntervalMs)
  }
}
