/**
 * Speech generation (Part 2 §4.2, §8): POST /v1/audio/speech with tts-1, tts-1-hd and a newer speech model. The
 * answers are real audio, so the checks read bytes: the signature of each asked format, a self-consistent WAV
 * header, and durations that follow speed.
 */
import { describe } from 'vitest'
import {
  expectStatus,
  expectSuccess,
  expectThat,
  expectRefused,
  is2xx,
  notObserved,
} from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { audioCalls, requirePresent, requireServed, SHORT_INPUT } from './calls.ts'
import { FORMAT_CHECKS, firstBytes, isMp3, isWav, readWav } from './fixtures.ts'
import { synthesisBody, synthesize } from '../synthesize/fixtures.ts'
import { limitOf, rangeOf } from '../../common/request-schemas.ts'

const api = target()
const { models, speech } = audioCalls(api)

/** One answer per format, shared by the checks that read it. */
const formatAnswers = new Map<string, Promise<Exchange>>()
function formatAnswer(model: string, format: string): Promise<Exchange> {
  const key = `${model} ${format}`
  let answer = formatAnswers.get(key)
  if (answer === undefined) {
    answer = speech({ model, input: SHORT_INPUT, voice: 'alloy', response_format: format })
    formatAnswers.set(key, answer)
  }
  return answer
}

const VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'nova',
  'onyx',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
]
/** The stated edges, read from the request schema the reference gateway enforces too. */
const SPEECH = 'POST /v1/audio/speech'
const MAX_INPUT = limitOf(SPEECH, 'body', 'input', 'maxLength', { model: 'tts-1' })
const SPEED = rangeOf(SPEECH, 'body', 'speed')
/** Just past a real-valued edge. */
const STEP = 0.01
/** A speed as the reference writes it (4.0, 0.25). */
const speedText = (speed: number): string => (Number.isInteger(speed) ? speed.toFixed(1) : String(speed))
const SPEED_RANGE = `${speedText(SPEED.min)}..${speedText(SPEED.max)}`
const TTS_1_MODELS = ['tts-1', 'tts-1-hd'] as const
/** tts-1-hd missing is P2-4.2-speech-models' to report, not every test that also asks it. */
const hdMissing = { requirementId: 'P2-4.2-speech-models', what: 'tts-1-hd' }

/** Input of exactly n characters, words and spaces. */
function inputOf(n: number): string {
  return 'The gateway reads this sentence aloud. '.repeat(Math.ceil(n / 39)).slice(0, n)
}

describe('speech models and formats (§4.2)', () => {
  check('P2-4.2-speech-models', 'tts-1, tts-1-hd and a newer speech model each answer 200 with audio', async () => {
    for (const role of ['tts-1', 'tts-1-hd', 'speech'] as const) {
      const model = await models.model(role)
      // pcm on the newer model: §4.2 "one preview model requires pcm", and every speech model takes it.
      const format = role === 'speech' ? 'pcm' : 'wav'
      const ex = await speech({ model, input: SHORT_INPUT, voice: 'alloy', response_format: format })
      expectSuccess(ex, `${model} is a speech model of §4.2`)
      expectThat(ex.bytes.length > 0, `audio bytes from ${model}`, 'an empty body', ex)
    }
  })

  check('P2-4.2-speech-default-mp3', 'without response_format the answer is MP3', async () => {
    const ex = await speech({ model: await models.model('tts-1'), input: SHORT_INPUT, voice: 'alloy' })
    expectSuccess(ex)
    observe('speech content-type (default)', ex.header('content-type') ?? '(none)')
    expectThat(isMp3(ex.bytes), 'MP3: an ID3 tag or an MPEG audio frame sync', firstBytes(ex.bytes), ex)
  })

  check(
    'P2-4.2-speech-formats',
    'each response_format answers audio; mp3, flac and wav in their container',
    async () => {
      const model = await models.model('tts-1')
      for (const [format, { check: isFormat, what, fixed }] of Object.entries(FORMAT_CHECKS)) {
        const ex = await formatAnswer(model, format)
        expectSuccess(ex, `response_format ${format} is one of §4.2`)
        observe(`speech content-type (${format})`, ex.header('content-type') ?? '(none)')
        expectThat(ex.bytes.length > 0, `audio bytes for response_format ${format}`, 'an empty body', ex)
        if (fixed) expectThat(isFormat(ex.bytes), `response_format ${format}: ${what}`, firstBytes(ex.bytes), ex)
      }
    },
  )

  check(
    'P2-4.2-speech-format-containers',
    'opus, aac and pcm come in their usual containers (Ogg Opus, ADTS, raw samples)',
    async () => {
      const model = await models.model('tts-1')
      for (const [format, { check: isFormat, what, fixed }] of Object.entries(FORMAT_CHECKS)) {
        if (fixed) continue
        const ex = await formatAnswer(model, format)
        requireServed(ex, 'P2-4.2-speech-formats', `response_format ${format}`)
        expectThat(isFormat(ex.bytes), `response_format ${format}: ${what}`, firstBytes(ex.bytes), ex)
      }
    },
  )

  check('P2-4.2-speech-wav', 'a WAV answer is self-consistent: fmt chunk, and sizes known or unknown', async () => {
    for (const role of ['tts-1', 'speech'] as const) {
      const ex = await speech({
        model: await models.model(role),
        input: SHORT_INPUT,
        voice: 'alloy',
        response_format: 'wav',
      })
      requireServed(ex, 'P2-4.2-speech-models', `a WAV from the ${role} model`)
      const wav = readWav(ex.bytes)
      observe(
        `speech WAV (${role})`,
        `${wav.sampleRate} Hz, ${wav.channels} channel(s), ${wav.bitsPerSample} bits, ${wav.seconds.toFixed(3)} s, RIFF size ${ex.bytes.length >= 8 ? ex.bytes.readUInt32LE(4) : '?'} of ${ex.bytes.length} bytes`,
      )
      expectThat(wav.problems.length === 0, 'a WAV whose header agrees with its bytes', wav.problems, ex)
      expectThat(wav.dataBytes > 0, 'some samples', 'an empty data chunk', ex)
    }
  })
})

describe('speech input, voices and options (§4.2, §8)', () => {
  check('P2-4.2-speech-input-max', `input of exactly ${MAX_INPUT} characters is accepted by tts-1`, async () => {
    const ex = await speech({
      model: await models.model('tts-1'),
      input: inputOf(MAX_INPUT),
      voice: 'alloy',
      response_format: 'mp3',
    })
    expectSuccess(ex, `${MAX_INPUT} characters is within the limit`)
  })

  check('P2-4.2-speech-input-limit', `input of ${MAX_INPUT + 1} characters is refused by tts-1 (a 4xx)`, async () => {
    const ex = await speech({
      model: await models.model('tts-1'),
      input: inputOf(MAX_INPUT + 1),
      voice: 'alloy',
      response_format: 'mp3',
    })
    expectRefused(ex, `${MAX_INPUT + 1} characters is over the limit`)
  })

  // §4.2 lists the voices of the endpoint, not of each model (tts-1 takes fewer than the newer models): each
  // voice is judged accepted by some speech model, the newer one first.
  for (const voice of VOICES) {
    check('P2-4.2-speech-voices', `voice ${voice} is accepted by some speech model`, async () => {
      // pcm on the newer model (§4.2: "one preview model requires pcm"), mp3 on tts-1 and tts-1-hd.
      const candidates: Array<[string | undefined, string]> = [
        [await models.available('speech'), 'pcm'],
        [await models.available('tts-1'), 'mp3'],
        [await models.available('tts-1-hd'), 'mp3'],
      ]
      if (candidates.every(([id]) => id === undefined)) await models.model('speech')
      const answers: string[] = []
      for (const [model, format] of candidates) {
        if (model === undefined) continue
        const ex = await speech({ model, input: 'Hello.', voice, response_format: format })
        answers.push(`${model}: ${ex.status}`)
        if (ex.status >= 200 && ex.status < 300) {
          observe(`speech voice ${voice}`, `taken by ${model}`)
          return
        }
      }
      expectThat(false, `some speech model accepts voice ${voice} of §4.2`, answers)
    })
  }

  check('P2-4.2-speech-voice-unknown', 'a voice outside the thirteen is refused by tts-1 (a 4xx)', async () => {
    expectRefused(
      await speech({
        model: await models.model('tts-1'),
        input: 'Hello.',
        voice: 'gc-no-such-voice',
        response_format: 'mp3',
      }),
      'not one of the thirteen voices',
    )
  })

  check(
    'P2-4.2-speech-voice-object',
    'some speech model takes voice {name, languageCode}; tts-1 refuses it',
    async () => {
      const voice = { name: 'Kore', languageCode: 'en-US' }
      const candidates = (await models.ofMode('audio_speech')).filter((id) => !TTS_1_MODELS.includes(id as never))
      const answers: string[] = []
      let accepted: string | undefined
      for (const model of candidates) {
        // pcm: the one format every model takes (§4.2: one preview model requires it).
        const ex = await speech({ model, input: 'Hello.', voice, response_format: 'pcm' })
        answers.push(`${model}: ${ex.status}`)
        if (is2xx(ex)) {
          accepted = model
          break
        }
      }
      observe(
        'voice object',
        accepted === undefined ? `no model took it (${answers.join(', ')})` : `taken by ${accepted}`,
      )
      expectThat(
        accepted !== undefined,
        'one speech model family that takes {name, languageCode}',
        answers.length > 0 ? answers : 'no speech model besides tts-1 and tts-1-hd is listed',
      )
      expectRefused(
        await speech({ model: await models.model('tts-1'), input: 'Hello.', voice, response_format: 'mp3' }),
        'tts-1 takes voice names',
      )
    },
  )

  check('P2-4.2-speech-instructions-refused', 'instructions are refused by tts-1 and tts-1-hd (a 4xx)', async () => {
    for (const role of TTS_1_MODELS) {
      const ex = await speech({
        model: await models.model(role),
        input: 'Hello.',
        voice: 'alloy',
        instructions: 'Speak calmly.',
        response_format: 'mp3',
      })
      requirePresent(ex, hdMissing)
      expectRefused(ex, `${role} does not support instructions`)
    }
  })

  check('P2-4.2-speech-instructions-newer', 'a newer speech model accepts instructions', async () => {
    const ex = await speech({
      model: await models.model('speech'),
      input: 'Hello.',
      voice: 'coral',
      instructions: 'Speak calmly.',
      response_format: 'pcm',
    })
    expectSuccess(ex, 'instructions are style guidance for the models other than tts-1 and tts-1-hd')
  })

  // "where supported": the edges are judged on the first speech model that takes a speed other than 1.0.
  check(
    'P2-4.2-speech-speed-range',
    `speed ${speedText(SPEED.min)} and ${speedText(SPEED.max)} are accepted where speed is supported`,
    async () => {
      const candidates: Array<[string | undefined, string]> = [
        [await models.available('tts-1'), 'mp3'],
        [await models.available('tts-1-hd'), 'mp3'],
        [await models.available('speech'), 'pcm'],
      ]
      const answers: string[] = []
      for (const [model, format] of candidates) {
        if (model === undefined) continue
        const probe = await speech({ model, input: 'Hello.', voice: 'alloy', speed: 2, response_format: format })
        answers.push(`${model}: ${probe.status}`)
        if (!is2xx(probe)) continue
        observe('speech speed', `speed 2.0 taken by ${model}`)
        for (const speed of [SPEED.min, SPEED.max])
          expectSuccess(
            await speech({ model, input: 'Hello.', voice: 'alloy', speed, response_format: format }),
            `speed ${speed} is within ${SPEED_RANGE}, and ${model} takes speed 2.0`,
          )
        return
      }
      notObserved(`a speech model that takes a speed other than 1.0 (speed 2.0: ${answers.join(', ') || 'no model'})`)
    },
  )

  const outside = [SPEED.min - STEP, SPEED.max + STEP]
  check('P2-4.2-speech-speed-refused', `speed ${outside.join(' and ')} are refused (a 4xx)`, async () => {
    const model = await models.model('tts-1')
    for (const speed of outside)
      expectRefused(
        await speech({ model, input: 'Hello.', voice: 'alloy', speed, response_format: 'mp3' }),
        `speed ${speed} is outside ${SPEED_RANGE}`,
      )
  })

  check('P2-4.2-speech-speed-effect', 'speed 2.0 gives about half the audio of speed 1.0', async () => {
    const model = await models.model('tts-1')
    const input = inputOf(120)
    const [slow, fast] = [
      await speech({ model, input, voice: 'alloy', speed: 1, response_format: 'wav' }),
      await speech({ model, input, voice: 'alloy', speed: 2, response_format: 'wav' }),
    ]
    requireServed(slow, 'P2-4.2-speech-models', 'speed 1.0 WAV')
    requireServed(fast, 'P2-4.2-speech-speed-range', 'speed 2.0 WAV')
    const [a, b] = [readWav(slow.bytes), readWav(fast.bytes)]
    const ratio = b.seconds / a.seconds
    observe('speech speed', `speed 1.0: ${a.seconds.toFixed(3)} s, speed 2.0: ${b.seconds.toFixed(3)} s`)
    expectThat(
      a.seconds > 0 && ratio > 0.35 && ratio < 0.65,
      'speed 2.0 lasting 35% to 65% of speed 1.0',
      `${b.seconds.toFixed(3)} s against ${a.seconds.toFixed(3)} s`,
      fast,
    )
  })

  check('P2-4.2-speech-enums', 'an unknown response_format or stream_format is refused (a 4xx)', async () => {
    const model = await models.model('tts-1')
    const format = await speech({ model, input: 'Hello.', voice: 'alloy', response_format: 'ogg' })
    observe('speech response_format ogg', `answered ${format.status}`)
    expectRefused(format, 'ogg is not a response_format of §4.2')
    const stream = await speech({
      model,
      input: 'Hello.',
      voice: 'alloy',
      response_format: 'mp3',
      stream_format: 'chunks',
    })
    observe('speech stream_format chunks', `answered ${stream.status}`)
    expectRefused(stream, 'stream_format is audio or sse')
  })

  check('P2-4.2-speech-required', 'a request without model, input or voice is refused with 400', async () => {
    const full = { model: await models.model('tts-1'), input: 'Hello.', voice: 'alloy', response_format: 'mp3' }
    for (const missing of ['model', 'input', 'voice'] as const) {
      const { [missing]: _left, ...body } = full
      expectStatus(await speech(body), 400, `${missing} is required`)
    }
  })

  check(
    'P2-4.2-speech-not-on-responses',
    'the responses and messages endpoints refuse a newer speech model',
    async () => {
      const model = await models.model('speech')
      const responses = await api.post('/v1/responses', { model, input: 'Hello.', store: false })
      expectThat(
        responses.status >= 400 && responses.status < 500,
        'a 4xx from POST /v1/responses',
        String(responses.status),
        responses,
      )
      const messages = await api.post('/v1/messages', {
        model,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'Hello.' }],
      })
      expectThat(
        messages.status >= 400 && messages.status < 500,
        'a 4xx from POST /v1/messages',
        String(messages.status),
        messages,
      )
    },
  )

  // §4.2 names the legacy synthesis endpoint beside them, and §4.9: "newer speech models are not sent here".
  check('P2-4.2-speech-not-on-responses', 'the legacy synthesis endpoint refuses a newer speech model', async () => {
    const model = await models.model('speech')
    const ex = await synthesize(api, synthesisBody({ model, encoding: 'MP3' }))
    expectThat(ex.status >= 400 && ex.status < 500, 'a 4xx from POST /v1/text:synthesize', String(ex.status), ex)
  })
})

describe('speech streaming (§4.2, §6.2)', () => {
  check('P2-4.2-speech-sse-refused', 'stream_format sse is refused by tts-1 and tts-1-hd (a 4xx)', async () => {
    for (const role of TTS_1_MODELS) {
      const ex = await speech(
        {
          model: await models.model(role),
          input: 'Hello.',
          voice: 'alloy',
          response_format: 'mp3',
          stream_format: 'sse',
        },
        { stream: true },
      )
      requirePresent(ex, hdMissing)
      expectRefused(ex, `${role} does not support sse`)
    }
  })

  check('P2-4.2-speech-stream-audio', 'stream_format audio answers the audio bytes', async () => {
    const ex = await speech({
      model: await models.model('tts-1'),
      input: SHORT_INPUT,
      voice: 'alloy',
      response_format: 'wav',
      stream_format: 'audio',
    })
    expectSuccess(ex)
    observe(
      'speech stream_format audio',
      `content-type ${ex.header('content-type') ?? '(none)'}, transfer-encoding ${ex.header('transfer-encoding') ?? '(none)'}, ${ex.bytes.length} bytes`,
    )
    expectThat(isWav(ex.bytes), 'a WAV (RIFF....WAVE)', firstBytes(ex.bytes), ex)
  })

  check('P2-6.2-speech-sse', 'a newer speech model with stream_format sse streams server-sent events', async () => {
    const ex = await speech(
      {
        model: await models.model('speech'),
        input: SHORT_INPUT,
        voice: 'alloy',
        response_format: 'pcm',
        stream_format: 'sse',
      },
      { stream: true },
    )
    expectSuccess(ex)
    const type = ex.header('content-type') ?? ''
    expectThat(
      /^text\/event-stream\b/i.test(type) && ex.stream !== undefined,
      'content-type text/event-stream',
      type || '(none)',
      ex,
    )
    const events = ex.stream.events
    expectThat(events.length > 0, 'at least one event', 'none', ex)
    expectThat(
      ex.stream.end.cleanEnd,
      'the stream ending between events',
      `${ex.stream.end.reason}; trailing ${JSON.stringify(ex.stream.end.trailing)}`,
      ex,
    )
    // §6.2 says only that it "streams speech events": their names and data are recorded, not judged.
    const names = [...new Set(events.map((e) => e.event ?? 'message'))]
    observe(
      'speech sse events',
      `${events.length} events: ${names.join(', ')}; first data ${events[0]?.data.slice(0, 120) ?? ''}`,
    )
  })
})
