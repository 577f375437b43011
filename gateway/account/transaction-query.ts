/**
 * The query rules of GET /user/v1/transactions (Part 1 section 4.2): parameter validation, the time
 * window, the filters and paging. The request schema's validator has judged the query before; parsing
 * refuses what it leaves (integers in plain digits, calendar dates, the ranges a fault bends) with a 400
 * that names the parameter. Selecting is then a plain scan of the caller's transactions, newest first.
 */
import { isCalendarDate } from '../clock.ts'
import { invalidParameter } from '../errors.ts'
import { integerParam, singleParam, type RawQuery } from '../query-params.ts'
import type { AccountRules } from './rules.ts'
import type { StoredTransaction, TransactionStore } from './transactions.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** Created-time window, epoch milliseconds, from inclusive, to exclusive. */
interface TimeWindow {
  readonly fromMs: number
  readonly toMs: number
}

export interface TransactionQuery extends TimeWindow {
  readonly page: number
  /** page_size as asked; the envelope echoes it. */
  readonly pageSize: number
  /** How many transactions a page holds. */
  readonly sliceSize: number
  readonly safetyIdentifier: string | undefined
  readonly apiKeyId: number | undefined
  readonly model: string | undefined
  readonly provider: string | undefined
  readonly statusCode: number | undefined
}

export function parseTransactionQuery(raw: RawQuery, nowMs: number, rules: AccountRules): TransactionQuery {
  const { clamp } = rules
  const page = integerParam(raw, 'page', rules.page, clamp.page) ?? rules.page.fallback
  const pageSize = integerParam(raw, 'page_size', rules.pageSize, clamp.pageSize) ?? rules.pageSize.fallback
  const window = timeWindow(raw, nowMs, rules)
  const statusCode = integerParam(raw, 'status_code')
  const apiKeyId = integerParam(raw, 'api_key_id')
  if (apiKeyId !== undefined && !rules.takeApiKeyId) throw invalidParameter('api_key_id', 'api_key_id is not supported')
  const safetyIdentifier = singleParam(raw, 'safety_identifier')
  const model = singleParam(raw, 'model')
  const provider = singleParam(raw, 'provider')
  return {
    ...window,
    page,
    pageSize,
    sliceSize: rules.fixedPageSlice ?? pageSize,
    safetyIdentifier: rules.filterSafetyIdentifier ? safetyIdentifier : undefined,
    apiKeyId: rules.filterApiKeyId ? apiKeyId : undefined,
    model,
    provider: rules.filterProvider ? provider : undefined,
    statusCode: rules.filterStatusCode ? statusCode : undefined,
  }
}

/** The dates' window when they are given, else the last hours_ago hours (the reference ignores it beside dates). */
function timeWindow(raw: RawQuery, nowMs: number, rules: AccountRules): TimeWindow {
  const dates = dateWindow(raw, rules)
  const hoursAgo = (clamp: boolean) => integerParam(raw, 'hours_ago', rules.hoursAgo, clamp) ?? rules.hoursAgo.fallback
  if (dates && rules.hoursAgoBesideDates && raw.hours_ago !== undefined)
    return { fromMs: nowMs - hoursAgo(false) * HOUR_MS, toMs: Number.POSITIVE_INFINITY }
  // An empty window where the rules keep the dates valid but list nothing for them.
  if (dates) return rules.honourDateRange ? dates : { fromMs: 0, toMs: 0 }
  return { fromMs: nowMs - hoursAgo(rules.clamp.hoursAgo) * HOUR_MS, toMs: Number.POSITIVE_INFINITY }
}

/** One page of the caller's matching transactions, newest first, and how many match in all. */
export function selectTransactions(
  store: TransactionStore,
  accountId: string,
  query: TransactionQuery,
  rules: AccountRules,
  listedUntilMs = Number.POSITIVE_INFINITY,
): { entries: StoredTransaction[]; total: number } {
  const skip = (query.page - 1) * query.sliceSize
  const entries: StoredTransaction[] = []
  let total = 0
  for (const entry of store.newestFirst()) {
    if (entry.accountId !== accountId || entry.createdMs > listedUntilMs || !matches(entry, query, rules)) continue
    if (total >= skip && entries.length < query.sliceSize) entries.push(entry)
    total += 1
  }
  return { entries, total }
}

function matches(entry: StoredTransaction, query: TransactionQuery, rules: AccountRules): boolean {
  if (entry.createdMs < query.fromMs || entry.createdMs >= query.toMs) return false
  if (query.apiKeyId !== undefined && entry.apiKeyId !== query.apiKeyId) return false
  // The record last: a stored call may build it only when it is first read.
  const { record } = entry
  const { safetyIdentifier } = query
  if (
    safetyIdentifier !== undefined &&
    (!rules.safetyIdentifierMatches || record.safety_identifier !== safetyIdentifier)
  )
    return false
  if (query.statusCode !== undefined && (!rules.statusCodeMatches || record.status_code !== query.statusCode))
    return false
  if (query.provider !== undefined && record.provider.toLowerCase() !== query.provider.toLowerCase()) return false
  if (query.model === undefined) return true
  return rules.modelMatchesPart
    ? record.model.toLowerCase().includes(query.model.toLowerCase())
    : record.model === query.model
}

/** start_date and end_date as a window of whole UTC days, both inclusive; undefined when neither is given. */
function dateWindow(raw: RawQuery, rules: AccountRules): TimeWindow | undefined {
  const start = singleParam(raw, 'start_date')
  const end = singleParam(raw, 'end_date')
  if (start === undefined && end === undefined) return undefined
  // One alone only where a fault lifts the pairing the validator judges: the other end is then open.
  const fromMs = start === undefined ? Number.NEGATIVE_INFINITY : dayStart('start_date', start, rules)
  const endDay = rules.endDateExclusive ? 0 : DAY_MS
  const toMs = end === undefined ? Number.POSITIVE_INFINITY : dayStart('end_date', end, rules) + endDay
  if (fromMs >= toMs) throw invalidParameter('start_date', `start_date (${start}) must not be after end_date (${end})`)
  return { fromMs, toMs }
}

function dayStart(name: string, text: string, rules: AccountRules): number {
  if (rules.readDatesLeniently) {
    const ms = Date.parse(text)
    if (Number.isNaN(ms)) throw invalidParameter(name, `${name} must be a date; got '${text}'`)
    return Math.floor(ms / DAY_MS) * DAY_MS
  }
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0]
  if (!match || !isCalendarDate(year, month, day) || (rules.refuseLeapDay && month === 2 && day === 29)) {
    throw invalidParameter(name, `${name} must be a calendar date written YYYY-MM-DD; got '${text}'`)
  }
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 to 1900..1999.
  return new Date(0).setUTCFullYear(year, month - 1, day)
}
