/**
 * A key on every audio endpoint (Part 2 §5.1: every endpoint of Part 2 takes a key; Part 1 §7: 401 for a missing
 * or invalid one): speech, transcription and translation, each without a key and with an unknown one. A valid
 * request is sent, so that nothing but the key can be the reason for a refusal.
 */
import { describe } from 'vitest'
import { expectStatus, precondition } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { audioCalls, SHORT_INPUT, TRANSLATION_MISSING } from './calls.ts'

const api = target()
const { models, speech, form } = audioCalls(api)

const KEYS = { 'without a key': null, 'with an unknown key': 'invalid' } as const

const CALLS: Record<string, (key: null | 'invalid') => Promise<Exchange>> = {
  'POST /v1/audio/speech': async (key) =>
    speech({ model: await models.model('tts-1'), input: SHORT_INPUT, voice: 'alloy' }, { key }),
  'POST /v1/audio/transcriptions': async (key) => form({ fields: [['model', await models.model('transcribe')]], key }),
  'POST /v1/audio/translations': async (key) =>
    form({ endpoint: 'translations', fields: [['model', await models.model('transcribe')]], key }),
}

describe('a key is required (Part 2 §5.1)', () => {
  for (const [call, make] of Object.entries(CALLS)) {
    for (const [how, key] of Object.entries(KEYS)) {
      check('P2-5.1-audio-key-required', `${call} ${how} is refused with 401`, async () => {
        const ex = await make(key)
        // A missing translation route is P2-4.4-translation's to report.
        if (call.endsWith('translations'))
          precondition(ex.status !== 404, TRANSLATION_MISSING.requirementId, `${TRANSLATION_MISSING.what} answered 404`)
        expectStatus(ex, 401, 'Part 2 §5.1: every endpoint requires an API key')
      })
    }
  }
})
