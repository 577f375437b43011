/** What every call's hot path shares: one clock reading per response, ids as independent strings, shared zero counts. */
import { describe, expect, it } from 'vitest'
import type { Clock } from '../../../gateway/clock.ts'
import { NO_TOKENS } from '../../../gateway/context.ts'
import { formatUuid7 } from '../../../gateway/uuid7.ts'
import { testGateway } from './helpers.ts'

/** A clock that moves on by `stepMs` at every reading, so that two readings of one response never agree. */
function tickingClock(start: string, stepMs: number): Clock {
  let now = Date.parse(start)
  return {
    now: () => {
      now += stepMs
      return now
    },
  }
}

describe('the steps that finish a response', () => {
  it('read the clock once: the Date header and the record agree on the second', async () => {
    const gw = testGateway({ clock: tickingClock('2026-09-01T00:00:00.000Z', 350) })
    for (let i = 0; i < 10; i += 1) {
      const response = await gw.call('/v1/models')
      expect(response.status).toBe(200)
      const record = gw.state.transactions.findById(response.id)?.record
      const dateSecond = Date.parse(String(response.headers.date))
      expect(Math.floor(Date.parse(String(record?.created_at)) / 1000) * 1000).toBe(dateSecond)
    }
  })

  it('record a call that consumed nothing with the shared zero counts, which nothing can change', async () => {
    const gw = testGateway()
    const response = await gw.call('/v1/models')
    expect(gw.state.transactions.findById(response.id)?.record.tokens).toEqual({
      total: 0,
      prompt: 0,
      completion: 0,
      reasoning: 0,
      cached: 0,
    })
    expect(Object.isFrozen(NO_TOKENS)).toBe(true)
  })
})

describe('UUID v7 text', () => {
  it('is a string of its own: formatting the next id leaves it as it was', () => {
    const first = formatUuid7(0x0123456789ab, 0xcde, new Uint8Array([0xff, 1, 2, 3, 4, 5, 6, 7]))
    const second = formatUuid7(0xba9876543210, 0x123, new Uint8Array([0, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32]))
    expect(first).toBe('01234567-89ab-7cde-bf01-020304050607')
    expect(second).toBe('ba987654-3210-7123-80fe-dcba98765432')
  })
})
