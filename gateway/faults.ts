/**
 * The fault registry. A fault is a small, named deviation from the reference that the self-tests
 * switch on (`--fault NAME`) to prove that the conformance suite notices it: each one breaks exactly
 * the requirements listed in `breaks` (ids of schemas/requirements.json; a test checks they exist).
 *
 * A fault is implemented where the behaviour it bends lives, by one `faults.has(name)` check, so a
 * reader of any module sees the faithful behaviour first and the deviation beside it.
 */

export interface FaultDefinition<Name extends string = string> {
  readonly name: Name
  /** One line: what the fault does to the gateway. */
  readonly description: string
  /** Requirement ids the fault breaks. */
  readonly breaks: readonly string[]
  /** For date-dependent rules: the as-of date (YYYY-MM-DD) the suite must judge the fault at. */
  readonly asOf?: string
}

const FAULT_TABLE = [
  { name: 'no-svc-request-id-on-errors', breaks: ['P1-4.1-svc-request-id'],
    description: 'Responses with status >= 400 carry no svc-request-id (nor x-request-id).' },
  { name: 'svc-request-id-v4', breaks: ['P1-4.1-svc-request-id'],
    description: 'Request ids are random UUID v4 instead of v7 (transactions use the same ids).' },
  { name: 'svc-request-id-reused-on-errors', breaks: ['P1-4.1-svc-request-id-unique'],
    description: 'Every response with status >= 400 carries one fixed UUID v7 minted at start-up.' },
  { name: 'echo-client-request-id', breaks: ['P1-4.1-client-request-id'],
    description: 'A syntactically valid UUID in X-Client-Request-Id is used as the svc-request-id.' },
  { name: 'x-request-id-after-cutoff', breaks: ['P1-9.4-x-request-id'], asOf: '2026-11-21',
    description: 'x-request-id equal to svc-request-id is sent on every response, whatever the date.' },
  { name: 'x-request-id-missing', breaks: ['P1-9.4-x-request-id'], asOf: '2026-09-01',
    description: 'x-request-id is never sent, not even during the migration window.' },
  { name: 'ratelimit-reset-epoch', breaks: ['P1-4.1-ratelimit-headers'],
    description: 'Both x-ratelimit-reset-* headers hold the Unix time (integer seconds) of the reset, not a duration.' },
  { name: 'no-ratelimit-headers-on-errors', breaks: ['P1-4.1-ratelimit-headers'],
    description: 'Authenticated responses with status >= 400 carry no x-ratelimit-* headers.' },
  { name: 'missing-key-allowed', breaks: ['P1-5.1-key-required'],
    description: 'On /v1 paths, a call with no key is served as the main (tier-2) account.' },
  { name: 'public-models-needs-auth', breaks: ['P1-5.1-public-models'],
    description: 'GET /public/models answers 401 without a key.' },
  { name: 'bearer-refused-on-transactions', breaks: ['P1-5.2-bearer'],
    description: 'GET /user/v1/transactions answers 401 unauthorized to Bearer keys.' },
  { name: 'x-api-key-refused', breaks: ['P1-5.3-x-api-key'],
    description: 'The x-api-key header is not accepted on the model endpoints (401, compatible body).' },
  { name: 'usage-401-wrong-body', breaks: ['P1-5.5-usage-401'],
    description: 'The /user/v1 401 body is { error: { code: "invalid_api_key", message } }.' },
  { name: 'suspended-usage-allowed', breaks: ['P1-5.5-usage-403'],
    description: 'The suspended account is served normally on /user/v1.' },
  { name: 'suspended-v1-allowed', breaks: ['P1-7-suspended-403'],
    description: 'The suspended account is served normally on /v1.' },
  { name: 'model-list-no-owned-by', breaks: ['P1-2.3-model-list'],
    description: 'Items of GET /v1/models (not /public/models) lack owned_by.' },
  { name: 'mode-unknown', breaks: ['P1-2.3-mode-values'],
    description: 'One chat model reports mode "text-generation" in the list, the public list and retrieve.' },
  { name: 'retrieve-created-iso', breaks: ['P1-2.3-model-retrieve'],
    description: 'The Bearer retrieve gives created as an ISO 8601 string instead of Unix seconds.' },
  { name: 'extra-on-list', breaks: ['P1-2.3-extra-only-on-retrieve'],
    description: 'Items of the Bearer GET /v1/models (not /public/models) carry the extra object.' },
  { name: 'rate-limit-tiers-named', breaks: ['P1-2.3-rate-limits-tiers'],
    description: 'extra.rate_limits.tiers is keyed "tier_0".."tier_5" instead of "0".."5".' },
  { name: 'rate-limit-disallowed-tiers', breaks: ['P1-2.3-rate-limits-min-tier'],
    description: 'extra.rate_limits.tiers lists all six tiers whatever min_tier (tiers below it with zero limits).' },
  { name: 'rate-limit-current-tier-0', breaks: ['P1-2.3-rate-limits-current'],
    description: 'extra.rate_limits.current always reports tier 0 and its limits.' },
  { name: 'allowed-tier-missing', breaks: ['P1-2.3-rate-limits-allowed-tiers'],
    description: 'Tier "5" is left out of extra.rate_limits.tiers.' },
  { name: 'list-retrieve-disagree', breaks: ['P1-2.3-list-retrieve-agree'],
    description: "Retrieve's extra.pricing.input is double the list item's pricing.input." },
  { name: 'alternate-format-ignored', breaks: ['P1-2.3-alternate-list'],
    description: 'The x-api-key model list answers in the Bearer format.' },
  { name: 'alternate-retrieve-no-extra', breaks: ['P1-2.3-alternate-retrieve'],
    description: 'The x-api-key model retrieve has no extra object.' },
  { name: 'alternate-limit-ignored', breaks: ['P1-4.3-alternate-limit'],
    description: 'The alternate model list ignores limit and returns every remaining item.' },
  { name: 'alternate-after-id-ignored', breaks: ['P1-4.3-alternate-cursors'],
    description: 'The alternate model list ignores after_id and always pages from the start.' },
  { name: 'unknown-model-500', breaks: ['P1-7-unknown-model-404'],
    description: 'Retrieving an unknown model id answers 500 (compatible error body) instead of 404.' },
  { name: 'credit-exchange-rate-float', breaks: ['P1-2.1-credit-record'],
    description: 'The credit record reports exchange_rate as a non-integer number.' },
  { name: 'credit-grant-amount-number', breaks: ['P1-2.1-credit-sources'],
    description: 'Grant amount_irt is a JSON number instead of a decimal string.' },
  { name: 'transactions-no-total', breaks: ['P1-2.2-transactions-envelope'],
    description: 'The transaction list envelope has no total.' },
  { name: 'transaction-not-recorded', breaks: ['P1-4.2-transaction-available'],
    description: 'Successful GET /v1/models/{model_id} calls are not recorded as transactions.' },
  { name: 'transaction-stream-true', breaks: ['P1-2.2-transaction-fields'],
    description: 'Every transaction records stream true.' },
  { name: 'failed-calls-not-recorded', breaks: ['P1-2.2-failed-call-recorded'],
    description: 'Calls answered with status >= 400 are not recorded as transactions.' },
  { name: 'transactions-default-page-size-50', breaks: ['P1-4.2-transactions-defaults'],
    description: 'page_size defaults to 50 instead of 100.' },
  { name: 'page-size-not-honoured', breaks: ['P1-4.2-transactions-paging'],
    description: 'Pages are sliced 100 at a time whatever page_size asks, while the envelope echoes the asked page_size.' },
  { name: 'has-more-always-false', breaks: ['P1-4.2-transactions-has-more'],
    description: 'has_more is always false.' },
  { name: 'hours-ago-unchecked', breaks: ['P1-4.2-hours-ago-range'],
    description: 'Out-of-range hours_ago values are clamped to 1..720 instead of refused (non-integers still 400).' },
  { name: 'page-unchecked', breaks: ['P1-4.2-page-range'],
    description: 'Out-of-range page values are clamped to 1..10000 instead of refused.' },
  { name: 'page-size-unchecked', breaks: ['P1-4.2-page-size-range'],
    description: 'Out-of-range page_size values are clamped to 1..1000 instead of refused.' },
  { name: 'dates-unpaired-accepted', breaks: ['P1-4.2-date-pairing'],
    description: 'start_date or end_date alone is accepted; the missing end of the range is open.' },
  { name: 'date-format-lenient', breaks: ['P1-4.2-date-format'],
    description: 'Any value Date.parse understands is accepted as start_date or end_date.' },
  { name: 'status-code-filter-ignored', breaks: ['P1-4.2-filter-status-code'],
    description: 'The status_code filter of the transaction list is ignored.' },
  { name: 'model-filter-exact', breaks: ['P1-4.2-filter-model'],
    description: 'The model filter matches only the exact model id instead of a partial match.' },
  { name: 'provider-filter-ignored', breaks: ['P1-4.2-filter-provider'],
    description: 'The provider filter of the transaction list is ignored.' },
  { name: 'safety-identifier-filter-ignored', breaks: ['P1-4.2-filter-safety-identifier'],
    description: 'The safety_identifier filter of the transaction list is ignored.' },
  { name: 'usage-429-wrong-body', breaks: ['P1-7-usage-429-body'],
    description: 'The /user/v1 429 body has the compatible shape { error: { message, type, param, code } }.' },
  { name: 'usage-limit-off', breaks: ['P1-8.1-usage-rate-limited'],
    description: '/user/v1 is never rate limited (the rate-limit headers are still sent).' },
  { name: 'svc-request-id-stale', breaks: ['P1-4.1-svc-request-id-time'],
    description: 'Request ids are valid, unique UUID v7 whose timestamp is 2020-01-01.' },
  { name: 'date-range-ignored', breaks: ['P1-4.2-date-range'],
    description: 'When start_date and end_date are given, the transaction list is empty.' },
] as const satisfies readonly FaultDefinition[]

export type FaultName = (typeof FAULT_TABLE)[number]['name']

/** The registry, in a stable order. Typed loosely (breaks as strings, asOf optional on every entry) for readers. */
export const FAULTS: readonly FaultDefinition<FaultName>[] = FAULT_TABLE

/** The faults switched on for one gateway; `has` only takes registered names, so a typo fails to compile. */
export type FaultSet = ReadonlySet<FaultName>

export const FAULT_NAMES: readonly FaultName[] = FAULTS.map((fault) => fault.name)

export function isFaultName(name: string): name is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(name)
}

/** Checks names against the registry; the error names every valid fault so the fix is in the message. */
export function toFaultSet(names: readonly string[]): FaultSet {
  const unknown = names.filter((name) => !isFaultName(name))
  if (unknown.length > 0) {
    throw new Error(`unknown fault ${unknown.map((name) => `'${name}'`).join(', ')}; valid faults: ${FAULT_NAMES.join(', ')}`)
  }
  return new Set(names as readonly FaultName[])
}

/** The registry as text, one fault per line, for `--fault list`. */
export function describeFaults(): string {
  const width = Math.max(...FAULT_NAMES.map((name) => name.length))
  return FAULTS.map((fault) => {
    const asOf = fault.asOf === undefined ? '' : ` (judge as of ${fault.asOf})`
    return `${fault.name.padEnd(width)}  breaks ${fault.breaks.join(', ')}${asOf}: ${fault.description}`
  }).join('\n')
}
