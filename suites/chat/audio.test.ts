/**
 * The audio-capable fields of chat completions (Part 1 §4.7: "It accepts ... audio-capable fields (modalities,
 * input_audio content, message.audio)"). §2.3 gives no capability flag for audio, so they are judged on the chat
 * model the user names as taking audio (GATEWAY_MODELS chat-audio=<id>); without one the test is skipped, naming it.
 * §4.7 shows no shape for audio output (the audio object, a voice), so answering in audio is asked at SHOULD only.
 */
import { describe } from 'vitest'
import { expectSuccess } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { wavTone } from '../audio/fixtures.ts'
import { howToName, namedModel } from '../shared/named-models.ts'
import { CAPS, chat, completionOf, firstChoice, userMessage } from './fixtures.ts'

const api = target()

/** Half a second of a tone: the least a model can hear, as base64 WAV. */
const RECORDING = wavTone({ seconds: 0.5 }).toString('base64')

describe('audio-capable fields (Part 1 §4.7)', () => {
  check(
    'P1-4.7-chat-audio-fields',
    'a model that takes audio accepts input_audio content and modalities text',
    async () => {
      const model = audioModel()
      const heard = await chat(api, {
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What do you hear in this recording?' },
              { type: 'input_audio', input_audio: { data: RECORDING, format: 'wav' } },
            ],
          },
        ],
        max_completion_tokens: CAPS.answer,
      })
      expectSuccess(heard, 'input_audio content')
      const texted = await chat(api, {
        model,
        modalities: ['text'],
        messages: [userMessage('Say hello in one word.')],
        max_completion_tokens: CAPS.answer,
      })
      expectSuccess(texted, 'modalities ["text"]')
    },
  )

  check(
    'P1-4.7-chat-audio-output',
    'the same model answers in audio when modalities holds audio, and takes message.audio back',
    async () => {
      const model = audioModel()
      const spoken = await chat(api, {
        model,
        modalities: ['text', 'audio'],
        audio: { voice: 'alloy', format: 'wav' },
        messages: [userMessage('Say hello in one word.')],
        max_completion_tokens: CAPS.answer,
      })
      expectSuccess(spoken, 'modalities with audio')
      const message = firstChoice(completionOf(spoken)).message
      const audio = isObject(message) ? message.audio : undefined
      observe(
        'chat message.audio',
        isObject(audio) ? `fields ${Object.keys(audio).sort().join(', ')}` : `absent (${JSON.stringify(audio)})`,
      )
      // message.audio of an earlier answer goes back as the assistant's turn, by its id; §4.7 shows no answer shape,
      // so an answer without one leaves that part unjudged.
      if (!isObject(audio) || typeof audio.id !== 'string') return
      const followed = await chat(api, {
        model,
        modalities: ['text', 'audio'],
        audio: { voice: 'alloy', format: 'wav' },
        messages: [
          userMessage('Say hello in one word.'),
          { role: 'assistant', audio: { id: audio.id } },
          userMessage('Now say goodbye in one word.'),
        ],
        max_completion_tokens: CAPS.answer,
      })
      expectSuccess(followed, "an assistant message carrying the earlier answer's message.audio")
    },
  )
})

/** The chat model the user names as taking audio; without one the test is skipped, naming how to name it. */
function audioModel(): string {
  const model = namedModel('chat-audio')
  if (model === undefined)
    skipTest(`no chat model is known to take audio (§2.3 gives no flag for it): ${howToName('chat-audio')}`)
  return model
}
