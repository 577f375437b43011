/**
 * The per-model limits of the reference gateway (Part 1 sections 4.1, 7, 8.2, 8.3): a model's pool per
 * organization, RPM, RPD, TPM, IPM, the project-scoped token bucket, pools shared by sibling aliases, tier
 * upgrades through the admin route, and exact counts under concurrency.
 */
import { describe, expect, it } from 'vitest'
import { ADMIN_KEY } from '../../../gateway/account/accounts.ts'
import { modelLimits, poolOf, projectTokensPerMinute } from '../../../gateway/limit-tables.ts'
import { manualClock, testGateway, type CallResult } from './helpers.ts'

const chat = (text = 'Hi', maxTokens = 4) => ({
  method: 'POST' as const,
  body: { model: 'gw-chat-mini', messages: [{ role: 'user', content: text }], max_tokens: maxTokens },
})

describe('per-model request limits (section 8.3)', () => {
  it('refuse the call after the model rpm with a compatible 429 and Retry-After, and recover after the window', async () => {
    const clock = manualClock('2026-11-21T12:00:00Z')
    const gw = testGateway({ clock, minuteMs: 60_000 })
    const { rpm } = modelLimits('text', 0)
    for (let i = 0; i < rpm; i += 1)
      expect((await gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })).status).toBe(200)
    const refused = await gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })
    expect(refused.status).toBe(429)
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' })
    expect(refused.headers['x-ratelimit-limit-requests']).toBe(String(rpm))
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0')
    const retryAfter = Number(refused.headers['retry-after'])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    // Retry-After is never earlier than the real recovery: a millisecond before it, still refused.
    clock.advance(retryAfter * 1000 - 1)
    expect((await gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })).status).toBe(429)
    clock.advance(60_000)
    expect((await gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })).status).toBe(200)
  })

  it('are per organization and per model: another model, or another account, still has room', async () => {
    const gw = testGateway()
    const { rpm } = modelLimits('text', 0)
    for (let i = 0; i <= rpm; i += 1) await gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })
    expect((await gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })).status).toBe(429)
    expect(
      (await gw.call('/v1/embeddings', { key: 'tier0', method: 'POST', body: { model: 'gw-embed-1', input: 'hi' } }))
        .status,
    ).toBe(200)
    expect((await gw.call('/v1/chat/completions', { key: 'tier1', ...chat() })).status).toBe(200)
  })

  it('count requests per day too (1440 rate-limit minutes)', async () => {
    const clock = manualClock('2026-11-21T12:00:00Z')
    const gw = testGateway({ clock, minuteMs: 10 })
    const { rpm, rpd } = modelLimits('text', 0)
    let admitted = 0
    // Each "minute" admits rpm calls; after rpd calls the day is spent although minutes keep resetting.
    for (let minute = 0; minute * rpm <= rpd! + rpm; minute += 1) {
      for (let i = 0; i < rpm; i += 1)
        if ((await gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })).status === 200) admitted += 1
      clock.advance(10)
    }
    expect(admitted).toBe(rpd)
    clock.advance(10 * 1440)
    expect((await gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })).status).toBe(200)
  })

  it('count images per minute by n on image models', async () => {
    const gw = testGateway()
    const { ipm } = modelLimits('media', 1)
    const image = (n: number) => ({ method: 'POST' as const, body: { model: 'gw-image-1', prompt: 'a dot', n } })
    // n is at most 4 per request here; 49 images in thirteen calls leave room for one image, not two.
    expect(ipm).toBe(50)
    for (const n of [...Array<number>(12).fill(4), 1])
      expect((await gw.call('/v1/images/generations', { key: 'tier1', ...image(n) })).status).toBe(200)
    const over = await gw.call('/v1/images/generations', { key: 'tier1', ...image(2) })
    expect(over.status).toBe(429)
    expect(over.body.error.message).toMatch(/images per minute/)
  })

  it('admit exactly the limit when the calls arrive at once', async () => {
    const gw = testGateway()
    const { rpm } = modelLimits('text', 0)
    const results = await Promise.all(
      Array.from({ length: rpm * 3 }, () => gw.call('/v1/chat/completions', { key: 'tier0', ...chat() })),
    )
    expect(results.filter((r) => r.status === 200)).toHaveLength(rpm)
  })
})

describe('token limits (sections 4.1, 8.3)', () => {
  it('the project-scoped bucket throttles while the model token bucket still has room', async () => {
    const gw = testGateway()
    const project = projectTokensPerMinute(0)
    const { tpm } = modelLimits('text', 0)
    expect(project).toBeLessThan(tpm)
    const long = 'word '.repeat(3000)
    let last: CallResult | undefined
    for (let i = 0; i < 20; i += 1) {
      last = await gw.call('/v1/chat/completions', { key: 'tier0', ...chat(long, 16) })
      if (last.status === 429) break
      expect(last.headers['x-ratelimit-limit-project-tokens']).toBe(String(project))
      expect(last.headers['x-ratelimit-reset-project-tokens']).toMatch(/s$/)
    }
    expect(last!.status).toBe(429)
    expect(last!.body.error.message).toMatch(/project/)
    expect(last!.headers['x-ratelimit-remaining-project-tokens']).toBe('0')
    expect(Number(last!.headers['x-ratelimit-remaining-tokens'])).toBeGreaterThan(0)
  })

  it('project-token headers appear only on the routes with a project bucket', async () => {
    const gw = testGateway()
    const models = await gw.call('/v1/models')
    expect(models.headers['x-ratelimit-limit-project-tokens']).toBeUndefined()
    const embed = await gw.call('/v1/embeddings', { method: 'POST', body: { model: 'gw-embed-1', input: 'hi' } })
    expect(embed.headers['x-ratelimit-limit-project-tokens']).toBeUndefined()
  })
})

describe('pools (section 8.3: sibling aliases may share one)', () => {
  it('maps the moderation aliases to one pool and every other model to itself', () => {
    expect(poolOf('omni-moderation-latest')).toBe(poolOf('omni-moderation-2024-09-26'))
    expect(poolOf('gw-chat-mini')).toBe('gw-chat-mini')
  })
})

describe('tier upgrades through the admin route (section 8.2: immediate)', () => {
  const admin = { authorization: `Bearer ${ADMIN_KEY}` }

  it('refuses callers without the admin key, and API keys', async () => {
    const gw = testGateway()
    expect((await gw.call('/admin/accounts', { key: null })).status).toBe(401)
    expect((await gw.call('/admin/accounts')).status).toBe(401)
  })

  it('raises a tier: min_tier, limits and extra.rate_limits.current follow on the next call', async () => {
    const gw = testGateway()
    const before = await gw.call('/v1/chat/completions', {
      key: 'tier0',
      method: 'POST',
      body: { model: 'gw-chat-pro', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 },
    })
    expect(before.status).toBe(403)
    const raised = await gw.call('/admin/accounts/acct-tier0/tier', {
      key: null,
      method: 'POST',
      headers: admin,
      body: { tier: 3 },
    })
    expect(raised.body).toEqual({ id: 'acct-tier0', tier: 3 })
    const after = await gw.call('/v1/chat/completions', {
      key: 'tier0',
      method: 'POST',
      body: { model: 'gw-chat-pro', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 },
    })
    expect(after.status).toBe(200)
    expect(after.headers['x-ratelimit-limit-requests']).toBe(String(modelLimits('text', 3).rpm))
    const model = await gw.call('/v1/models/gw-chat-mini', { key: 'tier0' })
    expect(model.body.extra.rate_limits.current.tier).toBe(3)
    const credit = await gw.call('/user/v1/credit', { key: 'tier0' })
    expect(credit.body.account_tier).toBe(3)
    expect(credit.headers['x-ratelimit-limit-requests']).toBe('150')
  })

  it('refuses a tier outside 0..5 and an unknown account', async () => {
    const gw = testGateway()
    expect(
      (
        await gw.call('/admin/accounts/acct-tier0/tier', {
          key: null,
          method: 'POST',
          headers: admin,
          body: { tier: 6 },
        })
      ).status,
    ).toBe(400)
    expect(
      (await gw.call('/admin/accounts/nobody/tier', { key: null, method: 'POST', headers: admin, body: { tier: 1 } }))
        .status,
    ).toBe(404)
    const list = await gw.call('/admin/accounts', { key: null, headers: admin })
    expect(list.body.data.map((a: { id: string }) => a.id)).toContain('acct-tier5')
  })
})
