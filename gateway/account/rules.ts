/** Account rules (Part 1 §2.2, §4.2) for transaction-query.ts and storeTransaction; usage limits: hooks/rules.ts. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { AccountFault } from './faults.ts'
import { defaultOf, rangeOf } from '../../common/request-schemas.ts'

const TRANSACTIONS = 'GET /user/v1/transactions'
/** The ranges and defaults of the query, as its request schema states them (sections 4.2, 8.5). */
const STATED = {
  hoursAgo: rangeOf(TRANSACTIONS, 'query', 'hours_ago'),
  hoursAgoDefault: defaultOf<number>(TRANSACTIONS, 'query', 'hours_ago'),
  page: rangeOf(TRANSACTIONS, 'query', 'page'),
  pageDefault: defaultOf<number>(TRANSACTIONS, 'query', 'page'),
  pageSize: rangeOf(TRANSACTIONS, 'query', 'page_size'),
  pageSizeDefault: defaultOf<number>(TRANSACTIONS, 'query', 'page_size'),
}

export type AccountRules = Readonly<ReturnType<typeof accountRules>>

export function accountRules(faults: FaultSet) {
  const bent = bentBy<AccountFault>(faults)
  return {
    ...queryRules(bent),
    // Section 2.2: a failed call is recorded too; the fault drops it.
    recordFailedCalls: !bent('failed-calls-not-recorded'),
    // Section 4.2: every call is recorded; the fault drops the successful ones of POST /v1/responses.
    recordResponses: !bent('transaction-not-recorded'),
    // stream is recorded as the call was made; the fault records true for every call.
    recordStreamAlways: bent('transaction-stream-true'),
  }
}

/** Whether a fault of the family is on. */
type Bent = (fault: AccountFault) => boolean

/** The ranges, defaults, window and filters of GET /user/v1/transactions (sections 4.2, 8.5). */
function queryRules(bent: Bent) {
  return {
    // hours_ago is 1 to 720, 24 by default; one fault refuses 720, one defaults to 720.
    hoursAgo: {
      min: STATED.hoursAgo.min,
      max: STATED.hoursAgo.max - (bent('hours-ago-max-refused') ? 1 : 0),
      fallback: bent('hours-ago-default-720') ? STATED.hoursAgo.max : STATED.hoursAgoDefault,
    },
    // page is 1 to 10000; the fault refuses 10000.
    page: {
      min: STATED.page.min,
      max: STATED.page.max - (bent('page-max-refused') ? 1 : 0),
      fallback: STATED.pageDefault,
    },
    // page_size is 1 to 1000, 100 by default; one fault refuses 1, one defaults to 50.
    pageSize: {
      min: STATED.pageSize.min + (bent('page-size-min-refused') ? 1 : 0),
      max: STATED.pageSize.max,
      fallback: bent('transactions-default-page-size-50') ? 50 : STATED.pageSizeDefault,
    },
    // A value out of its range is refused; each fault clamps one of them instead.
    clamp: {
      hoursAgo: bent('hours-ago-unchecked'),
      page: bent('page-unchecked'),
      pageSize: bent('page-size-unchecked'),
    },
    // A page holds page_size transactions; the fault slices 100 whatever is asked (null: as asked).
    fixedPageSlice: bent('page-size-not-honoured') ? 100 : null,
    // A one-day range (start_date equal to end_date) is taken; the fault reads end_date as exclusive and refuses it.
    endDateExclusive: bent('dates-same-day-refused'),
    // Dates are written YYYY-MM-DD; one fault takes anything Date.parse reads, one refuses 29 February.
    readDatesLeniently: bent('date-format-lenient'),
    refuseLeapDay: bent('date-leap-day-refused'),
    // hours_ago is ignored when dates are given; the fault lets it set the window.
    hoursAgoBesideDates: bent('hours-ago-with-dates'),
    // The dates are the window; the fault lists nothing for them.
    honourDateRange: !bent('date-range-ignored'),
    // api_key_id filters the list; one fault refuses it with 400, one ignores it.
    takeApiKeyId: !bent('api-key-id-refused'),
    filterApiKeyId: !bent('api-key-id-filter-ignored'),
    // Each filter applies; each fault ignores one of them.
    filterStatusCode: !bent('status-code-filter-ignored'),
    filterProvider: !bent('provider-filter-ignored'),
    filterSafetyIdentifier: !bent('safety-identifier-filter-ignored'),
    // status_code matches the recorded one; the fault matches nothing.
    statusCodeMatches: !bent('status-code-filter-empty'),
    // safety_identifier matches the recorded one; the fault matches nothing.
    safetyIdentifierMatches: !bent('safety-identifier-filter-empty'),
    // model is a partial match, regardless of case; the fault matches the exact id only.
    modelMatchesPart: !bent('model-filter-exact'),
  }
}
