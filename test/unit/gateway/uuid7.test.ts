/** UUID v7 as svc-request-id (Part 1 sections 1.4, 4.1; RFC 9562 section 5.7). */
import { describe, expect, it } from 'vitest'
import { createUuid7Generator, formatUuid7, uuid7Timestamp } from '../../../gateway/uuid7.ts'
import { manualClock, UUID_V7 } from './helpers.ts'

describe('UUID v7 (section 4.1)', () => {
  it('sets version 7 and variant 10', () => {
    const next = createUuid7Generator(manualClock('2026-09-01T00:00:00Z'))
    for (let i = 0; i < 1000; i += 1) {
      const id = next()
      expect(id).toMatch(UUID_V7)
      expect(id[14]).toBe('7')
      expect('89ab').toContain(id[19])
    }
  })

  it('carries the gateway clock in the 48-bit timestamp', () => {
    const clock = manualClock('2026-09-01T12:34:56.789Z')
    const next = createUuid7Generator(clock)
    expect(uuid7Timestamp(next())).toBe(Date.parse('2026-09-01T12:34:56.789Z'))
    clock.advance(1234)
    expect(uuid7Timestamp(next())).toBe(Date.parse('2026-09-01T12:34:58.023Z'))
  })

  it('lays out the fields big-endian', () => {
    const id = formatUuid7(0x0123456789ab, 0xcde, new Uint8Array([0xff, 1, 2, 3, 4, 5, 6, 7]))
    expect(id).toBe('01234567-89ab-7cde-bf01-020304050607')
  })

  it('is strictly increasing within one millisecond and across counter overflow', () => {
    const next = createUuid7Generator(manualClock('2026-09-01T00:00:00Z'))
    const ids = Array.from({ length: 10_000 }, () => next())
    for (let i = 1; i < ids.length; i += 1) expect(ids[i]! > ids[i - 1]!).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    // 10,000 ids cannot fit one millisecond's 12-bit counter: the timestamp moved on, by a few ms only.
    const spread = uuid7Timestamp(ids.at(-1)!) - uuid7Timestamp(ids[0]!)
    expect(spread).toBeGreaterThan(0)
    expect(spread).toBeLessThan(10)
  })

  it('stays increasing when the clock steps backwards', () => {
    const clock = manualClock('2026-09-01T00:00:01Z')
    const next = createUuid7Generator(clock)
    const before = next()
    clock.advance(-500)
    expect(next() > before).toBe(true)
  })
})
