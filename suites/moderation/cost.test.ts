/**
 * The four named moderation models are free (Part 2 §4.7): calls to them leave the remaining credit of GET
 * /user/v1/credit (Part 1 §2.1) unchanged. The credit is read before the calls and then until the settle bound
 * (GATEWAY_SETTLE_MS) passes or a charge shows. It is the tier-1 account's where the run has its key (the main
 * account pays for the rest of the run, the guard model of this family included), and a round that sees a change is
 * tried once more: another call charged to the same account at the same moment must not make a correct target
 * fail, while a target that charges the free models fails every round.
 */
import { describe } from 'vitest'
import { fail, precondition } from '../../harness/worker/assert.ts'
import type { KeySlot } from '../../harness/setup/config.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { is2xx } from '../shared/status.ts'
import { CREDIT_SETTLE, remainingCredit, settledCredit } from '../shared/credit.ts'
import { BENIGN_TEXT, moderate, NAMED_MODELS } from './fixtures.ts'

const api = target()

/** The account whose credit is read (see the file comment). */
const LEDGER: KeySlot = (['tier1', 'main'] as const).find((slot) => api.hasKey(slot)) ?? 'main'

const ROUNDS = 2
/** A difference of credit this small is rounding (remaining_unit has six decimals in the reference gateway). */
const EPSILON_USD = 0.000_01
/** The calls of a round besides its wait for charges to settle. */
const ROUND_MARGIN_MS = 30_000

/** One text to each named model with the ledger's key; a model that key may not use (403) is left out. */
async function callNamedModels(): Promise<string[]> {
  const called: string[] = []
  const forbidden: string[] = []
  for (const model of NAMED_MODELS) {
    const ex = await moderate(api, { model, input: BENIGN_TEXT }, { key: LEDGER })
    if (ex.status === 403) {
      forbidden.push(model)
      continue
    }
    precondition(is2xx(ex.status), 'P2-4.7-named-models', `${model} answered ${ex.status} to a text (${LEDGER} key)`)
    called.push(model)
  }
  if (forbidden.length > 0)
    observe('named moderation models not used for the credit check', `${forbidden.join(', ')} answered ${LEDGER} 403`)
  if (called.length === 0) skipTest(`every named moderation model answered the ${LEDGER} key 403 (above its tier)`)
  return called
}

describe('the named models are free (Part 2 §4.7)', () => {
  check(
    'P2-4.7-named-models-no-charge',
    'calls to the four named models leave the remaining credit unchanged',
    async () => {
      const probe = await api.get('/user/v1/credit', { key: LEDGER })
      precondition(probe.status === 200, 'P1-2.1-credit-record', `GET /user/v1/credit answered ${probe.status}`)
      const deltas: string[] = []
      let last: Exchange | undefined
      for (let round = 1; round <= ROUNDS; round += 1) {
        const before = await remainingCredit(api, LEDGER)
        const called = await callNamedModels()
        const after = await settledCredit(api, LEDGER, (usd) => usd < before.usd - EPSILON_USD)
        if (!after.settled) return // no charge showed within the settle bound
        deltas.push(`round ${round}: ${before.usd.toFixed(6)} -> ${after.usd.toFixed(6)} after ${called.join(', ')}`)
        last = after.ex
      }
      fail(
        `remaining credit of the ${LEDGER} account unchanged, read for ${CREDIT_SETTLE.timeoutMs} ms after calls to the free named models (in one of ${ROUNDS} rounds)`,
        deltas,
        last,
      )
    },
    { timeout: (ROUNDS + 1) * (CREDIT_SETTLE.timeoutMs + ROUND_MARGIN_MS) },
  )
})
