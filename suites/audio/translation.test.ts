/**
 * Translation (Part 2 §4.4): POST /v1/audio/translations with a WAV, the base transcription model and a prompt
 * returns English text. The other parameters are not shown, so only these are sent. The WAV is speech the target
 * made itself (calls.ts spoken()), so that a real model has words to translate.
 */
import { describe } from 'vitest'
import {
  expectRefused,
  expectStatus,
  expectSuccess,
  expectThat,
  notObserved,
  precondition,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { audioCalls, requirePresent, requireServed, MADE_FORMATS, TRANSLATION_MISSING } from './calls.ts'
import { answerText, isTextAnswer, TEXT_FILE } from './forms.ts'

const api = target()
const { models, form, spoken, madeFile } = audioCalls(api)

const translated = memo(async () =>
  form({
    endpoint: 'translations',
    fields: [
      ['model', await models.model('transcribe')],
      ['prompt', 'A short recorded greeting.'],
    ],
    ...(await spoken()),
  }),
)

describe('translation (§4.4)', () => {
  check('P2-4.4-translation', 'a WAV with the base model and a prompt answers 2xx with text', async () => {
    const ex = await translated()
    expectSuccess(ex)
    observe('translation content-type', ex.header('content-type') ?? '(none)')
    expectThat(isTextAnswer(ex), 'a JSON object, or a non-empty text body', ex.text.slice(0, 200), ex)
  })
  // §4.4 shows no shape: text is the member P2-4.3-json-text reads in a transcription.
  check('P2-4.4-translation-text', 'a JSON translation carries its text as text, a string', async () => {
    const ex = await translated()
    requireServed(ex, 'P2-4.4-translation', 'the translation')
    if (!isObject(ex.json)) notObserved('a JSON translation (the answer is a text body)')
    expectThat(answerText(ex) !== undefined, 'text, a string', ex.text.slice(0, 200), ex)
  })

  // §4.4: "same formats" as transcription; the files are the target's own speech in each.
  check('P2-4.4-translation', 'FLAC, MP3 (.mp3, .mpga, .mpeg) and Ogg Opus files are translated', async () => {
    for (const [format, ext, type] of MADE_FORMATS) {
      const ex = await form({
        endpoint: 'translations',
        fields: [['model', await models.model('transcribe')]],
        file: await madeFile(format, ext, type),
      })
      requirePresent(ex, TRANSLATION_MISSING)
      expectSuccess(ex, `a .${ext} file of the transcription formats`)
    }
  })

  check('P2-4.4-english', 'the translation is English text', async () => {
    const ex = await translated()
    requireServed(ex, 'P2-4.4-translation', 'the translation')
    const text = answerText(ex)
    precondition(text !== undefined, 'P2-4.4-translation-text', 'the translation has no text')
    expectThat(
      text.trim() !== '' && /^[A-Za-z0-9\s.,;:!?'"()-]+$/.test(text),
      'non-empty text in Latin letters, digits and punctuation',
      JSON.stringify(text.slice(0, 200)),
      ex,
    )
  })

  check('P2-4.4-required', 'a translation without file or without model is refused with 400', async () => {
    const withoutFile = form({
      endpoint: 'translations',
      fields: [['model', await models.model('transcribe')]],
      file: null,
    })
    const withoutModel = form({ endpoint: 'translations', fields: [['prompt', 'A greeting.']] })
    for (const [ex, why] of [
      [await withoutFile, 'file is required'],
      [await withoutModel, 'model is required'],
    ] as const) {
      requirePresent(ex, TRANSLATION_MISSING)
      expectStatus(ex, 400, why)
    }
  })

  // 415 (unsupported media type) is as plain a refusal of a file in no listed format as 400.
  check('P2-4.4-file-format-unknown', 'a .txt file of text is refused with 400 or 415', async () => {
    const ex = await form({
      endpoint: 'translations',
      fields: [['model', await models.model('transcribe')]],
      file: TEXT_FILE,
    })
    precondition(ex.status !== 404, TRANSLATION_MISSING.requirementId, `${TRANSLATION_MISSING.what} answered 404`)
    observe('translation of a .txt file', `answered ${ex.status}`)
    expectRefused(ex, 'text is not audio of §4.4')
  })
})
