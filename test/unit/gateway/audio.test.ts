/**
 * The audio endpoints (Part 2 §4.2 speech, §4.3 transcription, §4.4 translation, §6.1, §6.2, §8): real audio
 * to the byte, the per-model rules, the 30-second diarization rule read from the WAV header, and the charges.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { remainingUsd } from '../../../gateway/account/billing.ts'
import { containerOf, durationOf } from '../../../gateway/audio/probe.ts'
import { speechCostUsd, SPEECH_MODELS, transcriptionCostUsd } from '../../../gateway/audio/models.ts'
import { readWavHeader } from '../../../gateway/audio/wav.ts'
import { collectSse, eventJson } from '../../../harness/worker/sse.ts'
import { dataUrl, wavOfSize, wavTone } from '../../../suites/audio/fixtures.ts'
import { form } from './file-forms.ts'
import { KEYS, testGateway, type TestGateway } from './helpers.ts'

const opened: TestGateway[] = []
afterAll(async () => {
  await Promise.all(opened.map((gw) => gw.app.close()))
})

function audioGateway(faults: string[] = []): TestGateway {
  const gw = testGateway({ faults })
  opened.push(gw)
  return gw
}

const gw = audioGateway()

async function speech(body: Record<string, unknown>, on: TestGateway = gw) {
  const response = await on.app.inject({
    method: 'POST',
    url: '/v1/audio/speech',
    headers: { authorization: `Bearer ${KEYS.main}`, 'content-type': 'application/json' },
    payload: body,
  })
  return {
    status: response.statusCode,
    headers: response.headers,
    bytes: response.rawPayload,
    json: () => JSON.parse(response.body),
  }
}

async function transcribe(
  fields: Array<[string, string]>,
  file: { filename: string; content: Buffer } | null = { filename: 'tone.wav', content: wavTone({ seconds: 2 }) },
  endpoint = 'transcriptions',
  on: TestGateway = gw,
) {
  const { payload, headers } = await form(
    fields,
    file === null ? null : { filename: file.filename, contentType: 'application/octet-stream', content: file.content },
  )
  const response = await on.app.inject({
    method: 'POST',
    url: `/v1/audio/${endpoint}`,
    headers: { ...headers, authorization: `Bearer ${KEYS.main}` },
    payload,
  })
  return { status: response.statusCode, headers: response.headers, text: response.body }
}

async function* chunksOf(body: Buffer | string): AsyncGenerator<Uint8Array | string> {
  yield body
}

const hello = { model: 'tts-1', input: 'Hello.', voice: 'alloy' }

describe('POST /v1/audio/speech: the bytes (§4.2)', () => {
  it('answers a WAV correct to the byte: 0.5 s of 24 kHz mono 16-bit for a six-character input', async () => {
    const { status, headers, bytes } = await speech({ ...hello, response_format: 'wav' })
    expect(status).toBe(200)
    expect(headers['content-type']).toBe('audio/wav')
    expect(bytes.length).toBe(44 + 24_000)
    expect(bytes.toString('latin1', 0, 4)).toBe('RIFF')
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8)
    expect(bytes.toString('latin1', 8, 16)).toBe('WAVEfmt ')
    expect([
      bytes.readUInt32LE(16),
      bytes.readUInt16LE(20),
      bytes.readUInt16LE(22),
      bytes.readUInt32LE(24),
      bytes.readUInt32LE(28),
      bytes.readUInt16LE(32),
      bytes.readUInt16LE(34),
    ]).toEqual([16, 1, 1, 24_000, 48_000, 2, 16])
    expect(bytes.toString('latin1', 36, 40)).toBe('data')
    expect(bytes.readUInt32LE(40)).toBe(24_000)
  })

  it('answers pcm as the same samples without the header', async () => {
    const [wav, pcm] = await Promise.all([
      speech({ ...hello, response_format: 'wav' }),
      speech({ ...hello, response_format: 'pcm' }),
    ])
    expect(pcm.bytes.equals(wav.bytes.subarray(44))).toBe(true)
  })

  it('lasts characters / 15 seconds divided by speed', async () => {
    const input = 'x'.repeat(150) // 10 s at speed 1
    for (const [speed, seconds] of [
      [1, 10],
      [2, 5],
      [0.25, 40],
      [4, 2.5],
    ] as const) {
      const { bytes } = await speech({ ...hello, input, speed, response_format: 'wav' })
      expect(readWavHeader(bytes)?.durationSeconds).toBeCloseTo(seconds, 6)
    }
  })

  it('answers every format in its container, each lasting as long as the WAV', async () => {
    const input = 'A sentence of a few seconds for the containers.'
    const expected = input.length / 15
    const signatures: Record<string, string> = {
      mp3: 'fff3',
      opus: '4f676753',
      aac: 'fff1',
      flac: '664c6143',
      wav: '52494646',
    }
    for (const [format, start] of Object.entries(signatures)) {
      const { status, bytes } = await speech({ ...hello, input, response_format: format })
      expect(status).toBe(200)
      expect(bytes.subarray(0, start.length / 2).toString('hex')).toBe(start)
      const container = containerOf(bytes)
      if (format !== 'aac') expect(durationOf(container!, bytes)).toBeCloseTo(expected, 1)
    }
    const { bytes } = await speech({ ...hello, input })
    expect(containerOf(bytes)).toBe('mp3')
  })

  it('streams the same bytes in chunks with stream_format audio', async () => {
    const [plain, streamed] = await Promise.all([
      speech({ ...hello, response_format: 'flac' }),
      speech({ ...hello, response_format: 'flac', stream_format: 'audio' }),
    ])
    expect(streamed.headers['content-length']).toBeUndefined()
    expect(streamed.bytes.equals(plain.bytes)).toBe(true)
  })

  it('streams speech.audio.delta events and a speech.audio.done with usage on a newer model', async () => {
    const { status, headers, bytes } = await speech({
      ...hello,
      model: 'gw-speech-1',
      response_format: 'wav',
      stream_format: 'sse',
    })
    expect(status).toBe(200)
    expect(headers['content-type']).toMatch(/^text\/event-stream/)
    const { events } = await collectSse(chunksOf(bytes))
    const data = events.map((e) => eventJson(e)).map((p) => (p.ok ? (p.value as Record<string, unknown>) : {}))
    expect(data.at(-1)).toMatchObject({
      type: 'speech.audio.done',
      usage: { input_tokens: 2, output_tokens: 16, total_tokens: 18 },
    })
    const audio = Buffer.concat(
      data.filter((d) => d.type === 'speech.audio.delta').map((d) => Buffer.from(String(d.audio), 'base64')),
    )
    expect(readWavHeader(audio)?.durationSeconds).toBe(0.5)
  })
})

describe('POST /v1/audio/speech: the rules (§4.2, §8)', () => {
  it.each([
    ['input of 4096 characters', 200, { input: 'a'.repeat(4096) }],
    ['input of 4097 characters', 400, { input: 'a'.repeat(4097) }],
    ['voice cedar', 200, { voice: 'cedar' }],
    ['an unknown voice', 400, { voice: 'nobody' }],
    ['a voice object on tts-1', 400, { voice: { name: 'Kore', languageCode: 'en-US' } }],
    ['instructions on tts-1', 400, { instructions: 'Calmly.' }],
    ['instructions on tts-1-hd', 400, { model: 'tts-1-hd', instructions: 'Calmly.' }],
    ['instructions on gw-speech-1', 200, { model: 'gw-speech-1', instructions: 'Calmly.' }],
    ['sse on tts-1-hd', 400, { model: 'tts-1-hd', stream_format: 'sse' }],
    ['speed 0.25', 200, { speed: 0.25 }],
    ['speed 4', 200, { speed: 4 }],
    ['speed 4.01', 400, { speed: 4.01 }],
    ['speed 0.24', 400, { speed: 0.24 }],
    ['response_format ogg', 400, { response_format: 'ogg' }],
    ['stream_format chunks', 400, { stream_format: 'chunks' }],
    ['no voice', 400, { voice: undefined }],
    ['a transcription model', 400, { model: 'gw-transcribe-1' }],
    ['an unknown model', 404, { model: 'tts-9' }],
    [
      'the voice object on nv-speech-pro-preview',
      200,
      { model: 'nv-speech-pro-preview', voice: { name: 'Kore', languageCode: 'en-US' } },
    ],
    ['a compatible voice on nv-speech-pro-preview', 400, { model: 'nv-speech-pro-preview' }],
    ['mp3 on the preview model that requires pcm', 400, { model: 'nv-speech-flash-preview', voice: 'Puck' }],
    [
      'pcm on the preview model that requires pcm',
      200,
      { model: 'nv-speech-flash-preview', voice: 'Puck', response_format: 'pcm' },
    ],
  ])('%s answers %i', async (_name, expected, change) => {
    expect((await speech({ ...hello, ...change })).status).toBe(expected)
  })

  it.each([
    ['instructions', { instructions: 'Calmly.' }],
    ['instructions', { model: 'gw-speech-1', instructions: 5 }],
    ['stream_format', { model: 'tts-1-hd', stream_format: 'sse' }],
    ['voice', { voice: undefined }],
    ['voice', { voice: null }],
  ])('refuses with 400 naming %s: %j', async (param, change) => {
    const refused = await speech({ ...hello, ...change })
    expect(refused.status).toBe(400)
    expect(refused.json().error).toMatchObject({ type: 'invalid_request_error', param })
  })

  it('takes what a fault lifts: no voice as alloy, instructions and sse on tts-1', async () => {
    const voiceless = await speech({ model: 'tts-1', input: 'Hello.' }, audioGateway(['speech-voice-optional']))
    expect(voiceless.status).toBe(200)
    expect(voiceless.headers['content-type']).toBe('audio/mpeg')
    const instructed = audioGateway(['speech-instructions-tts1-accepted'])
    expect((await speech({ ...hello, instructions: 'Calmly.' }, instructed)).status).toBe(200)
    const sse = await speech({ ...hello, stream_format: 'sse' }, audioGateway(['speech-sse-tts1-accepted']))
    expect(sse.status).toBe(200)
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/)
  })

  it('charges tts-1 per character and the newer models per token', async () => {
    const charged = audioGateway()
    const account = charged.state.accounts.main()
    const before = remainingUsd(account)
    await speech({ ...hello, input: 'x'.repeat(1000), response_format: 'mp3' }, charged)
    expect(before - remainingUsd(account)).toBeCloseTo((1000 * 15) / 1e6, 9)
    const mid = remainingUsd(account)
    await speech({ ...hello, model: 'gw-speech-1', input: 'Hello there.', response_format: 'mp3' }, charged)
    expect(mid - remainingUsd(account)).toBeCloseTo(speechCostUsd(SPEECH_MODELS['gw-speech-1']!, 12, 3, 0.8), 9)
  })
})

describe('POST /v1/audio/transcriptions (§4.3, §6.1, §8)', () => {
  it('answers json by default, and the formats of the base model', async () => {
    const json = await transcribe([['model', 'gw-transcribe-1']])
    expect(json.status).toBe(200)
    expect(JSON.parse(json.text)).toEqual({ text: 'The quick brown fox jumps over the lazy dog.' })
    expect(
      (
        await transcribe([
          ['model', 'gw-transcribe-1'],
          ['response_format', 'srt'],
        ])
      ).text,
    ).toBe('1\n00:00:00,000 --> 00:00:02,000\nThe quick brown fox jumps over the lazy dog.\n')
    expect(
      (
        await transcribe([
          ['model', 'gw-transcribe-1'],
          ['response_format', 'vtt'],
        ])
      ).text,
    ).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:02\.000\n/)
    const verbose = JSON.parse(
      (
        await transcribe([
          ['model', 'gw-transcribe-1'],
          ['response_format', 'verbose_json'],
          ['timestamp_granularities[]', 'word'],
        ])
      ).text,
    )
    expect(verbose).toMatchObject({ task: 'transcribe', duration: 2 })
    expect(verbose.words).toHaveLength(9)
  })

  it.each([
    [
      'srt on the newer model',
      400,
      [
        ['model', 'gw-transcribe-2'],
        ['response_format', 'srt'],
      ],
    ],
    [
      'diarized_json on the base model',
      400,
      [
        ['model', 'gw-transcribe-1'],
        ['response_format', 'diarized_json'],
      ],
    ],
    [
      'diarized_json on the diarization model',
      200,
      [
        ['model', 'gw-transcribe-2-diarize'],
        ['response_format', 'diarized_json'],
      ],
    ],
    [
      'granularities with json',
      400,
      [
        ['model', 'gw-transcribe-1'],
        ['timestamp_granularities[]', 'word'],
      ],
    ],
    [
      'stream on the base model',
      400,
      [
        ['model', 'gw-transcribe-1'],
        ['stream', 'true'],
      ],
    ],
    [
      'a prompt on the diarization model',
      400,
      [
        ['model', 'gw-transcribe-2-diarize'],
        ['prompt', 'Hi'],
      ],
    ],
    [
      'temperature 1',
      200,
      [
        ['model', 'gw-transcribe-1'],
        ['temperature', '1'],
      ],
    ],
    [
      'temperature 1.01',
      400,
      [
        ['model', 'gw-transcribe-1'],
        ['temperature', '1.01'],
      ],
    ],
    [
      'logprobs with json on the newer model',
      200,
      [
        ['model', 'gw-transcribe-2'],
        ['include[]', 'logprobs'],
      ],
    ],
    [
      'logprobs on the base model',
      400,
      [
        ['model', 'gw-transcribe-1'],
        ['include[]', 'logprobs'],
      ],
    ],
    ['no model', 400, [['response_format', 'json']]],
    ['a speech model', 400, [['model', 'tts-1']]],
  ] as Array<[string, number, Array<[string, string]>]>)('%s answers %i', async (_name, expected, fields) => {
    expect((await transcribe(fields)).status).toBe(expected)
  })

  it.each([
    ['language', 'EN'],
    ['language', 'eng'],
    ['stream', 'yes'],
    ['stream', '1'],
  ])('refuses %s %s with 400 naming it', async (name, value) => {
    const refused = await transcribe([
      ['model', 'gw-transcribe-2'],
      [name, value],
    ])
    expect(refused.status).toBe(400)
    expect(JSON.parse(refused.text).error).toMatchObject({ type: 'invalid_request_error', param: name })
  })

  it('reads the duration from the WAV header: diarization of 30 s is served, of 30.001 s needs chunking_strategy', async () => {
    const diarize: Array<[string, string]> = [['model', 'gw-transcribe-2-diarize']]
    expect(
      (await transcribe(diarize, { filename: 'a.wav', content: wavTone({ seconds: 30, frequency: 0 }) })).status,
    ).toBe(200)
    const over = await transcribe(diarize, { filename: 'a.wav', content: wavTone({ seconds: 30.001, frequency: 0 }) })
    expect(over.status).toBe(400)
    expect(JSON.parse(over.text).error.param).toBe('chunking_strategy')
    expect(
      (
        await transcribe([...diarize, ['chunking_strategy', 'auto']], {
          filename: 'a.wav',
          content: wavTone({ seconds: 31, frequency: 0 }),
        })
      ).status,
    ).toBe(200)
  })

  it('refuses files outside the formats, by extension and by signature', async () => {
    expect(
      (await transcribe([['model', 'gw-transcribe-1']], { filename: 'a.txt', content: Buffer.from('text') })).status,
    ).toBe(400)
    expect(
      (
        await transcribe([['model', 'gw-transcribe-1']], {
          filename: 'a.wav',
          content: Buffer.from('not a wav at all'),
        })
      ).status,
    ).toBe(400)
    expect(
      (await transcribe([['model', 'gw-transcribe-1']], { filename: 'a.opus', content: wavTone({ seconds: 1 }) }))
        .status,
    ).toBe(400)
    expect((await transcribe([['model', 'gw-transcribe-1']], null)).status).toBe(400)
  })

  it('takes up to four known speakers with 2 to 10 s clips, and names segments after them', async () => {
    const speakers = (clips: number[]) =>
      clips.flatMap(
        (s, i): Array<[string, string]> => [
          ['known_speaker_names[]', `S${i}`],
          ['known_speaker_references[]', dataUrl(wavTone({ seconds: s }))],
        ],
      )
    const ok = await transcribe(
      [['model', 'gw-transcribe-2-diarize'], ['response_format', 'diarized_json'], ...speakers([2, 10])],
      { filename: 'a.wav', content: wavTone({ seconds: 12 }) },
    )
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.text).segments.map((s: { speaker: string }) => s.speaker)).toEqual(['S0', 'S1', 'S0'])
    for (const clips of [[2, 2, 2, 2, 2], [1.9], [10.1]])
      expect((await transcribe([['model', 'gw-transcribe-2-diarize'], ...speakers(clips)])).status).toBe(400)
  })

  it('streams deltas then done with usage; diarized streams add segments', async () => {
    const plain = await transcribe(
      [
        ['model', 'gw-transcribe-2'],
        ['stream', 'true'],
      ],
      { filename: 'a.wav', content: wavTone({ seconds: 7 }) },
    )
    const types = (await collectSse(chunksOf(plain.text))).events.map((e) => e.event)
    expect(types.at(-1)).toBe('transcript.text.done')
    expect(types.filter((t) => t !== 'transcript.text.delta')).toEqual(['transcript.text.done'])
    const done = JSON.parse((await collectSse(chunksOf(plain.text))).events.at(-1)!.data)
    expect(done.usage).toMatchObject({
      input_tokens: 224,
      total_tokens: done.usage.input_tokens + done.usage.output_tokens,
    })
    const diarized = await transcribe(
      [
        ['model', 'gw-transcribe-2-diarize'],
        ['stream', 'true'],
      ],
      { filename: 'a.wav', content: wavTone({ seconds: 7 }) },
    )
    const segments = (await collectSse(chunksOf(diarized.text))).events
      .filter((e) => e.event === 'transcript.text.segment')
      .map((e) => JSON.parse(e.data))
    expect(segments.map((s) => [s.speaker, s.start, s.end])).toEqual([
      ['A', 0, 5],
      ['B', 5, 7],
    ])
  })

  it('refuses one byte over 25 MB and charges by the second', async () => {
    const charged = audioGateway()
    const account = charged.state.accounts.main()
    const before = remainingUsd(account)
    const ok = await transcribe(
      [['model', 'gw-transcribe-1']],
      { filename: 'a.wav', content: wavTone({ seconds: 10 }) },
      'transcriptions',
      charged,
    )
    expect(ok.status).toBe(200)
    expect(before - remainingUsd(account)).toBeCloseTo(transcriptionCostUsd('gw-transcribe-1', 10, 20), 9)
    const big = Buffer.alloc(25_000_001)
    big.write('RIFF', 0, 'latin1')
    expect(
      (await transcribe([['model', 'gw-transcribe-1']], { filename: 'a.wav', content: big }, 'transcriptions', charged))
        .status,
    ).toBe(400)
  })
})

describe('POST /v1/audio/translations (§4.4)', () => {
  it('answers English text with the base model and refuses the newer ones', async () => {
    const ok = await transcribe(
      [
        ['model', 'gw-transcribe-1'],
        ['prompt', 'A greeting.'],
      ],
      undefined,
      'translations',
    )
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.text).text).toMatch(/^[A-Za-z .]+$/)
    expect((await transcribe([['model', 'gw-transcribe-2']], undefined, 'translations')).status).toBe(400)
  })

  it('is a 404 under the fault translation-route-missing', async () => {
    expect(
      (
        await transcribe(
          [['model', 'gw-transcribe-1']],
          undefined,
          'translations',
          audioGateway(['translation-route-missing']),
        )
      ).status,
    ).toBe(404)
  })
})

describe('choices the reference leaves open (gateway/variations.ts)', () => {
  function varied(variation: string): TestGateway {
    const on = testGateway({ variations: [variation] })
    opened.push(on)
    return on
  }

  it('streaming-wav writes the RIFF and data sizes as unknown, and reads such a WAV to its end', async () => {
    const { status, bytes } = await speech({ ...hello, response_format: 'wav' }, varied('streaming-wav'))
    expect(status).toBe(200)
    expect(bytes.readUInt32LE(4)).toBe(0xffffffff)
    expect(bytes.readUInt32LE(40)).toBe(0xffffffff)
    expect(readWavHeader(bytes)?.dataBytes).toBe(bytes.length - 44)
    expect(readWavHeader(bytes)?.durationSeconds).toBeCloseTo(0.5, 6)
  })

  it('lenient-audio-fields accepts and ignores what tts-1 and the base model do not support', async () => {
    const on = varied('lenient-audio-fields')
    expect((await speech({ ...hello, instructions: 'Calmly.' }, on)).status).toBe(200)
    const sse = await speech({ ...hello, response_format: 'wav', stream_format: 'sse' }, on)
    expect(sse.status).toBe(200)
    expect(sse.bytes.toString('latin1', 0, 4)).toBe('RIFF')
    const base = await transcribe(
      [
        ['model', 'gw-transcribe-1'],
        ['stream', 'true'],
        ['timestamp_granularities[]', 'word'],
      ],
      undefined,
      'transcriptions',
      on,
    )
    expect(base.status).toBe(200)
    expect(typeof JSON.parse(base.text).text).toBe('string')
    const diarized = await transcribe(
      [
        ['model', 'gw-transcribe-2-diarize'],
        ['prompt', 'Two colleagues.'],
      ],
      undefined,
      'transcriptions',
      on,
    )
    expect(diarized.status).toBe(200)
  })

  it('lenient-enums answers an unknown format with the default', async () => {
    const on = varied('lenient-enums')
    const ogg = await speech({ ...hello, response_format: 'ogg', stream_format: 'chunks' }, on)
    expect(ogg.status).toBe(200)
    expect(ogg.headers['content-type']).toBe('audio/mpeg')
    const xml = await transcribe(
      [
        ['model', 'gw-transcribe-1'],
        ['response_format', 'xml'],
      ],
      undefined,
      'transcriptions',
      on,
    )
    expect(xml.status).toBe(200)
    expect(typeof JSON.parse(xml.text).text).toBe('string')
  })

  it('speech-voices-per-model gives tts-1 the older voices and the newer model all but two', async () => {
    const on = varied('speech-voices-per-model')
    const status = async (model: string, voice: string) =>
      (await speech({ ...hello, model, voice, response_format: 'pcm' }, on)).status
    expect([await status('tts-1', 'cedar'), await status('gw-speech-1', 'cedar')]).toEqual([400, 200])
    expect([await status('tts-1', 'fable'), await status('gw-speech-1', 'fable')]).toEqual([200, 400])
  })

  it('diarize-integer-speakers numbers the speakers and segment ids of a diarized stream', async () => {
    const on = varied('diarize-integer-speakers')
    const streamed = await transcribe(
      [
        ['model', 'gw-transcribe-2-diarize'],
        ['response_format', 'diarized_json'],
        ['stream', 'true'],
      ],
      undefined,
      'transcriptions',
      on,
    )
    expect(streamed.status).toBe(200)
    const segment = streamed.text.split('\n').find((line) => line.includes('"transcript.text.segment"'))
    const data = JSON.parse((segment ?? '').replace(/^data: /, ''))
    expect([typeof data.speaker, typeof data.id]).toEqual(['number', 'number'])
  })

  it('audio-file-415 refuses a file in no audio format with 415', async () => {
    const text = { filename: 'notes.txt', content: Buffer.from('not audio') }
    const on = varied('audio-file-415')
    expect((await transcribe([['model', 'gw-transcribe-1']], text, 'transcriptions', on)).status).toBe(415)
    expect((await transcribe([['model', 'gw-transcribe-1']], text, 'translations', on)).status).toBe(415)
  })

  it('range-refusals-422 refuses speed, input and temperature past their range with 422', async () => {
    const on = varied('range-refusals-422')
    expect((await speech({ ...hello, speed: 4.01 }, on)).status).toBe(422)
    expect((await speech({ ...hello, input: 'a'.repeat(4097) }, on)).status).toBe(422)
    expect((await speech({ ...hello, speed: 4 }, on)).status).toBe(200)
    const hot = await transcribe(
      [
        ['model', 'gw-transcribe-1'],
        ['temperature', '1.01'],
      ],
      undefined,
      'transcriptions',
      on,
    )
    expect(hot.status).toBe(422)
  })

  it('audio-upload-mib moves the upload limit to 25 MiB', async () => {
    const on = varied('audio-upload-mib')
    const file = { filename: 'big.wav', content: wavOfSize(25_000_001).bytes }
    expect((await transcribe([['model', 'gw-transcribe-1']], file, 'transcriptions', on)).status).toBe(200)
    const over = { filename: 'bigger.wav', content: wavOfSize(25 * 1024 * 1024 + 1).bytes }
    expect((await transcribe([['model', 'gw-transcribe-1']], over, 'transcriptions', on)).status).toBe(400)
  })
})

describe('faults of the diarization edge', () => {
  it('chunking-from-29s refuses 29 s without chunking_strategy, which is served without the fault', async () => {
    const file = { filename: 'tone.wav', content: wavTone({ seconds: 29 }) }
    const fields: Array<[string, string]> = [['model', 'gw-transcribe-2-diarize']]
    expect((await transcribe(fields, file)).status).toBe(200)
    expect((await transcribe(fields, file, 'transcriptions', audioGateway(['chunking-from-29s']))).status).toBe(400)
  })
})

describe('a key on every audio endpoint (Part 2 §5.1)', () => {
  it('refuses a call without a key with 401, and serves it under the fault audio-missing-key-allowed', async () => {
    const without = (on: TestGateway) => on.app.inject({ method: 'POST', url: '/v1/audio/speech', payload: hello })
    expect((await without(gw)).statusCode).toBe(401)
    expect((await without(audioGateway(['audio-missing-key-allowed']))).statusCode).toBe(200)
  })
})
