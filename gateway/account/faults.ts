/**
 * Faults of the account and usage endpoints (Part 1 §2.1, §2.2, §4.2, §7, §8.1). See ../faults/registry.ts for what a
 * fault is.
 */
import type { FaultDefinition } from '../faults/definition.ts'

export const ACCOUNT_FAULTS = [
  {
    name: 'credit-exchange-rate-float',
    breaks: ['P1-2.1-credit-record'],
    description: 'The credit record reports exchange_rate as a non-integer number.',
  },
  {
    name: 'credit-grant-amount-number',
    breaks: ['P1-2.1-credit-sources'],
    description: 'Grant amount_irt is a JSON number instead of a decimal string.',
  },
  {
    name: 'transactions-no-total',
    breaks: ['P1-2.2-transactions-envelope'],
    description: 'The transaction list envelope has no total.',
  },
  {
    name: 'transaction-not-recorded',
    breaks: ['P1-4.2-transaction-available'],
    description: 'Successful POST /v1/responses calls are not recorded as transactions.',
  },
  {
    name: 'transaction-stream-true',
    breaks: ['P1-2.2-transaction-fields'],
    description: 'Every transaction records stream true.',
  },
  {
    name: 'transaction-filtered-stream-true',
    breaks: ['P1-2.2-transaction-fields'],
    description:
      'Transactions listed with a model filter say stream true; unfiltered, the same transactions show stream as recorded.',
  },
  {
    name: 'failed-calls-not-recorded',
    breaks: ['P1-2.2-failed-call-recorded'],
    description: 'Calls answered with status >= 400 are not recorded as transactions.',
  },
  {
    name: 'transactions-default-page-size-50',
    breaks: ['P1-4.2-transactions-defaults'],
    description: 'page_size defaults to 50 instead of 100.',
  },
  {
    name: 'page-size-not-honoured',
    breaks: ['P1-4.2-transactions-paging'],
    description:
      'Pages are sliced 100 at a time whatever page_size asks, while the envelope echoes the asked page_size.',
  },
  { name: 'has-more-always-false', breaks: ['P1-4.2-transactions-has-more'], description: 'has_more is always false.' },
  {
    name: 'hours-ago-unchecked',
    breaks: ['P1-4.2-hours-ago-refused'],
    relaxes: ['P1-4.2-hours-ago-refused'],
    description: 'Out-of-range hours_ago values are clamped to 1..720 instead of refused (non-integers still 400).',
  },
  {
    name: 'hours-ago-max-refused',
    breaks: ['P1-4.2-hours-ago-range'],
    description: 'hours_ago=720 is refused with 400: the range check excludes its upper end.',
  },
  {
    name: 'page-unchecked',
    breaks: ['P1-4.2-page-refused'],
    relaxes: ['P1-4.2-page-refused'],
    description: 'Out-of-range page values are clamped to 1..10000 instead of refused.',
  },
  {
    name: 'page-max-refused',
    breaks: ['P1-4.2-page-range'],
    description: 'page=10000 is refused with 400: the range check excludes its upper end.',
  },
  {
    name: 'page-size-unchecked',
    breaks: ['P1-4.2-page-size-refused'],
    relaxes: ['P1-4.2-page-size-refused'],
    description: 'Out-of-range page_size values are clamped to 1..1000 instead of refused.',
  },
  {
    name: 'page-size-min-refused',
    breaks: ['P1-4.2-page-size-range'],
    description: 'page_size=1 is refused with 400: the range check excludes its lower end.',
  },
  {
    name: 'dates-unpaired-accepted',
    breaks: ['P1-4.2-date-pairing-refused'],
    relaxes: ['P1-4.2-date-pairing-refused'],
    description: 'start_date or end_date alone is accepted; the missing end of the range is open.',
  },
  {
    name: 'dates-same-day-refused',
    breaks: ['P1-4.2-date-pairing'],
    description:
      'end_date is read as exclusive, so a one-day range (start_date equal to end_date) is refused as empty.',
  },
  {
    name: 'date-format-lenient',
    breaks: ['P1-4.2-date-format-refused'],
    relaxes: ['P1-4.2-date-format-refused'],
    description: 'Any value Date.parse understands is accepted as start_date or end_date.',
  },
  {
    name: 'date-leap-day-refused',
    breaks: ['P1-4.2-date-format'],
    description: 'A date of 29 February is refused with 400, as by a date check that takes February to have 28 days.',
  },
  {
    name: 'status-code-filter-ignored',
    breaks: ['P1-4.2-filter-status-code'],
    description: 'The status_code filter of the transaction list is ignored.',
  },
  {
    name: 'status-code-filter-empty',
    breaks: ['P1-4.2-filter-status-code'],
    description: 'The status_code filter lists nothing, whatever the status.',
  },
  {
    name: 'model-filter-exact',
    breaks: ['P1-4.2-filter-model'],
    description: 'The model filter matches only the exact model id instead of a partial match.',
  },
  {
    name: 'provider-filter-ignored',
    breaks: ['P1-4.2-filter-provider'],
    description: 'The provider filter of the transaction list is ignored.',
  },
  {
    name: 'safety-identifier-filter-ignored',
    breaks: ['P1-4.2-filter-safety-identifier'],
    description: 'The safety_identifier filter of the transaction list is ignored.',
  },
  {
    name: 'usage-429-wrong-body',
    breaks: ['P1-7-usage-429-body'],
    description: 'The /user/v1 429 body has the compatible shape { error: { message, type, param, code } }.',
  },
  {
    name: 'usage-limit-off',
    limiter: true,
    breaks: ['P1-8.1-usage-rate-limited'],
    loadVerdicts: ['admission'],
    description: '/user/v1 is never rate limited (the rate-limit headers are still sent).',
  },
  {
    name: 'hours-ago-default-720',
    breaks: ['P1-4.2-hours-ago-default'],
    description: 'Without hours_ago or dates, the list covers 720 hours instead of 24.',
  },
  {
    name: 'hours-ago-with-dates',
    breaks: ['P1-4.2-hours-ago-dates'],
    description: 'hours_ago, when given, sets the window even when start_date and end_date are given.',
  },
  {
    name: 'api-key-id-refused',
    breaks: ['P1-4.2-filter-api-key-id'],
    description: 'The api_key_id filter is refused with 400.',
  },
  {
    name: 'api-key-id-filter-ignored',
    breaks: ['P1-4.2-filter-api-key-id'],
    description: "The api_key_id filter is ignored: another key's id lists the caller's own transactions.",
  },
  {
    name: 'safety-identifier-filter-empty',
    breaks: ['P1-4.2-filter-safety-identifier-match'],
    description: 'The safety_identifier filter lists nothing, whatever the identifier.',
  },
  {
    name: 'date-range-ignored',
    breaks: ['P1-4.2-date-range'],
    description: 'When start_date and end_date are given, the transaction list is empty.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the account faults: what its rules and reshapes are typed by. */
export type AccountFault = (typeof ACCOUNT_FAULTS)[number]['name']
