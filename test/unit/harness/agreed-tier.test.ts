/**
 * The tiers family judges a key's limits at its slot's tier only when the target's own report agrees: a wrong
 * extra.rate_limits.current then fails P1-2.3-rate-limits-current-per-tier alone, not every limit judged with it.
 */
import { describe, expect, test } from 'vitest'
import { agreedTier } from '../../../suites/tiers/buckets.ts'

describe('agreedTier', () => {
  test('the slot and the report agree: the tier', () => {
    expect(agreedTier('tier0', 0)).toBe(0)
    expect(agreedTier('tier5', 5)).toBe(5)
  })

  test('they differ: a skip that names the requirement, the variable and both readings', () => {
    const reason = agreedTier('tier0', 2)
    expect(reason).toEqual(expect.stringContaining('needs P1-2.3-rate-limits-current-per-tier'))
    expect(reason).toEqual(expect.stringContaining('reports tier 2 for the key of GATEWAY_API_KEY_TIER0'))
    expect(reason).toEqual(expect.stringContaining('tier-0 account'))
  })

  test('no report: a skip that says so', () => {
    expect(agreedTier('tier3', undefined)).toEqual(expect.stringContaining('gives no tier'))
  })
})
