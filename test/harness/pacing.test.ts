/** Client pacing by the rate-limit headers (harness/pacing.ts; Part 1 sections 4.1, 7). */
import { describe, expect, test } from 'vitest'
import { Pacer, PACING_DEFAULTS } from '../../harness/pacing.ts'

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
