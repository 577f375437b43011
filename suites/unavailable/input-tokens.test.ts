/** Token counting, announced and unavailable (Part 1 §4.6, §7): judged only where the target offers it. */
import { describe } from 'vitest'
import { expectSchema, expectSuccess, expectThat } from '../../harness/worker/assert.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { catalogueFixture, modelFor } from '../chat/fixtures.ts'
import { bodyOf, requireOffered } from './planned.ts'

const api = target()
const catalogue = catalogueFixture(api)
const PATH = '/v1/responses/input_tokens'

const SHORT = 'Hello, gateway.'
const LONG =
  'Hello, gateway. Please count every one of these words, and the punctuation too, before answering anything at all.'

const count = (input: string) =>
  memo(async () => {
    const model = await modelFor(catalogue, 'chat')
    return api.post(PATH, { model: model.id, input })
  })
const short = count(SHORT)
const long = count(LONG)

describe('token counting (Part 1 §4.6)', () => {
  check(
    'P1-4.6-input-tokens',
    'where offered, the count is { input_tokens: integer }, larger for a longer input',
    async () => {
      const ex = await short()
      requireOffered(ex, 'token counting')
      expectSchema(ex, 'unavailable/input-tokens.json', bodyOf(ex))
      const more = await long()
      expectSuccess(more)
      expectSchema(more, 'unavailable/input-tokens.json', bodyOf(more))
      const [a, b] = [bodyOf(ex).input_tokens as number, bodyOf(more).input_tokens as number]
      expectThat(b > a, `more input_tokens for the longer input than the ${a} of the shorter`, `${b}`, more)
    },
  )
})
