/**
 * The measured side of a run's spend: the main key's remaining credit in US dollars
 * (`remaining_unit` of GET /user/v1/credit, Part 1 section 2.1), read before and after the run. Best
 * effort: a target without the usage endpoints, or one that fails, gives null and the summary says the
 * spend was not measured. The reads are exchanges of the run like any other: the reporter puts them in
 * exchanges.har, redacted the same way.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { isObject } from '../../common/json.ts'
import type { ExchangeExcerpt } from '../exchange.ts'
import { TargetFailure } from '../errors.ts'
import type { Exchange, TargetClient } from '../worker/http-client.ts'
import { retryAfterMs } from '../worker/retry.ts'

const CREDIT_DEFAULTS = {
  timeoutMs: 10_000, // one small GET; a target slower than this is not measured
  maxWaitMs: 61_000, // a run that spent the main key's usage limit (the tiers family does) waits one window for it
}

export interface CreditReading {
  /** remaining_unit in USD, or null where it could not be read. */
  usd: number | null
  /** Every call the reading made (two where the first met a 429). */
  exchanges: ExchangeExcerpt[]
}

export async function readRemainingUsd(client: TargetClient): Promise<CreditReading> {
  const exchanges: ExchangeExcerpt[] = []
  const first = await readOnce(client, exchanges)
  if (first !== 'limited') return { usd: first, exchanges }
  const second = await readOnce(client, exchanges)
  return { usd: second === 'limited' ? null : second, exchanges }
}

async function readOnce(client: TargetClient, exchanges: ExchangeExcerpt[]): Promise<number | null | 'limited'> {
  if (!client.hasKey('main')) return null
  let ex: Exchange
  try {
    ex = await client.get('/user/v1/credit', { retry429: false, timeoutMs: CREDIT_DEFAULTS.timeoutMs })
  } catch (error) {
    if (error instanceof TargetFailure) exchanges.push(error.excerpt)
    return null
  }
  exchanges.push(ex.excerpt)
  if (ex.status === 429) {
    // Retry-After is whole seconds (section 4.1); without it, a whole window.
    const waitMs = retryAfterMs(ex.header('retry-after'))
    await sleep(Math.min(CREDIT_DEFAULTS.maxWaitMs, waitMs === undefined ? CREDIT_DEFAULTS.maxWaitMs : waitMs + 100))
    return 'limited'
  }
  if (ex.status !== 200 || !isObject(ex.json)) return null
  const value = ex.json.remaining_unit
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}
