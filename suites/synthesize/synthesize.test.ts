/** POST /v1/text:synthesize (Part 2 §2.6, §4.9): the answer, its audio, encodings, rates and models. */
import { describe } from 'vitest'
import {
  expectSchema,
  expectSuccess,
  expectThat,
  fail,
  precondition,
  expectRefused,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { howToNameId } from '../shared/names.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { decodeBase64, describe as describeBytes, isMp3, isOggOpus, isRiff, readWav } from '../native/audio-bytes.ts'
import {
  ENCODINGS,
  listedRates,
  REFERENCE_MODELS,
  synthesisBody,
  synthesisModels,
  synthesize,
  type Encoding,
} from './fixtures.ts'

const api = target()
const models = synthesisModels(api)

/** The asked encodings and rates whose answers several checks read, each requested once per file. */
/** Every listed encoding at each rate the request schema lists for it, or at its automatic rate. */
const CASES: ReadonlyArray<{ encoding: Encoding; rate?: number }> = ENCODINGS.flatMap((encoding) =>
  (listedRates(encoding) ?? [undefined]).map((rate) => (rate === undefined ? { encoding } : { encoding, rate })),
)

const label = (c: { encoding: string; rate?: number }): string =>
  c.rate === undefined ? c.encoding : `${c.encoding} at ${c.rate} Hz`

const answers = new Map(
  CASES.map((c) => [
    label(c),
    memo(async () =>
      synthesize(
        api,
        synthesisBody({
          model: (await models.first()).id,
          encoding: c.encoding,
          ...(c.rate === undefined ? {} : { rate: c.rate }),
        }),
      ),
    ),
  ]),
)

async function answer(c: { encoding: Encoding; rate?: number }): Promise<Exchange> {
  return (answers.get(label(c)) as () => Promise<Exchange>)()
}

/**
 * The 200 body's audioConfig and decoded audioContent, or a failure of P2-2.6-synthesis-response's shape. An
 * asked case that was refused is P2-4.9-sample-rates' (a rate given) or P2-4.9-encodings' to report.
 */
function audioOf(
  ex: Exchange,
  c: { encoding: string; rate?: number },
): { config: Record<string, unknown>; bytes: Buffer } {
  precondition(
    ex.status >= 200 && ex.status < 300,
    c.rate === undefined ? 'P2-4.9-encodings' : 'P2-4.9-sample-rates',
    `${label(c)} answered ${ex.status}`,
  )
  const body = ex.json
  const config = isObject(body) && isObject(body.audioConfig) ? body.audioConfig : undefined
  const content = isObject(body) && typeof body.audioContent === 'string' ? body.audioContent : undefined
  if (config === undefined || content === undefined)
    return fail('audioContent (string) and audioConfig (object)', 'missing', ex)
  const bytes = decodeBase64(content)
  if (bytes === undefined) return fail('audioContent in Base64', `${content.slice(0, 40)}...`, ex)
  return { config, bytes }
}

/** Whether the bytes are audio of the asked encoding at all: a list of problems (empty when they are). */
function contentProblems(encoding: Encoding, bytes: Buffer): string[] {
  if (bytes.length === 0) return ['no audio bytes']
  if (encoding === 'MP3') return isMp3(bytes) ? [] : [`not MP3 (no ID3 tag or frame sync): ${describeBytes(bytes)}`]
  if (encoding === 'OGG_OPUS')
    return isOggOpus(bytes) ? [] : [`not Ogg Opus (no OggS page with OpusHead): ${describeBytes(bytes)}`]
  if (isRiff(bytes)) {
    const wav = readWav(bytes)
    return wav.ok ? [] : [`a broken WAV file: ${wav.problem}`]
  }
  return encoding === 'LINEAR16' && bytes.length % 2 !== 0
    ? [`${bytes.length} bytes of raw LINEAR16: not whole 16-bit samples`]
    : []
}

/** How LINEAR16, MULAW and ALAW are wrapped, where they come as WAV: format code, sample size and rate. */
function containerProblems(encoding: Encoding, rate: number | undefined, bytes: Buffer): string[] {
  if (!isRiff(bytes)) {
    observe(`text:synthesize ${encoding}`, `raw samples, ${bytes.length} bytes`)
    return []
  }
  const wav = readWav(bytes)
  if (!wav.ok) return [`a broken WAV file: ${wav.problem}`]
  observe(
    `text:synthesize ${encoding}`,
    `WAV: format ${wav.info.format}, ${wav.info.sampleRate} Hz, ${wav.info.bitsPerSample}-bit, ${wav.info.channels} channel(s)`,
  )
  const wantFormat = encoding === 'LINEAR16' ? 1 : encoding === 'ALAW' ? 6 : 7
  const wantBits = encoding === 'LINEAR16' ? 16 : 8
  const wantRate = rate ?? (encoding === 'LINEAR16' ? undefined : 8_000)
  const problems: string[] = []
  if (wav.info.format !== wantFormat)
    problems.push(`WAV format ${wav.info.format}, expected ${wantFormat} for ${encoding}`)
  if (wav.info.bitsPerSample !== wantBits) problems.push(`${wav.info.bitsPerSample}-bit samples, expected ${wantBits}`)
  if (wantRate !== undefined && wav.info.sampleRate !== wantRate)
    problems.push(`${wav.info.sampleRate} Hz, expected ${wantRate}`)
  return problems
}

describe('the synthesis response (Part 2 §2.6)', () => {
  check('P2-2.6-synthesis-response', 'text:synthesize answers audioContent, timepoints and audioConfig', async () => {
    const ex = await answer({ encoding: 'LINEAR16', rate: 24_000 })
    expectSuccess(ex)
    expectSchema(ex, 'synthesize/synthesis-response.json')
  })

  for (const c of CASES) {
    check('P2-2.6-audio-config-echo', `audioConfig echoes ${label(c)}`, async () => {
      const ex = await answer(c)
      const { config } = audioOf(ex, c)
      const seen = `audioEncoding ${JSON.stringify(config.audioEncoding)}, sampleRateHertz ${JSON.stringify(config.sampleRateHertz)}`
      expectThat(config.audioEncoding === c.encoding, `audioConfig.audioEncoding ${c.encoding}`, seen, ex)
      if (c.rate !== undefined)
        expectThat(config.sampleRateHertz === c.rate, `audioConfig.sampleRateHertz ${c.rate}`, seen, ex)
    })

    check('P2-2.6-audio-content', `audioContent is ${label(c)} audio`, async () => {
      const ex = await answer(c)
      const { bytes } = audioOf(ex, c)
      const problems = contentProblems(c.encoding, bytes)
      expectThat(problems.length === 0, `audio in ${label(c)}`, problems, ex)
    })

    if (c.encoding === 'LINEAR16' || c.encoding === 'MULAW' || c.encoding === 'ALAW')
      check('P2-2.6-audio-container', `${label(c)} as WAV says its format, sample size and rate`, async () => {
        const ex = await answer(c)
        const { bytes } = audioOf(ex, c)
        const problems = containerProblems(c.encoding, c.rate, bytes)
        expectThat(problems.length === 0, `a WAV header of ${label(c)}`, problems, ex)
      })
  }
})

describe('encodings, rates and models (§4.9)', () => {
  for (const encoding of ENCODINGS) {
    check('P2-4.9-encodings', `audioEncoding ${encoding} is accepted`, async () => {
      const c = CASES.find((x) => x.encoding === encoding) as { encoding: Encoding; rate?: number }
      expectSuccess(await answer(c))
    })
  }
  for (const encoding of ['WAV', 'FLAC']) {
    check('P2-4.9-encodings-refused', `audioEncoding ${encoding} is refused (a 4xx)`, async () => {
      expectRefused(
        await synthesize(api, synthesisBody({ model: (await models.first()).id, encoding })),
        'not one of the five encodings',
      )
    })
  }
  // The enum in another case may be read by a lenient parser as LINEAR16: only recorded.
  check('P2-4.9-encodings-refused', 'how audioEncoding linear16 (lowercase) is answered is recorded', async () => {
    const ex = await synthesize(api, synthesisBody({ model: (await models.first()).id, encoding: 'linear16' }))
    observe('text:synthesize audioEncoding linear16', `answered ${ex.status}`)
  })

  for (const rate of listedRates('LINEAR16') ?? []) {
    check('P2-4.9-sample-rates', `LINEAR16 at ${rate} Hz is accepted`, async () => {
      expectSuccess(await answer({ encoding: 'LINEAR16', rate }))
    })
  }
  for (const encoding of ['MULAW', 'ALAW'] as const) {
    for (const rate of listedRates(encoding) ?? [])
      check('P2-4.9-sample-rates', `${encoding} at ${rate} Hz is accepted`, async () => {
        expectSuccess(await answer({ encoding, rate }))
      })
  }
  for (const [encoding, rate] of [
    ['LINEAR16', 22_050],
    ['LINEAR16', 44_100],
    ['MULAW', 16_000],
    ['ALAW', 16_000],
  ] as const) {
    check('P2-4.9-sample-rates-refused', `${encoding} at ${rate} Hz is refused (a 4xx)`, async () => {
      expectRefused(
        await synthesize(api, synthesisBody({ model: (await models.first()).id, encoding, rate })),
        'not a listed rate of the encoding',
      )
    })
  }

  // The optional fields of §4.9, each on its own so that a refusal names the field.
  check('P2-4.9-optional-fields', 'input.prompt (a styling instruction) is accepted', async () => {
    const body = synthesisBody({ model: (await models.first()).id, encoding: 'MP3' })
    const input = body.input as Record<string, unknown>
    expectSuccess(await synthesize(api, { ...body, input: { ...input, prompt: 'Say it warmly.' } }))
  })
  check('P2-4.9-optional-fields', 'LINEAR16 without sampleRateHertz is accepted', async () => {
    expectSuccess(await synthesize(api, synthesisBody({ model: (await models.first()).id, encoding: 'LINEAR16' })))
  })
  check(
    'P2-4.9-optional-fields',
    'voice.multiSpeakerVoiceConfig.speakerVoiceConfigs of {speakerAlias, speakerId} is accepted',
    async () => {
      const body = synthesisBody({
        model: (await models.first()).id,
        encoding: 'MP3',
        text: 'Ann: Good morning. Ben: Morning to you.',
      })
      const { name: _name, ...voice } = body.voice as Record<string, unknown>
      const speakerVoiceConfigs = [
        { speakerAlias: 'Ann', speakerId: 'Kore' },
        { speakerAlias: 'Ben', speakerId: 'Puck' },
      ]
      expectSuccess(
        await synthesize(api, { ...body, voice: { ...voice, multiSpeakerVoiceConfig: { speakerVoiceConfigs } } }),
      )
    },
  )

  check(
    'P2-4.9-models',
    'the synthesis models are accepted (named by GATEWAY_NAMES, or listed at the prices §4.9 states)',
    async () => {
      const named = await models.named()
      for (const { reference, id, by, ex } of named)
        expectSuccess(ex, `${id} is the target's ${reference} (by ${by}), a model of §4.9`)
      if (named.length === 0)
        skipTest(
          `neither named nor listed at the prices §4.9 states, the synthesis models are not known; ${howToNameId(REFERENCE_MODELS[0])}`,
        )
    },
  )
  // Part 1 §7 gives 400 for an invalid request and 404 for a missing resource; the words state neither for this.
  check('P2-4.9-models-refused', 'an unknown voice.model_name is refused (a 4xx)', async () => {
    expectRefused(await synthesize(api, synthesisBody({ model: 'gc-no-such-tts-model' })), 'not a model of §4.9')
  })
})
