/**
 * The OCR result, its model and alias, the document forms and the key (Part 2 sections 2.3, 4.6, 5). The URL forms
 * name public files the target must fetch; a target that says it could not fetch one is skipped, naming the URL.
 */
import { describe } from 'vitest'
import { expectSchema, expectStatus, expectSuccess, expectThat } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import {
  basic,
  howToNameAlias,
  howToNameOcrModel,
  IMAGE_DOCUMENT,
  isOcrAnswer,
  keylessModels,
  needDataUrl,
  ocr,
  skipOnFetchFailure,
  testModels,
  URL_DOCUMENT,
} from './documents.ts'

const api = target()

describe('the OCR result (Part 2 §2.3)', () => {
  check('P2-2.3-ocr-result', 'an OCR answer has pages of index and markdown, model and object', async () => {
    await needDataUrl()
    const ex = await basic()
    expectSchema(ex, 'ocr/result.json')
    const body = ex.json as Record<string, unknown>
    observe(
      'OCR result',
      `object "${String(body.object)}"; fields ${Object.keys(body).sort().join(', ')}; page fields ${Object.keys(
        (body.pages as object[])[0] ?? {},
      )
        .sort()
        .join(', ')}; document_annotation without a format: ${JSON.stringify(body.document_annotation)}`,
    )
  })
})

describe('required fields (Part 2 §4.6)', () => {
  check('P2-4.6-ocr-required-fields', 'a body without model, or without document, is refused with 400', async () => {
    await needDataUrl()
    const models = await testModels()
    expectStatus(await ocr(api, models, { model: null }), 400, 'model is required')
    expectStatus(await ocr(api, models, { document: null }), 400, 'document is required')
  })
})

describe('document forms (Part 2 §4.6)', () => {
  check(
    'P2-4.6-ocr-data-url',
    'a PDF as a Base64 data URL in document_url is answered with an OCR result',
    async () => {
      const ex = await basic()
      expectSuccess(ex, 'a PDF as a data URL')
      expectThat(isOcrAnswer(ex), 'an object with a pages array', 'another body', ex)
    },
  )

  check('P2-4.6-ocr-document-url', 'an https URL of a PDF in document_url is answered with an OCR result', async () => {
    const ex = await ocr(api, await testModels(), { document: URL_DOCUMENT })
    await skipOnFetchFailure(ex, URL_DOCUMENT.document_url)
    expectSuccess(ex, 'a PDF by https URL')
    expectThat(isOcrAnswer(ex), 'an object with a pages array', 'another body', ex)
  })

  check('P2-4.6-ocr-image-url', 'a document of type image_url is answered with an OCR result', async () => {
    const ex = await ocr(api, await testModels(), { document: IMAGE_DOCUMENT })
    await skipOnFetchFailure(ex, IMAGE_DOCUMENT.image_url)
    expectSuccess(ex, 'an image by https URL')
    expectThat(isOcrAnswer(ex), 'an object with a pages array', 'another body', ex)
  })
})

describe('the latest alias (Part 2 §4.6)', () => {
  check('P2-4.6-ocr-latest-alias', 'the latest alias of the OCR model is answered with an OCR result', async () => {
    await needDataUrl()
    const models = await testModels()
    if (models.alias === undefined) skipTest(howToNameAlias())
    const ex = await ocr(api, models, { model: models.alias })
    expectSuccess(ex, `${models.alias} is the latest alias`)
    expectThat(isOcrAnswer(ex), 'an object with a pages array', 'another body', ex)
    // What the answer names for the alias is not shown (P2-4.6-ocr-alias-resolves: an observation).
    const direct = (await basic()).json
    const viaAlias = ex.json as Record<string, unknown>
    observe(
      'OCR model names',
      `${models.model} answers model ${JSON.stringify(isObject(direct) ? direct.model : undefined)}; ${models.alias} answers model ${JSON.stringify(viaAlias.model)}`,
    )
  })
})

describe('authentication (Part 2 §5)', () => {
  check('P2-5.1-ocr-key-required', 'POST /v1/ocr with no key or an unknown key is refused with 401', async () => {
    // A call without a valid key needs no model the target has: one it lacks is judged when it answers 401 anyway.
    const { models, known } = await keylessModels(api)
    for (const key of [null, 'invalid'] as const) {
      const ex = await ocr(api, models, { key })
      if (ex.status !== 401 && [400, 404].includes(ex.status)) {
        // The words fix no order between the key and the model: a model refused first is judged on one it has.
        if (!known)
          skipTest(
            `POST /v1/ocr answered ${ex.status} without a valid key, naming ${models.model}, a model the target need not have; ${howToNameOcrModel()}`,
          )
        await needDataUrl()
      }
      expectStatus(ex, 401, key === null ? 'no key' : 'an unknown key')
    }
  })
})
