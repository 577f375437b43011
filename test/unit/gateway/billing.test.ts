/** Charging billable calls (gateway/account/billing.ts) against per-gateway copies of the seeded accounts. */
import { describe, expect, test } from 'vitest'
import { AccountDirectory, EXCHANGE_RATE, SEEDED_KEYS } from '../../../gateway/account/accounts.ts'
import { chargeUsd, remainingUsd } from '../../../gateway/account/billing.ts'

describe('billing', () => {
  test('a charge lowers the remaining credit by its price, grants first', () => {
    const account = new AccountDirectory().main()
    const before = remainingUsd(account)
    const grantBefore = account.grants[0]!.remainingIrt
    const charge = chargeUsd(account, 0.25)
    expect(charge.irt).toBeCloseTo(0.25 * EXCHANGE_RATE, 6)
    expect(remainingUsd(account)).toBeCloseTo(before - 0.25, 9)
    expect(account.grants[0]!.remainingIrt).toBeCloseTo(grantBefore - 0.25 * EXCHANGE_RATE, 6)
  })

  test('a charge beyond the credit takes what is left and no more', () => {
    const account = new AccountDirectory().main()
    const all = remainingUsd(account)
    expect(chargeUsd(account, all + 100).irt).toBeCloseTo(all * EXCHANGE_RATE, 3)
    expect(remainingUsd(account)).toBe(0)
  })

  test('each gateway has its own accounts: charging or raising a tier in one leaves the seeds alone', () => {
    const one = new AccountDirectory()
    const two = new AccountDirectory()
    chargeUsd(one.main(), 1)
    one.main().tier = 5
    expect(two.main().tier).toBe(2)
    expect(remainingUsd(two.main())).toBeCloseTo(remainingUsd(one.main()) + 1, 9)
    expect(one.byKey(SEEDED_KEYS.main)).toBe(one.main())
  })

  test('refuses a nonsense price', () => {
    expect(() => chargeUsd(new AccountDirectory().main(), -1)).toThrow(/non-negative/)
  })
})
