/**
 * The query rules of GET /user/v1/transactions (Part 1 section 4.2): parameter validation, the time
 * window, the filters and paging. Parsing refuses anything the table does not allow with a 400 that
 * names the parameter; selecting is then a plain scan of the caller's transactions, newest first.
 */
import { isCalendarDate } from '../clock.ts'
import { invalidParameter } from '../errors.ts'
import type { FaultSet } from '../faults.ts'
import { integerParam, singleParam, type RawQuery } from '../query-params.ts'
import type { StoredTransaction, TransactionRecord, TransactionStore } from './transactions.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** Ranges and defaults of section 4.2 (and 8.5). */
export const TRANSACTION_QUERY_LIMITS = {
  hoursAgo: { min: 1, max: 720, fallback: 24 },
  page: { min: 1, max: 10_000, fallback: 1 },
  pageSize: { min: 1, max: 1_000, fallback: 100 },
} as const

export interface TransactionQuery {
  /** Created-time window, epoch milliseconds, from inclusive, to exclusive. */
  readonly fromMs: number
  readonly toMs: number
  readonly page: number
  /** page_size as asked; the envelope echoes it. */
  readonly pageSize: number
  /** How many transactions a page holds: pageSize, unless a fault says otherwise. */
  readonly sliceSize: number
  readonly safetyIdentifier: string | undefined
  /** A fault: the safety_identifier filter matches nothing. */
  readonly safetyIdentifierNever: boolean
  readonly apiKeyId: number | undefined
  readonly model: string | undefined
  readonly modelExact: boolean
  readonly provider: string | undefined
  readonly statusCode: number | undefined
}

export function parseTransactionQuery(raw: RawQuery, nowMs: number, faults: FaultSet): TransactionQuery {
  const { page: pageRule, pageSize: sizeRule, hoursAgo: hoursRule } = TRANSACTION_QUERY_LIMITS
  const page = integerParam(raw, 'page', pageRule, faults.has('page-unchecked')) ?? pageRule.fallback
  const pageSize =
    integerParam(raw, 'page_size', sizeRule, faults.has('page-size-unchecked')) ??
    (faults.has('transactions-default-page-size-50') ? 50 : sizeRule.fallback)
  const dates = dateWindow(raw, faults)
  const hoursFallback = faults.has('hours-ago-default-720') ? hoursRule.max : hoursRule.fallback
  let window: { fromMs: number; toMs: number }
  if (dates && faults.has('hours-ago-with-dates') && raw.hours_ago !== undefined) {
    const hours = integerParam(raw, 'hours_ago', hoursRule) ?? hoursFallback
    window = { fromMs: nowMs - hours * HOUR_MS, toMs: Number.POSITIVE_INFINITY }
  } else if (dates) {
    // An empty window: the fault keeps the dates valid but lists nothing for them.
    window = faults.has('date-range-ignored') ? { fromMs: 0, toMs: 0 } : dates
  } else {
    // Read only without dates: the reference says hours_ago is ignored when dates are given.
    const hours = integerParam(raw, 'hours_ago', hoursRule, faults.has('hours-ago-unchecked')) ?? hoursFallback
    window = { fromMs: nowMs - hours * HOUR_MS, toMs: Number.POSITIVE_INFINITY }
  }
  const statusCode = integerParam(raw, 'status_code')
  const apiKeyId = integerParam(raw, 'api_key_id')
  if (apiKeyId !== undefined && faults.has('api-key-id-refused'))
    throw invalidParameter('api_key_id', 'api_key_id is not supported')
  const safetyIdentifier = singleParam(raw, 'safety_identifier')
  const model = singleParam(raw, 'model')
  const provider = singleParam(raw, 'provider')
  return {
    ...window,
    page,
    pageSize,
    sliceSize: faults.has('page-size-not-honoured') ? 100 : pageSize,
    safetyIdentifier: faults.has('safety-identifier-filter-ignored') ? undefined : safetyIdentifier,
    safetyIdentifierNever: faults.has('safety-identifier-filter-empty') && safetyIdentifier !== undefined,
    apiKeyId,
    model,
    modelExact: faults.has('model-filter-exact'),
    provider: faults.has('provider-filter-ignored') ? undefined : provider,
    statusCode: faults.has('status-code-filter-ignored') ? undefined : statusCode,
  }
}

/** One page of the caller's matching transactions, newest first, and how many match in all. */
export function selectTransactions(
  store: TransactionStore,
  accountId: string,
  query: TransactionQuery,
  listedUntilMs = Number.POSITIVE_INFINITY,
): { records: TransactionRecord[]; total: number } {
  const skip = (query.page - 1) * query.sliceSize
  const records: TransactionRecord[] = []
  let total = 0
  for (const entry of store.newestFirst()) {
    if (entry.accountId !== accountId || entry.createdMs > listedUntilMs || !matches(entry, query)) continue
    if (total >= skip && records.length < query.sliceSize) records.push(entry.record)
    total += 1
  }
  return { records, total }
}

function matches(entry: StoredTransaction, query: TransactionQuery): boolean {
  const { record } = entry
  if (entry.createdMs < query.fromMs || entry.createdMs >= query.toMs) return false
  if (query.safetyIdentifierNever) return false
  if (query.safetyIdentifier !== undefined && record.safety_identifier !== query.safetyIdentifier) return false
  if (query.apiKeyId !== undefined && entry.apiKeyId !== query.apiKeyId) return false
  if (query.statusCode !== undefined && record.status_code !== query.statusCode) return false
  if (query.provider !== undefined && record.provider.toLowerCase() !== query.provider.toLowerCase()) return false
  if (query.model !== undefined) {
    const found = query.modelExact
      ? record.model === query.model
      : record.model.toLowerCase().includes(query.model.toLowerCase())
    if (!found) return false
  }
  return true
}

/** start_date and end_date as a window of whole UTC days, both inclusive; undefined when neither is given. */
function dateWindow(raw: RawQuery, faults: FaultSet): { fromMs: number; toMs: number } | undefined {
  const start = singleParam(raw, 'start_date')
  const end = singleParam(raw, 'end_date')
  if (start === undefined && end === undefined) return undefined
  if ((start === undefined || end === undefined) && !faults.has('dates-unpaired-accepted')) {
    const [missing, given] = start === undefined ? ['start_date', 'end_date'] : ['end_date', 'start_date']
    throw invalidParameter(missing, `${missing} is required when ${given} is given`)
  }
  const lenient = faults.has('date-format-lenient')
  const fromMs = start === undefined ? Number.NEGATIVE_INFINITY : dayStart('start_date', start, lenient)
  const toMs = end === undefined ? Number.POSITIVE_INFINITY : dayStart('end_date', end, lenient) + DAY_MS
  if (fromMs >= toMs) throw invalidParameter('start_date', `start_date (${start}) must not be after end_date (${end})`)
  return { fromMs, toMs }
}

function dayStart(name: string, text: string, lenient: boolean): number {
  if (lenient) {
    const ms = Date.parse(text)
    if (Number.isNaN(ms)) throw invalidParameter(name, `${name} must be a date; got '${text}'`)
    return Math.floor(ms / DAY_MS) * DAY_MS
  }
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0]
  if (!match || !isCalendarDate(year, month, day)) {
    throw invalidParameter(name, `${name} must be a calendar date written YYYY-MM-DD; got '${text}'`)
  }
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 to 1900..1999.
  return new Date(0).setUTCFullYear(year, month - 1, day)
}
