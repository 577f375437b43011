/**
 * Seeded accounts and keys. The keys are fixed strings so that .env.example, the README and every
 * run agree; they unlock nothing but this in-memory simulator.
 */
import keyVariables from '../../schemas/config/key-variables.json' with { type: 'json' }
import type { Tier } from '../limit-tables.ts'
import { SetupError } from '../errors.ts'

export interface ApiKey {
  readonly value: string
  /** The integer the transaction list filters on (api_key_id). */
  readonly id: number
  readonly name: string
}

export interface CreditGrant {
  readonly id: string
  readonly description: string
  readonly amountIrt: number
  /** Mutable: billable calls debit it (billing.ts). */
  remainingIrt: number
  readonly endDate: string
  readonly scopeDetails: Readonly<Record<string, readonly string[]>>
}

export interface CreditPackage extends CreditGrant {
  readonly templateId: string
  readonly name: string
}

export interface Account {
  readonly id: string
  /** Mutable: upgrades are immediate (Part 1 section 8.2), and the admin route raises it in tests. */
  tier: Tier
  readonly suspended: boolean
  readonly key: ApiKey
  readonly grants: readonly CreditGrant[]
  readonly packages: readonly CreditPackage[]
}

/** IRT per US dollar; an integer, as section 2.1 requires. */
export const EXCHANGE_RATE = 612_345

export interface SeededKeys {
  /** The tier-2 key, the one suites use unless they test a tier. */
  readonly main: string
  readonly tier0: string
  readonly tier1: string
  readonly tier2: string
  readonly tier3: string
  readonly tier4: string
  readonly tier5: string
  readonly suspended: string
  /** A second key of the main (tier-2) account: an organization's keys share its model limits (section 8.3). */
  readonly second: string
}

/** The environment variable (docs/configuration.md) that carries each seeded key. */
export const SEEDED_KEY_ENV: Readonly<Record<keyof SeededKeys, string>> = keyVariables.keys

const KEY_VALUES = {
  tier0: 'sk-ref-t0-e3e73acfd1337d3ced0eed18',
  tier1: 'sk-ref-t1-5d4c6622416692a3c60b9c52',
  tier2: 'sk-ref-t2-4893a9132069bf4d160809cc',
  tier3: 'sk-ref-t3-4b0111da712b7b6a171161a7',
  tier4: 'sk-ref-t4-879de9adfedf5921184c6aaa',
  tier5: 'sk-ref-t5-0a0085bd0744c15abba22f19',
  suspended: 'sk-ref-suspended-49549223a4d650a063f4bece',
  second: 'sk-ref-t2-second-8c61f0d2b7a94e35d1a6',
} as const

/** The key of the admin routes (../admin.ts); it belongs to no account and is refused everywhere else. */
export const ADMIN_KEY = 'sk-ref-admin-7f3c2a9e41d86b05c3e1'

export const SEEDED_KEYS: SeededKeys = { main: KEY_VALUES.tier2, ...KEY_VALUES }

/** The testing grant every seeded account holds, in US dollars: a full run costs tens of dollars here. */
const TESTING_GRANT_USD = 10_000

/** Top-ups that qualify each tier (Part 1 section 8.2), in US dollars. */
const TOP_UP_USD: Readonly<Record<Tier, number>> = { 0: 0, 1: 0, 2: 10, 3: 50, 4: 250, 5: 1000 }

/** Signup credit in IRT (section 8.2: 25,000 Tomans at tier 0, 200,000 Tomans from tier 1; 1 Toman = 10 IRT). */
function signupGrantIrt(tier: Tier): number {
  return tier === 0 ? 250_000 : 2_000_000
}

function seedAccount(id: string, tier: Tier, suspended: boolean, key: ApiKey): Account {
  const grantIrt = signupGrantIrt(tier)
  // Tiers 0 and 1 qualify without a top-up; their package is a small welcome pack so that every
  // account shows both source kinds of section 2.1.
  const packageIrt = TOP_UP_USD[tier] > 0 ? TOP_UP_USD[tier] * EXCHANGE_RATE : 100_000
  return {
    id,
    tier,
    suspended,
    key,
    grants: [
      {
        id: `grant-${id}-signup`,
        description: 'Signup credit',
        amountIrt: grantIrt,
        remainingIrt: grantIrt * 0.8,
        endDate: '2027-03-21T00:00:00Z',
        scopeDetails: { api: ['gw-chat-mini', 'gw-embed-1'] },
      },
      {
        // Enough for many whole conformance runs: an account that runs dry mid-run would hide what the calls
        // after it cost, and the cost checks of a later family would see no drop at all.
        id: `grant-${id}-testing`,
        description: 'Testing credit',
        amountIrt: TESTING_GRANT_USD * EXCHANGE_RATE,
        remainingIrt: TESTING_GRANT_USD * EXCHANGE_RATE,
        endDate: '2027-03-21T00:00:00Z',
        scopeDetails: { api: ['gw-chat', 'gw-chat-mini'] },
      },
    ],
    packages: [
      {
        id: `package-${id}-1`,
        templateId: TOP_UP_USD[tier] > 0 ? 'tpl-top-up' : 'tpl-welcome',
        name: TOP_UP_USD[tier] > 0 ? `Top-up ${TOP_UP_USD[tier]} USD` : 'Welcome pack',
        description: 'Credit for the general chat models',
        amountIrt: packageIrt,
        remainingIrt: packageIrt / 2,
        endDate: '2027-09-23T00:00:00Z',
        scopeDetails: { api: ['gw-chat', 'gw-reasoner', 'gw-chat-pro'] },
      },
    ],
  }
}

export const ACCOUNTS: readonly Account[] = [
  ...([0, 1, 2, 3, 4, 5] as const).map((tier) =>
    seedAccount(`acct-tier${tier}`, tier, false, {
      value: KEY_VALUES[`tier${tier}`],
      id: 1000 + tier,
      name: `tier-${tier}`,
    }),
  ),
  seedAccount('acct-suspended', 1, true, { value: KEY_VALUES.suspended, id: 1099, name: 'suspended' }),
]

export class AccountDirectory {
  readonly #byKey: ReadonlyMap<string, Account>
  readonly #byId: ReadonlyMap<string, Account>
  /** This gateway's own copies: tiers and balances change per instance, never in the seeds. */
  readonly accounts: readonly Account[]

  /**
   * `aliases` maps further key values to seeded ones (self-tests run with keys of their own choosing, e.g. a
   * canary that must never reach a report); an alias whose target is not a seeded key is an error.
   */
  constructor(seeds: readonly Account[] = ACCOUNTS, aliases: Readonly<Record<string, string>> = {}) {
    this.accounts = seeds.map((seed) => structuredClone(seed))
    const byKey = new Map(this.accounts.map((account) => [account.key.value, account]))
    // The main account's second key, where that account is seeded.
    const second = byKey.has(KEY_VALUES.tier2) ? { [KEY_VALUES.second]: KEY_VALUES.tier2 } : {}
    for (const [alias, seeded] of Object.entries({ ...second, ...aliases })) {
      const account = byKey.get(seeded)
      if (account === undefined) throw new SetupError('INTERNAL', 'a key alias must point at a seeded key')
      byKey.set(alias, account)
    }
    this.#byKey = byKey
    this.#byId = new Map(this.accounts.map((account) => [account.id, account]))
  }

  byId(id: string): Account | undefined {
    return this.#byId.get(id)
  }

  byKey(value: string): Account | undefined {
    return this.#byKey.get(value)
  }

  /** The account behind the main key (tier 2). */
  main(): Account {
    const account = this.byKey(SEEDED_KEYS.main)
    if (!account) throw new SetupError('INTERNAL', 'the main key is not seeded')
    return account
  }
}
