/**
 * The run budget (harness/worker/budget.ts): reservations never pass GATEWAY_BUDGET_USD, even from parallel workers, and each
 * is settled by the one call it was made for.
 */
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, test } from 'vitest'
import {
  claimReservations,
  formatUsd,
  reserveSpend,
  settleReservations,
  tryReserve,
} from '../../../harness/worker/budget.ts'

describe('budget', () => {
  test('without a budget every estimate is granted', () => {
    const target = { runId: `budget-${randomUUID()}`, budgetUsd: null }
    expect(tryReserve(target, 1_000, 'a large bill')).toEqual({ ok: true, reservedUsd: 0 })
  })

  test('grants up to the budget exactly, then refuses and says how much is reserved', () => {
    const target = { runId: `budget-${randomUUID()}`, budgetUsd: 0.03 }
    // 0.01 three times: float sums would drift past 0.03; micro-dollars do not.
    expect(tryReserve(target, 0.01, 'one').ok).toBe(true)
    expect(tryReserve(target, 0.01, 'two').ok).toBe(true)
    expect(tryReserve(target, 0.01, 'three').ok).toBe(true)
    expect(tryReserve(target, 0.001, 'four')).toEqual({ ok: false, reservedUsd: 0.03 })
    expect(tryReserve(target, 0, 'free').ok).toBe(true)
  })

  test('a call refused with a 4xx releases what was reserved for it; any other answer, or none, keeps it', () => {
    const target = { runId: `budget-${randomUUID()}`, budgetUsd: 1 }
    claimReservations()
    reserveSpend(target, 0.6, 'a video that will be refused')
    const refused = claimReservations()
    expect(refused.map((r) => r.item.what)).toEqual(['a video that will be refused'])
    expect(claimReservations()).toEqual([])
    settleReservations(refused, 400)
    expect(refused[0]?.item.refused).toBe(400)
    // Released: the budget holds another 0.6 again.
    reserveSpend(target, 0.6, 'a video that starts')
    const started = claimReservations()
    for (const status of [200, 500, undefined]) settleReservations(started, status)
    expect(started[0]?.item.refused).toBeUndefined()
    expect(tryReserve(target, 0.5, 'one more').ok).toBe(false)
  })

  test('four flows in flight at once each claim only their own reservation, and a refusal releases only its own', async () => {
    const target = { runId: `budget-${randomUUID()}`, budgetUsd: 5 }
    // A call as the client makes one: claimed as it starts, settled by its answer later.
    const call = async (status: number) => {
      const claimed = claimReservations()
      await new Promise((resolve) => setImmediate(resolve))
      settleReservations(claimed, status)
      return claimed.map((r) => r.item.what)
    }
    const flow = async (i: number, status: number) => {
      for (let k = 0; k <= i; k += 1) await Promise.resolve() // the flows interleave, as creates in flight do
      reserveSpend(target, 1, `video ${i}`)
      return call(status)
    }
    const claimed = await Promise.all([flow(0, 200), flow(1, 400), flow(2, 200), flow(3, 200)])
    expect(claimed).toEqual([['video 0'], ['video 1'], ['video 2'], ['video 3']])
    // $3 stays reserved of $5 (the refused one was released): $2 more fits, and not a cent beyond.
    expect(tryReserve(target, 2, 'two more').ok).toBe(true)
    expect(tryReserve(target, 0.01, 'a cent more').ok).toBe(false)
  })

  test("a reservation no call claimed in its turn stays reserved, never handed to another flow's refused call", async () => {
    const target = { runId: `budget-${randomUUID()}`, budgetUsd: 1 }
    // Another flow of the worker, whose call starts in a continuation already queued.
    let other: string[] = ['not run']
    const otherFlow = (async () => {
      await Promise.resolve()
      const claimed = claimReservations()
      other = claimed.map((r) => r.item.what)
      settleReservations(claimed, 400)
    })()
    // This flow reserves for a create it sends another way (a raw socket, dropped): no call of the client claims it.
    reserveSpend(target, 0.6, 'an interrupted create')
    await otherFlow
    expect(other).toEqual([])
    // Nor a later call of this same flow, after an await.
    expect(claimReservations()).toEqual([])
    expect(tryReserve(target, 0.5, 'more than is left').ok).toBe(false)
  })

  test('rejects a nonsense estimate', () => {
    const target = { runId: `budget-${randomUUID()}`, budgetUsd: 1 }
    expect(() => tryReserve(target, Number.NaN, 'bad')).toThrow(/non-negative/)
    expect(() => tryReserve(target, -1, 'bad')).toThrow(/non-negative/)
  })

  test('four processes racing for 200 reservations of 1 cent against $1 get exactly 100', async () => {
    const runId = `budget-${randomUUID()}`
    const module = fileURLToPath(new URL('../../../harness/worker/budget.ts', import.meta.url))
    const script = `
      const { tryReserve } = await import(${JSON.stringify(module)})
      let granted = 0
      for (let i = 0; i < 50; i += 1) if (tryReserve({ runId: ${JSON.stringify(runId)}, budgetUsd: 1 }, 0.01, 'race').ok) granted += 1
      process.stdout.write(String(granted))`
    const run = () =>
      promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        timeout: 20_000,
      })
    const outputs = await Promise.all(Array.from({ length: 4 }, run))
    expect(outputs.reduce((sum, { stdout }) => sum + Number(stdout), 0)).toBe(100)
  })

  test('formats small amounts without rounding them to zero', () => {
    expect(formatUsd(0.001)).toBe('0.001')
    expect(formatUsd(1.5)).toBe('1.50')
  })
})
