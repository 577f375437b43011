/**
 * Fine-tuning jobs, planned and unavailable (Part 1 §2.9, §3, §4.9): judged only where the target offers them
 * (GET /v1/fine-tuning/jobs answers 2xx). No training file is uploaded, so that no run starts billable training:
 * jobs are created with a placeholder file id, and where the target refuses it, only listed jobs are checked.
 */
import { afterAll, describe } from 'vitest'
import { expectEach, expectSchema, expectStatus, expectSuccess } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { catalogueFixture, modelFor } from '../chat/fixtures.ts'
import {
  answerOf,
  bodyOf,
  cleanUp,
  isOffered,
  listItems,
  longText,
  PLACEHOLDER_FILE,
  requireOffered,
} from './planned.ts'

const api = target()
const catalogue = catalogueFixture(api)
const PATH = '/v1/fine-tuning/jobs'
const SUFFIX_MAX = 64 // section 4.9
const created: string[] = []

const probe = memo(() => api.get(PATH))

async function createJob(fields: Record<string, unknown> = {}): Promise<Exchange> {
  const model = await modelFor(catalogue, 'chat')
  const ex = await api.post(PATH, { model: model.id, training_file: PLACEHOLDER_FILE, ...fields })
  if (isOffered(ex) && isObject(ex.json) && typeof ex.json.id === 'string') created.push(ex.json.id)
  return ex
}

const job = memo(() => createJob({ suffix: 'gc' }))

afterAll(async () => {
  for (const id of created) await cleanUp(api, 'POST', `${PATH}/${id}/cancel`)
})

describe('fine-tuning, where offered (Part 1 §2.9, §3, §4.9)', () => {
  check(
    'P1-2.9-fine-tuning-job',
    'created, retrieved, cancelled and listed jobs are fine-tuning job objects of §2.9',
    async () => {
      requireOffered(await probe(), 'fine-tuning')
      const ex = await job()
      if (isOffered(ex)) {
        expectSchema(ex, 'unavailable/fine-tuning-job.json', bodyOf(ex), 'the created job')
        const id = String(bodyOf(ex).id)
        const got = await api.get(`${PATH}/${id}`)
        expectSuccess(got)
        expectSchema(got, 'unavailable/fine-tuning-job.json', bodyOf(got), 'the retrieved job')
        const cancelled = await api.post(`${PATH}/${id}/cancel`, {})
        expectSuccess(cancelled)
        expectSchema(cancelled, 'unavailable/fine-tuning-job.json', bodyOf(cancelled), 'the cancelled job')
      } else {
        observe(
          'fine-tuning job',
          `a job with the placeholder training file ${PLACEHOLDER_FILE} was refused: ${answerOf(ex)}`,
        )
      }
      const list = await api.get(PATH)
      expectSuccess(list)
      const items = listItems(list)
      if (!isOffered(ex) && items.length === 0)
        skipTest('no fine-tuning job to check: none listed, and none could be created without a real training file')
      expectEach(list, 'unavailable/fine-tuning-job.json', items, '/data')
    },
  )

  check('P1-4.9-fine-tuning-rules', 'training_file is required, and suffix is at most 64 characters', async () => {
    requireOffered(await probe(), 'fine-tuning')
    const model = await modelFor(catalogue, 'chat')
    expectStatus(await api.post(PATH, { model: model.id }), 400, 'training_file is required')
    const atLimit = await createJob({ suffix: longText(SUFFIX_MAX) })
    if (!isOffered(atLimit)) {
      observe(
        'fine-tuning suffix',
        `a job with a ${SUFFIX_MAX}-character suffix and the placeholder training file was refused (${answerOf(atLimit)}): the suffix limit cannot be judged`,
      )
      return
    }
    expectStatus(
      await createJob({ suffix: longText(SUFFIX_MAX + 1) }),
      400,
      `suffix is at most ${SUFFIX_MAX} characters`,
    )
  })
})
