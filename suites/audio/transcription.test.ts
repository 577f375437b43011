/**
 * Transcription (Part 2 §4.3, §8): multipart uploads of real WAV tones of known length, response_format per model
 * (the base model, a newer one, the diarization model), the options that only some models or formats take, and
 * the 30-second rule of diarization, which needs a file whose duration the target really reads.
 */
import { describe } from 'vitest'
import { expectSchema, expectStatus, expectSuccess, expectThat, expectRefused } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { audioCalls, requireServed, MADE_FORMATS } from './calls.ts'
import { dataUrl } from './fixtures.ts'
import { clip, TEXT_FILE, tone, wavOfLength, wavPart } from './forms.ts'
import { limitOf, rangeOf } from '../../common/request-schemas.ts'

const TRANSCRIPTION = 'POST /v1/audio/transcriptions'

const api = target()
const { models, form, spoken, madeFile } = audioCalls(api)

const SRT_TIMING = /^\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}/
const GRANULARITIES: Array<[string, string]> = [
  ['timestamp_granularities[]', 'word'],
  ['timestamp_granularities[]', 'segment'],
]

async function base(): Promise<string> {
  return models.model('transcribe')
}

/** The base model's json and verbose_json answers, asked once: P2-4.3-formats-base and P2-4.3-json-text read them. */
const baseJsonAnswers = new Map<string, Promise<Exchange>>()
function baseJson(format: 'json' | 'verbose_json'): Promise<Exchange> {
  let answer = baseJsonAnswers.get(format)
  if (answer === undefined) {
    answer = base().then((model) =>
      form({
        fields: [
          ['model', model],
          ['response_format', format],
        ],
      }),
    )
    baseJsonAnswers.set(format, answer)
  }
  return answer
}

/** A json transcription by `model` with one field more: the option a check judges. */
function withField(model: string, name: string, value: string) {
  return form({
    fields: [
      ['model', model],
      ['response_format', 'json'],
      [name, value],
    ],
  })
}

/** The json and verbose_json shapes are not shown (§4.3): whether they carry text and a duration is recorded. */
function observeJsonText(format: string, body: unknown): void {
  if (!isObject(body)) return
  const text = typeof body.text === 'string' ? `text of ${body.text.length} characters` : 'no text string'
  const duration =
    format === 'verbose_json'
      ? `, duration ${typeof body.duration === 'number' ? `${body.duration} s (the file lasts 2 s)` : 'not given'}`
      : ''
  observe(`transcription ${format}`, `${text}${duration}; keys ${Object.keys(body).join(', ')}`)
}

describe('response formats (§4.3)', () => {
  check('P2-4.3-default-json', 'without response_format the answer is a JSON object', async () => {
    const ex = await form({ fields: [['model', await base()]] })
    expectSuccess(ex)
    observe('transcription content-type (default)', ex.header('content-type') ?? '(none)')
    expectSchema(ex, 'audio/transcription-object.json')
  })

  check(
    'P2-4.3-formats-base',
    'the base model answers json, verbose_json, text, srt and vtt in their forms',
    async () => {
      const model = await base()
      for (const format of ['json', 'verbose_json'] as const) {
        const ex = await baseJson(format)
        expectSuccess(ex, `${format} is a format of the base model`)
        expectSchema(ex, 'audio/transcription-object.json')
        observeJsonText(format, ex.json)
      }
      const text = await form({
        fields: [
          ['model', model],
          ['response_format', 'text'],
        ],
      })
      expectSuccess(text, 'text is a format of the base model')
      expectThat(!isObject(text.json), 'a plain-text body', `a JSON object: ${text.text.slice(0, 200)}`, text)
      const srt = await form({
        fields: [
          ['model', model],
          ['response_format', 'srt'],
        ],
      })
      expectSuccess(srt, 'srt is a format of the base model')
      const timings = srt.text.split(/\r?\n/).filter((line) => line.includes('-->'))
      const bad = timings.filter((line) => !SRT_TIMING.test(line.trim()))
      expectThat(
        srt.text.trim() === '' || (timings.length > 0 && /^\s*\d+\s*\r?\n/.test(srt.text)),
        'numbered SubRip cues',
        srt.text.slice(0, 200),
        srt,
      )
      expectThat(bad.length === 0, 'SubRip timings HH:MM:SS,mmm --> HH:MM:SS,mmm', bad, srt)
      const vtt = await form({
        fields: [
          ['model', model],
          ['response_format', 'vtt'],
        ],
      })
      expectSuccess(vtt, 'vtt is a format of the base model')
      expectThat(/^(\uFEFF)?WEBVTT\b/.test(vtt.text), 'a WebVTT document, starting WEBVTT', vtt.text.slice(0, 100), vtt)
    },
  )

  // The json shapes are not shown (§4.3), but a transcription given as JSON carries its text, named as the
  // compatible convention names it and every client of the endpoint reads it.
  check('P2-4.3-json-text', 'the json and verbose_json transcriptions carry text, a string', async () => {
    for (const format of ['json', 'verbose_json'] as const) {
      const ex = await baseJson(format)
      requireServed(ex, 'P2-4.3-formats-base', `response_format ${format}`)
      expectSchema(ex, 'audio/transcription-text.json')
      const duration = isObject(ex.json) ? ex.json.duration : undefined
      expectThat(
        duration === undefined || typeof duration === 'number',
        'a verbose_json duration, where given, in seconds (a number)',
        JSON.stringify(duration),
        ex,
      )
    }
  })

  check('P2-4.3-formats-newer', 'a newer model answers json with a JSON object and text with plain text', async () => {
    const model = await models.model('transcribe-newer')
    const json = await form({
      fields: [
        ['model', model],
        ['response_format', 'json'],
      ],
    })
    expectSuccess(json, 'json is a format of the newer models')
    expectSchema(json, 'audio/transcription-object.json')
    const text = await form({
      fields: [
        ['model', model],
        ['response_format', 'text'],
      ],
    })
    expectSuccess(text, 'text is a format of the newer models')
    expectThat(!isObject(text.json), 'a plain-text body', `a JSON object: ${text.text.slice(0, 200)}`, text)
  })

  check(
    'P2-4.3-format-model-refused',
    'srt, vtt and verbose_json on a newer model, and diarized_json on the base model, are refused (a 4xx)',
    async () => {
      const newer = await models.model('transcribe-newer')
      for (const format of ['srt', 'vtt', 'verbose_json'])
        expectRefused(
          await form({
            fields: [
              ['model', newer],
              ['response_format', format],
            ],
          }),
          `${format} is not a format of the newer models`,
        )
      expectRefused(
        await form({
          fields: [
            ['model', await base()],
            ['response_format', 'diarized_json'],
          ],
        }),
        'diarized_json is for diarization',
      )
    },
  )

  check('P2-4.3-format-unknown', 'a response_format no model has (xml) is refused (a 4xx)', async () => {
    expectRefused(
      await form({
        fields: [
          ['model', await base()],
          ['response_format', 'xml'],
        ],
      }),
      'xml is no response_format of §4.3',
    )
  })

  check('P2-4.3-diarized-json', 'the diarization model answers diarized_json with a JSON object', async () => {
    const ex = await form({
      fields: [
        ['model', await models.model('diarize')],
        ['response_format', 'diarized_json'],
      ],
    })
    expectSuccess(ex)
    expectSchema(ex, 'audio/transcription-object.json')
  })

  check(
    'P2-4.3-diarized-segments',
    'a diarized_json answer has segments with speaker, start, end and text',
    async () => {
      const ex = await form({
        fields: [
          ['model', await models.model('diarize')],
          ['response_format', 'diarized_json'],
        ],
        // Speech, not a tone: a real model finds no speaker in a tone.
        ...(await spoken()),
      })
      requireServed(ex, 'P2-4.3-diarized-json', 'response_format diarized_json')
      expectSchema(ex, 'audio/diarized-json.json')
    },
  )
})

describe('options per model (§4.3)', () => {
  check(
    'P2-4.3-timestamps-verbose',
    'timestamp_granularities[] is accepted by the base model with verbose_json',
    async () => {
      const ex = await form({
        fields: [['model', await base()], ['response_format', 'verbose_json'], ...GRANULARITIES],
      })
      expectSuccess(ex)
      const body = ex.json
      observe(
        'timestamp granularities',
        isObject(body)
          ? `words: ${Array.isArray(body.words) ? body.words.length : 'none'}, segments: ${Array.isArray(body.segments) ? body.segments.length : 'none'}`
          : 'not an object',
      )
    },
  )

  check(
    'P2-4.3-timestamps-refused',
    'timestamp_granularities[] is refused with json, and on the diarization model',
    async () => {
      expectRefused(
        await form({ fields: [['model', await base()], ['response_format', 'json'], ...GRANULARITIES] }),
        'granularities need verbose_json',
      )
      expectRefused(
        await form({
          fields: [
            ['model', await models.model('diarize')],
            ['response_format', 'diarized_json'],
            ['timestamp_granularities[]', 'segment'],
          ],
        }),
        'granularities are not for diarization',
      )
    },
  )

  check('P2-4.3-stream-base-refused', 'stream true is refused by the base model (a 4xx)', async () => {
    expectRefused(
      await form({
        fields: [
          ['model', await base()],
          ['response_format', 'json'],
          ['stream', 'true'],
        ],
        stream: true,
      }),
      'stream is for the newer models only',
    )
  })

  check('P2-4.3-diarize-prompt-refused', 'the diarization model refuses a prompt (a 4xx)', async () => {
    expectRefused(
      await form({
        fields: [
          ['model', await models.model('diarize')],
          ['prompt', 'A call between two colleagues.'],
        ],
      }),
      'prompt is unsupported by the diarization model',
    )
  })

  check(
    'P2-4.3-include-logprobs',
    'include[] logprobs with response_format json is accepted by a newer model',
    async () => {
      const ex = await form({
        fields: [
          ['model', await models.model('transcribe-newer')],
          ['response_format', 'json'],
          ['include[]', 'logprobs'],
        ],
      })
      expectSuccess(ex, 'include[] logprobs with json on a newer model, as §4.3 gives it')
      observe(
        'transcription include[] logprobs',
        isObject(ex.json) ? `keys ${Object.keys(ex.json).join(', ')}` : ex.text.slice(0, 80),
      )
    },
  )

  for (const role of ['transcribe', 'transcribe-newer'] as const) {
    check('P2-4.3-language', `the language hint (ISO-639-1 "en") is accepted by the ${role} model`, async () => {
      const ex = await withField(await models.model(role), 'language', 'en')
      expectSuccess(ex, 'language is an optional field of §4.3')
    })
    check('P2-4.3-prompt', `a prompt (a context hint) is accepted by the ${role} model`, async () => {
      const ex = await withField(await models.model(role), 'prompt', 'A short recorded greeting.')
      expectSuccess(ex, 'prompt is an optional field of §4.3, unsupported only by the diarization model')
    })
  }

  const withTemperature = async (t: string) => withField(await base(), 'temperature', t)
  // The stated range, read from the request schema the reference gateway enforces too; 0.01 past each edge.
  const { min, max } = rangeOf(TRANSCRIPTION, 'body', 'temperature')
  const within = [String(min), String(max)]
  const outside = [String(max + 0.01), String(min - 0.01)]
  check('P2-4.3-temperature-range', `temperature ${within.join(' and ')} are accepted`, async () => {
    for (const t of within) expectSuccess(await withTemperature(t), `temperature ${t} is within ${min} to ${max}`)
  })
  check('P2-4.3-temperature-refused', `temperature ${outside.join(' and ')} are refused (a 4xx)`, async () => {
    for (const t of outside) expectRefused(await withTemperature(t), `temperature ${t} is outside ${min} to ${max}`)
  })

  const speakers = (clips: number[], clipOf: (seconds: number) => string): Array<[string, string]> =>
    clips.flatMap(
      (seconds, i): Array<[string, string]> => [
        ['known_speaker_names[]', `speaker-${i + 1}`],
        ['known_speaker_references[]', clipOf(seconds)],
      ],
    )
  const withSpeakers = async (clips: number[], clipOf: (seconds: number) => string = clip) =>
    form({
      fields: [['model', await models.model('diarize')], ['response_format', 'json'], ...speakers(clips, clipOf)],
    })

  // The most speakers, read from the request schema; the clip lengths (2 to 10 s) are no request field.
  const most = limitOf(TRANSCRIPTION, 'body', 'known_speaker_names[]', 'maxItems')
  check('P2-4.3-known-speakers', `${most} known speakers with clips of 2.5 and 9.5 s are accepted`, async () => {
    // The target's own speech, well inside 2 to 10 s, so that neither a model that hears no voice in a tone nor a
    // rounding of the edges can refuse it.
    const content = (await spoken()).file.content
    const voice = Buffer.isBuffer(content) ? content : tone(2)
    const speechClip = (seconds: number): string => dataUrl(wavOfLength(voice, seconds))
    expectSuccess(
      await withSpeakers(
        Array.from({ length: most }, (_, i) => (i % 2 === 0 ? 2.5 : 9.5)),
        speechClip,
      ),
      `${most} speakers with clips of 2.5 and 9.5 s are within §4.3`,
    )
  })
  check(
    'P2-4.3-known-speakers-refused',
    `${most + 1} speakers, and clips of 1.5 and 10.5 s, are refused (a 4xx)`,
    async () => {
      expectRefused(await withSpeakers(Array(most + 1).fill(2)), `at most ${most} speakers`)
      expectRefused(await withSpeakers([1.5]), 'a clip under 2 s')
      expectRefused(await withSpeakers([10.5]), 'a clip over 10 s')
    },
  )
})

describe('diarization over 30 seconds (§4.3, §8)', () => {
  check(
    'P2-4.3-chunking-required',
    'a 31 s file needs chunking_strategy: refused without, served with auto',
    async () => {
      const model = await models.model('diarize')
      expectStatus(
        await form({ fields: [['model', model]], file: wavPart(31), seconds: 31 }),
        400,
        '31 s is over 30 s and no chunking_strategy was sent',
      )
      expectSuccess(
        await form({
          fields: [
            ['model', model],
            ['chunking_strategy', 'auto'],
          ],
          file: wavPart(31),
          seconds: 31,
        }),
        'chunking_strategy auto',
      )
    },
  )

  check('P2-4.3-chunking-object', 'chunking_strategy as the string auto is accepted by a newer model', async () => {
    const ex = await withField(await models.model('transcribe-newer'), 'chunking_strategy', 'auto')
    expectSuccess(ex, 'chunking_strategy is a string or an object (§4.3), auto the value shown')
  })
  // §4.3 types chunking_strategy string or object without showing the object: the convention's one object is sent.
  check(
    'P2-4.3-chunking-object-shape',
    'chunking_strategy as the object {"type": "server_vad"} is accepted by a newer model',
    async () => {
      const value = JSON.stringify({ type: 'server_vad' })
      const ex = await withField(await models.model('transcribe-newer'), 'chunking_strategy', value)
      expectSuccess(ex, 'chunking_strategy is a string or an object (§4.3)')
    },
  )

  // 29 s is plainly not over 30 s; exactly 30 s sits on the edge a decoder's rounding may cross: only recorded.
  check('P2-4.3-chunking-30s', 'a file of 29 s is served without chunking_strategy', async () => {
    expectSuccess(
      await form({ fields: [['model', await models.model('diarize')]], file: wavPart(29), seconds: 29 }),
      '29 s is not over 30 s',
    )
  })
  check(
    'P2-4.3-chunking-30s',
    'how a file of exactly 30 s without chunking_strategy is answered is recorded',
    async () => {
      const ex = await form({ fields: [['model', await models.model('diarize')]], file: wavPart(30), seconds: 30 })
      observe('diarization of exactly 30 s', `answered ${ex.status}`)
    },
  )
})

describe('files (§4.3)', () => {
  check('P2-4.3-file-formats', 'WAV, FLAC, MP3 (.mp3, .mpga, .mpeg) and Ogg Opus files are transcribed', async () => {
    const model = await base()
    expectSuccess(
      await form({
        fields: [
          ['model', model],
          ['response_format', 'json'],
        ],
      }),
      'a WAV file',
    )
    // The other formats come from the speech endpoint: real files the project did not have to store.
    for (const [format, ext, type] of MADE_FORMATS) {
      const ex = await form({
        fields: [
          ['model', model],
          ['response_format', 'json'],
        ],
        file: await madeFile(format, ext, type),
      })
      expectSuccess(ex, `a .${ext} file of §4.3's formats`)
    }
  })

  // 415 (unsupported media type) is as plain a refusal of a file in no listed format as 400.
  check('P2-4.3-file-format-unknown', 'a .txt file of text is refused with 400 or 415', async () => {
    const ex = await form({ fields: [['model', await base()]], file: TEXT_FILE })
    observe('transcription of a .txt file', `answered ${ex.status}`)
    expectRefused(ex, 'text is not audio of §4.3')
  })

  check('P2-4.3-required', 'a transcription without file or without model is refused with 400', async () => {
    expectStatus(await form({ fields: [['model', await base()]], file: null }), 400, 'file is required')
    expectStatus(await form({ fields: [['response_format', 'json']] }), 400, 'model is required')
  })
})
