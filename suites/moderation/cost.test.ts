/**
 * The four named moderation models are free (Part 2 §4.7): calls to them leave the remaining credit of GET
 * /user/v1/credit (Part 1 §2.1) unchanged. remaining_irt is read (remaining_unit also moves with the exchange rate),
 * before the calls and then until the settle bound (GATEWAY_SETTLE_MS) passes or a charge shows. Nothing else may
 * charge the account meanwhile, or a correct target would fail: this file runs in a sequence group of its own,
 * after every other family (vitest.config.ts, conformance-ledger), with the tier-1 key where the run has it, and
 * first waits the settle bound so that the charges of the calls before it have shown.
 */
import { describe } from 'vitest'
import { fail, is2xx, precondition } from '../../harness/worker/assert.ts'
import type { KeySlot } from '../../harness/keys.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { CREDIT_SETTLE, remainingIrt, settledReading } from '../shared/credit.ts'
import { BENIGN_TEXT, moderate, NAMED_MODELS } from './fixtures.ts'

const api = target()

/** The account whose credit is read (see the file comment). */
const LEDGER: KeySlot = (['tier1', 'main'] as const).find((slot) => api.hasKey(slot)) ?? 'main'

/** A difference of credit this small is rounding of a sum, not a charge. */
const EPSILON_IRT = 0.01
/** The calls besides the wait for charges to settle: a 429 on the way is waited out (Retry-After, backoff). */
const CALLS_MARGIN_MS = 120_000

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
    precondition(is2xx(ex), 'P2-4.7-named-models', `${model} answered ${ex.status} to a text (${LEDGER} key)`)
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
      // Charges of the calls made before this group may take up to the settle bound to show: wait them out first.
      await new Promise((resolve) => setTimeout(resolve, CREDIT_SETTLE.timeoutMs))
      const before = await remainingIrt(api, LEDGER)
      const called = await callNamedModels()
      const after = await settledReading(
        () => remainingIrt(api, LEDGER),
        (reading) => reading.irt < before.irt - EPSILON_IRT,
      )
      if (!after.settled) return // no charge showed within the settle bound
      fail(
        `remaining_irt of the ${LEDGER} account unchanged, read for ${CREDIT_SETTLE.timeoutMs} ms after calls to the free named models`,
        `${before.irt} -> ${after.irt} after ${called.join(', ')}`,
        after.ex,
      )
    },
    { timeout: 2 * CREDIT_SETTLE.timeoutMs + CALLS_MARGIN_MS },
  )
})
