/** Small harness pieces: UUID v7, durations, redaction, curl lines, retry delays. */
import { describe, expect, test } from 'vitest'
import { curlLine } from '../../../harness/worker/curl.ts'
import { parseDurationMs } from '../../../harness/duration.ts'
import type { ExchangeExcerpt } from '../../../harness/exchange.ts'
import { INVALID_KEY_PREFIX, Redactor } from '../../../harness/redact.ts'
import { delayBeforeRetryMs, exponentialDelayMs, retryAfterMs, RETRY_DEFAULTS } from '../../../harness/worker/retry.ts'
import { checkUuidV7, makeUuidV7 } from '../../../harness/uuid.ts'

describe('UUID v7 (Part 1 §4.1)', () => {
  test('accepts a v7 and reads its millisecond timestamp', () => {
    expect(checkUuidV7('01a1fd9d-e56d-752c-ade9-8a686a7b12f7')).toEqual({ ok: true, timestampMs: 0x01a1fd9de56d })
    const made = makeUuidV7(1_800_000_000_123)
    expect(checkUuidV7(made)).toEqual({ ok: true, timestampMs: 1_800_000_000_123 })
  })

  test.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['01a1fd9d-e56d-752c-ade9', 'is not a UUID'],
    ['01a1fd9de56d752cade98a686a7b12f7', 'is not a UUID'],
    ['f47ac10b-58cc-4372-a567-0e02b2c3d479', 'version 4, not 7'],
    ['01a1fd9d-e56d-752c-7de9-8a686a7b12f7', 'variant bits'],
    ['01a1fd9d-e56d-752c-cde9-8a686a7b12f7', 'variant bits'],
  ])('refuses %s (%s)', (value, reason) => {
    const result = checkUuidV7(value)
    expect(result.ok).toBe(false)
    expect(result.ok ? '' : result.reason).toContain(reason)
  })

  test('accepts upper-case hex and every variant digit 8, 9, a, b', () => {
    for (const digit of ['8', '9', 'A', 'b'])
      expect(checkUuidV7(`01A1FD9D-E56D-752C-${digit}DE9-8A686A7B12F7`).ok).toBe(true)
  })
})

describe('durations in reset headers', () => {
  test.each([
    ['1s', 1000],
    ['6m0s', 360_000],
    ['20ms', 20],
    ['1.5s', 1500],
    ['0s', 0],
    ['1h2m3s', 3_723_000],
    ['59.559s', 59_559],
    ['7m12.5s', 432_500],
  ])('%s is %d ms', (text, ms) => expect(parseDurationMs(text)).toBeCloseTo(ms, 6))

  test.each(['', '12', '1763721600', 's', '1 s', '1x', '-1s', 'soon', '1s2'])('%j is not a duration', (text) => {
    expect(parseDurationMs(text)).toBeUndefined()
  })
})

describe('redaction: keys never reach a report', () => {
  const redactor = new Redactor({ main: 'sk-main-secret', tier0: 'sk-t0', suspended: 'sk-main-secret-suspended' })

  test('every occurrence, longest key first, replaced by the variable name', () => {
    expect(redactor.text('a sk-main-secret b sk-main-secret-suspended c sk-t0')).toBe(
      'a <GATEWAY_API_KEY> b <GATEWAY_SUSPENDED_API_KEY> c <GATEWAY_API_KEY_TIER0>',
    )
  })

  test('a header named as a credential (the native key header) is redacted like the others', () => {
    const named = new Redactor({ main: 'sk-main-secret' }, ['X-Vendor-Api-Key'])
    expect(named.headers({ 'x-vendor-api-key': 'someone-elses-key', 'x-other': 'plain' })).toEqual({
      'x-vendor-api-key': '<redacted>',
      'x-other': 'plain',
    })
    expect(named.headers({ 'x-vendor-api-key': 'sk-main-secret' })).toEqual({ 'x-vendor-api-key': '<GATEWAY_API_KEY>' })
  })

  test('credential headers with unknown values keep only the scheme; our invalid keys stay readable', () => {
    expect(redactor.headers({ authorization: 'Bearer someone-elses-key', 'x-api-key': 'other', accept: 'x' })).toEqual({
      authorization: 'Bearer <redacted>',
      'x-api-key': '<redacted>',
      accept: 'x',
    })
    const invalid = `Bearer ${INVALID_KEY_PREFIX}123`
    expect(redactor.headers({ authorization: invalid }).authorization).toBe(invalid)
    expect(redactor.headers({ authorization: 'Bearer sk-t0' }).authorization).toBe('Bearer <GATEWAY_API_KEY_TIER0>')
  })
})

describe('curl lines', () => {
  const excerpt: ExchangeExcerpt = {
    seq: 1,
    method: 'POST',
    url: "http://127.0.0.1:8080/user/v1/transactions/lookup?q=it's",
    path: '/user/v1/transactions/lookup',
    key: 'tier3',
    auth: 'bearer',
    requestHeaders: {
      authorization: 'Bearer <GATEWAY_API_KEY_TIER3>',
      'content-type': 'application/json',
      'x-client-request-id': 'gc-1',
    },
    requestBody: '{"ids":["a\'b"]}',
    startedAt: 0,
    durationMs: 1,
    attempt: 1,
  }

  test('the key is the environment variable, quotes are escaped, our trace header is left out', () => {
    expect(curlLine(excerpt)).toBe(
      `curl -sS -i -X POST 'http://127.0.0.1:8080/user/v1/transactions/lookup?q=it'\\''s' -H "Authorization: Bearer $GATEWAY_API_KEY_TIER3" -H 'content-type: application/json' --data-raw '{"ids":["a'\\''b"]}'`,
    )
  })

  test('a key in another header (the native key header) is its variable, expanded by the shell', () => {
    const native = curlLine({
      ...excerpt,
      method: 'GET',
      key: null,
      auth: 'none',
      requestHeaders: { 'x-vendor-api-key': '<GATEWAY_API_KEY>' },
      requestBody: undefined,
    })
    expect(native).toBe(
      `curl -sS -i 'http://127.0.0.1:8080/user/v1/transactions/lookup?q=it'\\''s' -H "x-vendor-api-key: $GATEWAY_API_KEY"`,
    )
  })

  test('x-api-key uses the variable too; no key, no header', () => {
    expect(
      curlLine({
        ...excerpt,
        method: 'GET',
        key: 'main',
        auth: 'x-api-key',
        requestHeaders: { 'x-api-key': '<GATEWAY_API_KEY>' },
        requestBody: undefined,
      }),
    ).toBe(
      `curl -sS -i 'http://127.0.0.1:8080/user/v1/transactions/lookup?q=it'\\''s' -H "x-api-key: $GATEWAY_API_KEY"`,
    )
  })
})

describe('retry of 429 (Part 1 §7 client rules)', () => {
  test('Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000)
    expect(retryAfterMs('Sat, 21 Nov 2026 10:00:10 GMT', Date.parse('Sat, 21 Nov 2026 10:00:00 GMT'))).toBe(10_000)
    expect(retryAfterMs('soon')).toBeUndefined()
  })

  test('exponential steps', () => {
    expect([1, 2, 3].map((n) => exponentialDelayMs(n, 100))).toEqual([100, 200, 400])
  })

  test('waits at least what the target promised, plus jitter; gives up after the last attempt or past the cap', () => {
    const noJitter = (): number => 0
    expect(delayBeforeRetryMs(1, { 'retry-after': '2' }, noJitter)).toBe(2000)
    expect(delayBeforeRetryMs(1, { 'x-ratelimit-reset-requests': '3.5s' }, noJitter)).toBe(3500)
    expect(delayBeforeRetryMs(3, {}, noJitter)).toBe(RETRY_DEFAULTS.baseDelayMs * 4)
    expect(delayBeforeRetryMs(1, {}, () => 1)).toBe(RETRY_DEFAULTS.baseDelayMs + RETRY_DEFAULTS.jitterMs)
    expect(delayBeforeRetryMs(RETRY_DEFAULTS.maxAttempts, {}, noJitter)).toBeUndefined()
    expect(delayBeforeRetryMs(1, { 'retry-after': '3600' }, noJitter)).toBeUndefined()
  })
})
