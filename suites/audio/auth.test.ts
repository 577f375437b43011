/**
 * A key on every audio endpoint (Part 2 §5.1: every endpoint of Part 2 takes a key; Part 1 §7: 401 for a missing
 * or invalid one): speech, transcription and translation, each without a key and with an unknown one. A valid
 * request is sent, so that nothing but the key can be the reason for a refusal; no model needs to be usable for a
 * call that carries no valid key, so none is looked up beyond the model list.
 */
import { describe } from 'vitest'
import { expectStatus, precondition } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { howToName } from '../shared/named-models.ts'
import { audioCalls, SHORT_INPUT, TRANSLATION_MISSING } from './calls.ts'

const api = target()
const { models, speech, form } = audioCalls(api)

const KEYS = { 'without a key': null, 'with an unknown key': 'invalid' } as const

type Call = (key: null | 'invalid', model: string) => Promise<Exchange>
const CALLS: Record<string, { role: 'tts-1' | 'transcribe'; mode: string; call: Call }> = {
  'POST /v1/audio/speech': {
    role: 'tts-1',
    mode: 'audio_speech',
    call: (key, model) => speech({ model, input: SHORT_INPUT, voice: 'alloy' }, { key }),
  },
  'POST /v1/audio/transcriptions': {
    role: 'transcribe',
    mode: 'audio_transcription',
    call: (key, model) => form({ fields: [['model', model]], key }),
  },
  'POST /v1/audio/translations': {
    role: 'transcribe',
    mode: 'audio_transcription',
    call: (key, model) => form({ endpoint: 'translations', fields: [['model', model]], key }),
  },
}

describe('a key is required (Part 2 §5.1)', () => {
  for (const [name, { role, mode, call }] of Object.entries(CALLS)) {
    for (const [how, key] of Object.entries(KEYS)) {
      check('P2-5.1-audio-key-required', `${name} ${how} is refused with 401`, async () => {
        const model = await models.forKeylessCall(role, mode)
        const ex = await call(key, model.id)
        // A missing translation route is P2-4.4-translation's to report.
        if (name.endsWith('translations'))
          precondition(ex.status !== 404, TRANSLATION_MISSING.requirementId, `${TRANSLATION_MISSING.what} answered 404`)
        // The words fix no order between the key and the model: a model the target never listed may be refused first.
        if (!model.known && (ex.status === 400 || ex.status === 404))
          skipTest(
            `${name} answered ${ex.status} for ${model.id}, a model the target does not list, before the key was judged; ${role === 'tts-1' ? 'the target lists no speech model' : howToName(role)}`,
          )
        expectStatus(ex, 401, 'Part 2 §5.1: every endpoint requires an API key')
      })
    }
  }
})
