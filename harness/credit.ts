/**
 * The measured side of a run's spend (issue: cost): the main key's remaining credit in US dollars
 * (`remaining_unit` of GET /user/v1/credit, Part 1 section 2.1), read before and after the run. Best
 * effort: a target without the usage endpoints, or one that fails, gives null and the summary says the
 * spend was not measured. The key goes in the Authorization header only.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import type { TargetConfig } from './config.ts'

export const CREDIT_DEFAULTS = {
  timeoutMs: 10_000, // one small GET; a target slower than this is not measured
  maxWaitMs: 61_000, // a run that spent the main key's usage limit (the tiers family does) waits one window for it
}

export async function readRemainingUsd(target: TargetConfig): Promise<number | null> {
  const first = await readOnce(target)
  if (first !== 'limited') return first
  // Retry-After is whole seconds (section 4.1); without it, a whole window.
  const second = await readOnce(target)
  return second === 'limited' ? null : second
}

async function readOnce(target: TargetConfig): Promise<number | null | 'limited'> {
  const key = target.keys.main
  if (key === undefined) return null
  try {
    const response = await request(new URL('/user/v1/credit', target.baseUrl), {
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      headersTimeout: CREDIT_DEFAULTS.timeoutMs,
      bodyTimeout: CREDIT_DEFAULTS.timeoutMs,
    })
    const text = await response.body.text()
    if (response.statusCode === 429) {
      const seconds = Number(response.headers['retry-after'])
      await sleep(Math.min(CREDIT_DEFAULTS.maxWaitMs, Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 + 100 : CREDIT_DEFAULTS.maxWaitMs))
      return 'limited'
    }
    if (response.statusCode !== 200) return null
    const value = (JSON.parse(text) as { remaining_unit?: unknown }).remaining_unit
    return typeof value === 'number' && Number.isFinite(value) ? value : null
  } catch {
    return null
  }
}
