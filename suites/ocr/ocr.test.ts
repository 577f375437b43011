/** The OCR result, its model and alias, the document forms and the key (Part 2 sections 2.3, 4.6, 5). */
import { describe } from 'vitest'
import { expectSchema, expectStatus, expectThat, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import { observe, skipTest } from '../../harness/recorder.ts'
import { check, target } from '../../harness/suite.ts'
import { basic, IMAGE_DOCUMENT, isOcrAnswer, needDataUrl, ocr, testModels, URL_DOCUMENT } from './documents.ts'

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
      expectStatus(ex, 200)
      expectThat(isOcrAnswer(ex), 'an object with a pages array', 'another body', ex)
    },
  )

  check('P2-4.6-ocr-document-url', 'an https URL of a PDF in document_url is answered with an OCR result', async () => {
    const ex = await ocr(api, await testModels(), { document: URL_DOCUMENT })
    expectStatus(ex, 200)
    expectThat(isOcrAnswer(ex), 'an object with a pages array', 'another body', ex)
  })

  check('P2-4.6-ocr-image-url', 'a document of type image_url is answered with an OCR result', async () => {
    const ex = await ocr(api, await testModels(), { document: IMAGE_DOCUMENT })
    expectStatus(ex, 200)
    expectThat(isOcrAnswer(ex), 'an object with a pages array', 'another body', ex)
  })
})

describe('the latest alias (Part 2 §4.6)', () => {
  check('P2-4.6-ocr-latest-alias', 'the latest alias of the OCR model is answered with an OCR result', async () => {
    await needDataUrl()
    const models = await testModels()
    if (models.alias === undefined)
      skipTest('the catalogue lists no OCR model id containing "latest", and the reference does not name the alias')
    const ex = await ocr(api, models, { model: models.alias })
    expectStatus(ex, 200, `${models.alias} is the latest alias`)
    expectThat(isOcrAnswer(ex), 'an object with a pages array', 'another body', ex)
  })

  check(
    'P2-4.6-ocr-alias-resolves',
    'the answer to the alias names the same model as the answer to the model itself',
    async () => {
      await needDataUrl()
      const models = await testModels()
      if (models.alias === undefined || models.alias === models.model)
        skipTest('the catalogue lists no latest alias beside the OCR model')
      const ex = await ocr(api, models, { model: models.alias })
      precondition(ex.status === 200, 'P2-4.6-ocr-latest-alias', `${models.alias} answered ${ex.status}`)
      const direct = (await basic()).json
      const viaAlias = ex.json
      precondition(
        isObject(direct) &&
          isObject(viaAlias) &&
          typeof direct.model === 'string' &&
          typeof viaAlias.model === 'string',
        'P2-2.3-ocr-result',
        'an answer has no model string',
      )
      observe(
        'OCR model names',
        `${models.model} answers model "${direct.model}"; ${models.alias} answers model "${viaAlias.model}"`,
      )
      expectThat(
        viaAlias.model === direct.model,
        `the alias's answer to name the model ${models.model} answers with ("${direct.model}")`,
        `"${viaAlias.model}"`,
        ex,
      )
    },
  )
})

describe('authentication (Part 2 §5)', () => {
  check('P2-5.1-ocr-key-required', 'POST /v1/ocr with no key or an unknown key is refused with 401', async () => {
    const models = await testModels()
    for (const key of [null, 'invalid'] as const)
      expectStatus(await ocr(api, models, { key }), 401, key === null ? 'no key' : 'an unknown key')
  })
})
