/** Client pacing by the rate-limit headers (harness/worker/pacing.ts; Part 1 sections 4.1, 7). */
import { describe, expect, test } from 'vitest'
import { parseReset, parseResetMs, resetProblem } from '../../../harness/duration.ts'
import { Pacer, PACING_DEFAULTS } from '../../../harness/worker/pacing.ts'

describe('reset headers (Part 1 §4.1: "time until reset"; its "a number followed by s" is a sample form)', () => {
  test.each([
    ['1s', 1000, 'duration'],
    ['6m0s', 360_000, 'duration'],
    ['12.5s', 12_500, 'duration'],
    ['20ms', 20, 'duration'],
    ['1m30.5s', 90_500, 'duration'],
    ['12', 12_000, 'seconds'],
    ['0.75', 750, 'seconds'],
    [' 59.5 ', 59_500, 'seconds'],
  ])('%j is %d ms, written as %s', (text, ms, form) => {
    expect(parseReset(text)).toEqual({ ms, form })
    expect(resetProblem(text)).toBeUndefined()
  })

  test.each(['', 'soon', '1 s', '-1', '1s2', 'Thu, 01 Jan 2026 00:00:00 GMT'])('%j does not parse', (text) => {
    expect(parseReset(text)).toBeUndefined()
    expect(resetProblem(text)).toMatch(/is not a time until reset/)
  })

  test('a Unix time is not a time until reset: as seconds it lies decades ahead, past a day (§8.3)', () => {
    expect(resetProblem('1763721600')).toMatch(/more than a day ahead/)
    expect(resetProblem('86400')).toBeUndefined()
    expect(resetProblem('24h0m1s')).toMatch(/more than a day ahead/)
    expect(parseResetMs('1763721600')).toBeUndefined()
    expect(parseResetMs('86400')).toBe(86_400_000)
  })
})

describe('Pacer', () => {
  const headers = (remaining: string, reset: string) => ({
    'x-ratelimit-remaining-requests': remaining,
    'x-ratelimit-reset-requests': reset,
  })

  test('waits for the announced reset only once a bucket is empty', () => {
    let now = 1_000
    const pacer = new Pacer(() => now)
    const bucket = Pacer.bucketOf('main', '/user/v1/credit', undefined)
    expect(pacer.waitMs(bucket)).toBe(0)
    pacer.observe(bucket, headers('1', '2s'))
    expect(pacer.waitMs(bucket)).toBe(0)
    pacer.observe(bucket, headers('0', '1.5s'))
    expect(pacer.waitMs(bucket)).toBe(1_500 + PACING_DEFAULTS.marginMs)
    now += 2_000
    expect(pacer.waitMs(bucket)).toBe(0)
  })

  test('reads a reset written in bare seconds as well', () => {
    const pacer = new Pacer(() => 0)
    const bucket = Pacer.bucketOf('main', '/v1/models', undefined)
    pacer.observe(bucket, headers('0', '2.5'))
    expect(pacer.waitMs(bucket)).toBe(2_500 + PACING_DEFAULTS.marginMs)
  })

  test('keeps buckets apart by key, path family and model', () => {
    const pacer = new Pacer(() => 0)
    const usage = Pacer.bucketOf('tier0', '/user/v1/credit', undefined)
    pacer.observe(usage, headers('0', '10s'))
    expect(pacer.waitMs(Pacer.bucketOf('tier1', '/user/v1/credit', undefined))).toBe(0)
    expect(pacer.waitMs(Pacer.bucketOf('tier0', '/v1/models', undefined))).toBe(0)
    expect(pacer.waitMs(Pacer.bucketOf('tier0', '/user/v1/transactions', undefined))).toBeGreaterThan(0)
    const chat = Pacer.bucketOf('tier0', '/v1/chat/completions', 'gw-chat-mini')
    pacer.observe(chat, headers('0', '10s'))
    expect(pacer.waitMs(Pacer.bucketOf('tier0', '/v1/chat/completions', 'gw-chat'))).toBe(0)
  })

  test('ignores headers that do not parse and caps long announced waits', () => {
    const pacer = new Pacer(() => 0)
    const bucket = Pacer.bucketOf('main', '/v1/models', undefined)
    pacer.observe(bucket, headers('none', '1s'))
    pacer.observe(bucket, headers('0', 'soon'))
    expect(pacer.waitMs(bucket)).toBe(0)
    pacer.observe(bucket, headers('0', '1h0m0s'))
    expect(pacer.waitMs(bucket)).toBe(PACING_DEFAULTS.maxWaitMs)
  })
})
