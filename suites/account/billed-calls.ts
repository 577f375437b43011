/**
 * The calls whose transactions the account suites look for (Part 1 §1.4, §2.2): model calls, which a transaction
 * describes with a model and a provider, kept small (a few output tokens, nothing stored). A failed one names a
 * model the target does not serve.
 */
import { expectSetup } from '../../harness/worker/assert.ts'
import { randomSuffix } from '../../harness/worker/helpers.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { CAPS, create, firstChat, modelsFixture } from '../responses/fixtures.ts'

export interface ModelCalls {
  /** The model asked for. */
  model: string
  /** A served call (a 2xx). */
  ok: Exchange
  /** Calls naming an unknown model: failures, whatever 4xx the target gives them. */
  failed: Exchange[]
}

const SMALL = { input: 'Say hi.', max_output_tokens: CAPS.cut, store: false } as const

/** One served responses call, to the first chat model the key may use, and `failures` failed ones. */
export async function modelCalls(api: TargetClient, key: KeySlot, failures: number): Promise<ModelCalls> {
  const { id } = await firstChat(modelsFixture(api))
  const ok = await create(api, { model: id, ...SMALL }, { key })
  expectSetup(ok, '2xx', 'a small responses call, the call whose transaction is looked for')
  const failed: Exchange[] = []
  for (let i = 0; i < failures; i += 1)
    failed.push(await create(api, { model: `gc-no-such-model-${randomSuffix()}`, ...SMALL }, { key }))
  return { model: id, ok, failed }
}
