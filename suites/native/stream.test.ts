/** streamGenerateContent (Part 2 §4.8): chunks shaped like §2.5, finishReason on the last. */
import { describe } from 'vitest'
import { expectEach, expectSuccess, expectThat, notObserved } from '../../harness/worker/assert.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { check, target, spend } from '../../harness/worker/suite.ts'
import { nativeModels, nativeStream, textCostUsd, withRoomForText } from './fixtures.ts'
import { chunksOf, finishOf } from './streams.ts'

const api = target()
const models = nativeModels(api)

/** Both ways to ask: the target's default framing, and ?alt=sse (the provider's own switch to SSE). */
const FRAMINGS = { default: {}, 'alt=sse': { alt: 'sse' } } as const

const streamed = Object.fromEntries(
  Object.entries(FRAMINGS).map(([name, query]) => [
    name,
    memo(async () => {
      const model = await models.generation()
      // No temperature: the rule is not about it, and a model that takes only its default would refuse one. Room
      // for text, so that a thinking model's chunks are not cut before any text by the test's own cap.
      const { ex } = await withRoomForText((body) => {
        spend(textCostUsd(model, body), `native streamGenerateContent with ${model.id}`)
        return nativeStream(api, model.id, body, { ...query })
      })
      // Part 2 never names alt: the provider's switch is tried and recorded, and judged only where it is served.
      if (name !== 'default' && (ex.status < 200 || ex.status >= 300)) {
        observe('native stream ?alt=sse', `answered ${ex.status}`)
        notObserved(`a 2xx answer to ?alt=sse (answered ${ex.status}; Part 2 never names alt)`)
      }
      expectSuccess(ex)
      return { ex, ...chunksOf(ex, name) }
    }),
  ]),
)

describe('streamGenerateContent (Part 2 §4.8)', () => {
  for (const [name, stream] of Object.entries(streamed)) {
    check('P2-4.8-stream-chunks', `streamed in chunks (${name}), each shaped like §2.5`, async () => {
      const { ex, chunks } = await stream()
      expectThat(chunks.length > 0, 'at least one chunk', 'none', ex)
      expectEach(ex, 'native/stream-chunk.json', chunks, '/chunks')
    })

    check('P2-4.8-stream-last-finish', `the last chunk carries finishReason (${name})`, async () => {
      const { ex, chunks } = await stream()
      expectThat(chunks.length > 0, 'at least one chunk', 'none', ex)
      const finish = finishOf(chunks[chunks.length - 1])
      expectThat(
        typeof finish === 'string' && finish !== '',
        'candidates[0].finishReason on the last chunk',
        `finishReason ${JSON.stringify(finish)}`,
        ex,
      )
    })

    check('P2-4.8-stream-finish-only-last', `no chunk before the last carries finishReason (${name})`, async () => {
      const { ex, chunks } = await stream()
      const early = chunks
        .slice(0, -1)
        .flatMap((chunk, i) =>
          finishOf(chunk) === undefined
            ? []
            : [`chunk ${i} of ${chunks.length}: finishReason ${JSON.stringify(finishOf(chunk))}`],
        )
      expectThat(early.length === 0, 'finishReason only on the last chunk', early, ex)
    })
  }
})
