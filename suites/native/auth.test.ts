/** Keys on the native interface (Part 2 §5.1, §5.2): Bearer and x-native-api-key both accepted, none refused. */
import { describe } from 'vitest'
import { expectStatus, expectThat } from '../../harness/worker/assert.ts'
import { check, target, spend } from '../../harness/worker/suite.ts'
import { generatePath, nativeKeySpec, nativeModels, nativeStream, textBody, textCostUsd } from './fixtures.ts'
import { chunksOf } from './streams.ts'

const api = target()
const models = nativeModels(api)

describe('a key is required (Part 2 §5.1)', () => {
  check('P2-5.1-native-key-required', 'generateContent without a key is refused with 401', async () => {
    const model = await models.generation()
    expectStatus(await api.post(generatePath(model.id), textBody(), { key: null }), 401)
  })
  check('P2-5.1-native-key-required', 'generateContent with an unknown Bearer key is refused with 401', async () => {
    const model = await models.generation()
    expectStatus(await api.post(generatePath(model.id), textBody(), { key: 'invalid' }), 401)
  })
  check(
    'P2-5.1-native-key-required',
    'generateContent with an unknown key in x-native-api-key is refused with 401',
    async () => {
      const model = await models.generation()
      expectStatus(await api.post(generatePath(model.id), textBody(), nativeKeySpec(api, 'invalid')), 401)
    },
  )
})

describe('Bearer and x-native-api-key (§5.1, §5.2)', () => {
  check('P2-5.1-native-bearer', 'generateContent accepts Authorization: Bearer', async () => {
    const model = await models.generation()
    spend(textCostUsd(model, textBody()), `native generateContent with ${model.id}`)
    const ex = await api.post(generatePath(model.id), textBody())
    // Not expectStatus: a 401 here is this requirement's failure, not a reason to skip.
    expectThat(ex.status === 200, 'status 200 with the key as Authorization: Bearer', String(ex.status), ex)
  })
  check('P2-5.2-native-key-header', 'generateContent accepts the key in x-native-api-key', async () => {
    const model = await models.generation()
    spend(textCostUsd(model, textBody()), `native generateContent with ${model.id}`)
    expectStatus(await api.post(generatePath(model.id), textBody(), nativeKeySpec(api)), 200)
  })
  check('P2-5.2-native-key-header', 'streamGenerateContent accepts the key in x-native-api-key', async () => {
    const model = await models.generation()
    spend(textCostUsd(model, textBody()), `native streamGenerateContent with ${model.id}`)
    const ex = await nativeStream(api, model.id, textBody(), {}, nativeKeySpec(api))
    expectStatus(ex, 200)
    expectThat(chunksOf(ex, 'default, x-native-api-key').chunks.length > 0, 'at least one chunk', 'none', ex)
  })
})
