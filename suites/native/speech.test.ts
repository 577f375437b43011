/**
 * The newer speech models on the native interface (Part 2 §4.8): WAV by default, raw PCM as audio/L16 at
 * 24,000 Hz mono, at most two speakers whose names speechMetadata must match, text input only, no thinking or tools.
 */
import { describe } from 'vitest'
import {
  expectSuccess,
  expectThat,
  fail,
  notObserved,
  precondition,
  expectRefused,
  expectKeyAccepted,
  is2xx,
  isRefusal,
} from '../../harness/worker/assert.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { currentRequirement, observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target, spend } from '../../harness/worker/suite.ts'
import { decodeBase64, describe as describeBytes, isRiff, mimeParameters, readWav } from './audio-bytes.ts'
import {
  audioPart,
  generatePath,
  nativeModels,
  nativePost,
  nativeStream,
  speechBody,
  speechCostUsd,
  SPEECH_TEXT,
  userTurn,
} from './fixtures.ts'
import { chunksOf } from './streams.ts'
import { limitOf } from '../../common/request-schemas.ts'

const api = target()
const models = nativeModels(api)

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

/** A tenth of a second of 16-bit silence at 24 kHz as a WAV file: real audio input to refuse. */
function tinyWav(): string {
  const data = Buffer.alloc(4800)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVEfmt ', 8, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(1, 22)
  header.writeUInt32LE(24_000, 24)
  header.writeUInt32LE(48_000, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data]).toString('base64')
}

function speakers(...names: string[]): Record<string, unknown> {
  const voices = ['Kore', 'Puck', 'Zephyr']
  return {
    multiSpeakerVoiceConfig: {
      speakerVoiceConfigs: names.map((speaker, i) => ({
        speaker,
        voiceConfig: { prebuiltVoiceConfig: { voiceName: voices[i % voices.length] } },
      })),
    },
  }
}

/** A two-speaker dialogue whose text parts name their speakers in speechMetadata. */
const DIALOGUE_TEXT = 'Good morning. Morning to you.'

function dialogue(first: string, second: string): Record<string, unknown>[] {
  return [
    {
      role: 'user',
      parts: [
        { text: 'Good morning.', speechMetadata: { speaker: first, style: 'cheerful' } },
        { text: 'Morning to you.', speechMetadata: { speaker: second } },
      ],
    },
  ]
}

async function speak(body: Record<string, unknown>): Promise<Exchange> {
  const model = await models.speech()
  spend(speechCostUsd(model, JSON.stringify(body.contents)), `native speech with ${model.id}`)
  return nativePost(api, generatePath(model.id), body)
}

function speechConfig(config: Record<string, unknown>): Record<string, unknown> {
  return { responseModalities: ['AUDIO'], speechConfig: config }
}

/** The default answer's audio part, decoded; a missing or broken part fails P2-4.8-speech-wav-default. */
const defaultSpeech = memo(async () => speak(speechBody()))

async function defaultAudio(): Promise<{ ex: Exchange; bytes: Buffer; mimeType: string }> {
  const ex = await defaultSpeech()
  if (currentRequirement() !== 'P2-4.8-speech-wav-default') {
    precondition(
      ex.status >= 200 && ex.status < 300,
      'P2-4.8-speech-wav-default',
      `the default speech answered ${ex.status}`,
    )
    precondition(audioPart(ex) !== undefined, 'P2-4.8-speech-wav-default', 'no audio part')
  }
  expectSuccess(ex)
  const audio = audioPart(ex)
  if (audio === undefined)
    return fail('an audio part with inlineData {mimeType, data}', 'none in candidates[0].content.parts', ex)
  const bytes = decodeBase64(audio.data)
  if (bytes === undefined) return fail('inlineData.data in Base64', `${audio.data.slice(0, 40)}...`, ex)
  return { ex, bytes, mimeType: audio.mimeType }
}

/** Judges audio labelled audio/L16: raw PCM at 24,000 Hz mono (§4.8). */
function expectL16(mimeType: string, bytes: Buffer, ex: Exchange, where: string): void {
  const params = mimeParameters(mimeType)
  const problems: string[] = []
  if (isRiff(bytes)) problems.push(`${where}: a RIFF/WAVE file (${describeBytes(bytes)}), not raw PCM`)
  if (bytes.length % 2 !== 0) problems.push(`${where}: ${bytes.length} bytes, not whole 16-bit samples`)
  if (params.rate !== undefined && params.rate !== '24000') problems.push(`${where}: rate=${params.rate}`)
  if (params.channels !== undefined && params.channels !== '1') problems.push(`${where}: channels=${params.channels}`)
  expectThat(problems.length === 0, `audio/L16 to be raw 16-bit PCM at 24000 Hz mono (${mimeType})`, problems, ex)
}

describe('speech answers (Part 2 §4.8)', () => {
  check('P2-4.8-speech-wav-default', 'the non-streaming answer is audio/wav by default, a RIFF/WAVE file', async () => {
    const { ex, bytes, mimeType } = await defaultAudio()
    expectThat(
      mimeType.split(';')[0]!.trim().toLowerCase() === 'audio/wav',
      'inlineData.mimeType audio/wav',
      mimeType,
      ex,
    )
    const wav = readWav(bytes)
    if (!wav.ok) return fail('a RIFF/WAVE file with a fmt and a data chunk', wav.problem, ex)
    expectThat(wav.info.dataBytes > 0, 'some samples in the data chunk', 'an empty data chunk', ex)
    observe(
      'native speech WAV',
      `${wav.info.sampleRate} Hz, ${wav.info.channels} channel(s), ${wav.info.bitsPerSample}-bit, format ${wav.info.format}, ${wav.info.dataBytes} data bytes, RIFF size ${bytes.readUInt32LE(4)} of ${bytes.length} bytes`,
    )
  })

  check(
    'P2-4.8-speech-wav-lengths',
    "the default WAV's sizes agree with the file, or are written unknown",
    async () => {
      const { ex, bytes } = await defaultAudio()
      const wav = readWav(bytes)
      precondition(wav.ok, 'P2-4.8-speech-wav-default', wav.ok ? '' : wav.problem)
      expectThat(wav.lengths === undefined, 'RIFF and data sizes that agree with the file', wav.lengths ?? '', ex)
    },
  )

  check(
    'P2-4.8-speech-pcm-l16',
    'asked for audio/L16, audio labelled audio/L16 is raw PCM at 24000 Hz mono',
    async () => {
      const ex = await speak(speechBody({}, { responseMimeType: 'audio/L16' }))
      // The reference names no request field for raw PCM; responseMimeType is the provider's own. Refusing it is no fault.
      if (isRefusal(ex.status)) {
        expectKeyAccepted(ex)
        skipTest(
          `the target refused generationConfig.responseMimeType audio/L16 with ${ex.status}; §4.8 names no way to ask for raw PCM`,
        )
      }
      expectSuccess(ex)
      const audio = audioPart(ex)
      if (audio === undefined)
        return fail('an audio part with inlineData {mimeType, data}', 'none in candidates[0].content.parts', ex)
      const bytes = decodeBase64(audio.data)
      if (bytes === undefined) return fail('inlineData.data in Base64', `${audio.data.slice(0, 40)}...`, ex)
      if (!/^audio\/l16\b/i.test(audio.mimeType)) {
        observe('native speech asked for audio/L16', `answered ${audio.mimeType} (${describeBytes(bytes)})`)
        notObserved(`audio labelled audio/L16 (the answer was ${audio.mimeType})`)
      }
      expectL16(audio.mimeType, bytes, ex, 'inlineData')
    },
  )

  check(
    'P2-4.8-speech-pcm-l16',
    'streamed speech: every audio chunk labelled audio/L16 is raw PCM at 24000 Hz mono',
    async () => {
      const model = await models.speech()
      spend(speechCostUsd(model, SPEECH_TEXT), `native speech stream with ${model.id}`)
      // The default framing: Part 2 never names alt.
      const ex = await nativeStream(api, model.id, speechBody())
      expectSuccess(ex)
      const { chunks } = chunksOf(ex, 'speech stream')
      const labels = new Set<string>()
      chunks.forEach((chunk, i) => {
        const candidate = isObject(chunk) && Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined
        const parts =
          isObject(candidate) && isObject(candidate.content) && Array.isArray(candidate.content.parts)
            ? candidate.content.parts
            : []
        for (const part of parts) {
          const inline = isObject(part) && isObject(part.inlineData) ? part.inlineData : undefined
          if (inline === undefined || typeof inline.mimeType !== 'string' || typeof inline.data !== 'string') continue
          labels.add(inline.mimeType)
          const bytes = decodeBase64(inline.data)
          expectThat(bytes !== undefined, 'inlineData.data in Base64', `chunk ${i}: not Base64`, ex)
          if (/^audio\/l16\b/i.test(inline.mimeType)) expectL16(inline.mimeType, bytes, ex, `chunk ${i}`)
        }
      })
      observe('native speech stream audio', labels.size === 0 ? 'no inlineData in the chunks' : [...labels].join(', '))
      if (![...labels].some((label) => /^audio\/l16\b/i.test(label))) notObserved('streamed audio labelled audio/L16')
    },
  )
})

/** The most speakerVoiceConfigs, read from the request schema the reference gateway enforces too. */
const MOST_SPEAKERS = limitOf(
  'POST /v1beta/models/{model}:generateContent',
  'body',
  'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
  'maxItems',
)
const SPEAKER_NAMES = ['Ann', 'Ben', 'Cleo', 'Dana', 'Eli']

describe('speakers (§4.8)', () => {
  const most = SPEAKER_NAMES.slice(0, MOST_SPEAKERS)
  const tooMany = SPEAKER_NAMES.slice(0, MOST_SPEAKERS + 1)
  // §4.8 shows no text for two speakers: plain text, or else the dialogue whose parts name them in speechMetadata.
  check('P2-4.8-speakers-at-most-2', `${MOST_SPEAKERS} speakerVoiceConfigs are accepted`, async () => {
    const config = speechConfig(speakers(...most))
    const plain = await speak(speechBody({ contents: [userTurn(DIALOGUE_TEXT)] }, config))
    if (is2xx(plain)) return
    expectSuccess(
      await speak(speechBody({ contents: dialogue('Ann', 'Ben') }, config)),
      `plain text answered ${plain.status}`,
    )
  })
  check('P2-4.8-speakers-refused', `${MOST_SPEAKERS + 1} speakerVoiceConfigs are refused (a 4xx)`, async () => {
    expectRefused(
      await speak(speechBody({ contents: [userTurn(DIALOGUE_TEXT)] }, speechConfig(speakers(...tooMany)))),
      `at most ${MOST_SPEAKERS} speakers`,
    )
  })
  check(
    'P2-4.8-speech-speaker-match',
    'speechMetadata speakers that match speakerVoiceConfigs are accepted',
    async () => {
      expectSuccess(await speak(speechBody({ contents: dialogue('Ann', 'Ben') }, speechConfig(speakers('Ann', 'Ben')))))
    },
  )
  check(
    'P2-4.8-speech-speaker-mismatch-refused',
    'a speechMetadata speaker missing from speakerVoiceConfigs is refused (a 4xx)',
    async () => {
      expectRefused(
        await speak(speechBody({ contents: dialogue('Ann', 'Dora') }, speechConfig(speakers('Ann', 'Ben')))),
        'the speaker must match speakerVoiceConfigs',
      )
    },
  )
})

describe('what speech models do not take (§4.8)', () => {
  check('P2-4.8-speech-no-thinking-tools', 'thinkingConfig is refused (a 4xx)', async () => {
    expectRefused(
      await speak(speechBody({}, { thinkingConfig: { thinkingBudget: 128 } })),
      'do not send thinkingConfig',
    )
  })
  check('P2-4.8-speech-no-thinking-tools', 'tools are refused (a 4xx)', async () => {
    const tools = [
      {
        functionDeclarations: [
          { name: 'get_time', description: 'The current time.', parameters: { type: 'object', properties: {} } },
        ],
      },
    ]
    expectRefused(await speak(speechBody({ tools })), 'do not send tools')
  })
  check('P2-4.8-speech-text-only-input', 'an image part is refused (a 4xx)', async () => {
    const contents = [
      { role: 'user', parts: [{ text: SPEECH_TEXT }, { inline_data: { mime_type: 'image/png', data: PNG_1X1 } }] },
    ]
    expectRefused(await speak(speechBody({ contents })), 'do not send image or audio input')
  })
  check('P2-4.8-speech-text-only-input', 'an audio part is refused (a 4xx)', async () => {
    const contents = [
      userTurn(SPEECH_TEXT),
      { role: 'user', parts: [{ inline_data: { mime_type: 'audio/wav', data: tinyWav() } }] },
    ]
    expectRefused(await speak(speechBody({ contents })), 'do not send image or audio input')
  })
})
