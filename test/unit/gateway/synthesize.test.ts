/** Native speech synthesis of the reference gateway (Part 2 sections 2.6, 4.9, 5.3, 7). */
import { afterAll, describe, expect, it } from 'vitest'
import { remainingUsd } from '../../../gateway/account/billing.ts'
import { REAL_NAMES } from '../../../gateway/variations.ts'
import { KEYS, testGateway, type CallResult } from './helpers.ts'

const gw = testGateway()
afterAll(() => gw.app.close())

const body = (audioConfig: Record<string, unknown>, text = 'Hello there.', model = 'nv-tts-flash') => ({
  input: { text },
  voice: { languageCode: 'en-US', name: 'Kore', model_name: model },
  audioConfig,
})
const post = (payload: unknown, options: Parameters<typeof gw.call>[1] = {}) =>
  gw.call('/v1/text:synthesize', { method: 'POST', body: payload, ...options })
const audio = (response: { body: { audioContent: string } }) => Buffer.from(response.body.audioContent, 'base64')

describe('POST /v1/text:synthesize', () => {
  it('answers LINEAR16 as WAV at the asked rate, echoes audioConfig, and charges the caller', async () => {
    const before = remainingUsd(gw.state.accounts.main())
    const response = await post(body({ audioEncoding: 'LINEAR16', sampleRateHertz: 16_000 }))
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({
      timepoints: [],
      audioConfig: { audioEncoding: 'LINEAR16', sampleRateHertz: 16_000 },
    })
    const bytes = audio(response)
    expect(bytes.toString('ascii', 0, 4)).toBe('RIFF')
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8)
    expect(bytes.readUInt16LE(20)).toBe(1)
    expect(bytes.readUInt32LE(24)).toBe(16_000)
    expect(remainingUsd(gw.state.accounts.main())).toBeLessThan(before)
  })

  it('writes each encoding in its own container', async () => {
    const mp3 = audio(await post(body({ audioEncoding: 'MP3' })))
    expect([mp3[0], mp3[1]! & 0xe0]).toEqual([0xff, 0xe0])
    const ogg = audio(await post(body({ audioEncoding: 'OGG_OPUS' })))
    expect(ogg.toString('ascii', 0, 4)).toBe('OggS')
    expect(ogg.toString('ascii', 28, 36)).toBe('OpusHead')
    for (const [encoding, format] of [
      ['MULAW', 7],
      ['ALAW', 6],
    ] as const) {
      const response = await post(body({ audioEncoding: encoding }))
      expect(response.body.audioConfig).toEqual({ audioEncoding: encoding, sampleRateHertz: 8000 })
      const wav = audio(response)
      expect([wav.readUInt16LE(20), wav.readUInt32LE(24), wav.readUInt16LE(34)]).toEqual([format, 8000, 8])
    }
  })

  it('refuses missing fields, unknown encodings, wrong rates and other models with 400 in the native dialect', async () => {
    const bad = [
      { voice: { languageCode: 'en-US', model_name: 'nv-tts-flash' }, audioConfig: { audioEncoding: 'MP3' } },
      { ...body({ audioEncoding: 'MP3' }), voice: { model_name: 'nv-tts-flash' } },
      body({}),
      body({ audioEncoding: 'FLAC' }),
      body({ audioEncoding: 'LINEAR16', sampleRateHertz: 22_050 }),
      body({ audioEncoding: 'MULAW', sampleRateHertz: 16_000 }),
      body({ audioEncoding: 'MP3' }, 'Hi', 'nv-speech-flash-preview'),
      { ...body({ audioEncoding: 'MP3' }), input: { text: 'Hi', prompt: 5 } },
      { ...body({ audioEncoding: 'MP3' }), voice: { languageCode: 'e', model_name: 'nv-tts-flash' } },
      { ...body({ audioEncoding: 'MP3' }), voice: { languageCode: 'engl', model_name: 'nv-tts-flash' } },
      body({ audioEncoding: 'MP3', sampleRateHertz: 0 }),
      body({ audioEncoding: 'MP3', sampleRateHertz: 24_000.5 }),
      body({ audioEncoding: 'LINEAR16', sampleRateHertz: '24000' }),
    ]
    for (const payload of bad) {
      const response = await post(payload)
      expect(response.status, JSON.stringify(payload)).toBe(400)
      expect(response.body).toEqual({ error: { code: 400, message: expect.any(String), status: 'INVALID_ARGUMENT' } })
    }
  })

  it('enforces 4000 bytes of text with 413', async () => {
    expect((await post(body({ audioEncoding: 'MP3' }, 'é'.repeat(2000)))).status).toBe(200)
    const over = await post(body({ audioEncoding: 'MP3' }, `${'é'.repeat(2000)}a`))
    expect(over.status).toBe(413)
    expect(over.body.error).toMatchObject({ code: 413 })
  })

  it('takes Bearer only: x-native-api-key is no key here', async () => {
    const response = await post(body({ audioEncoding: 'MP3' }), {
      key: null,
      headers: { 'x-native-api-key': KEYS.main },
    })
    expect(response.status).toBe(401)
    expect(response.body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' })
  })

  it('answers a per-model 429 in the native dialect', async () => {
    let last: Pick<CallResult, 'status' | 'body'> = { status: 0, body: undefined }
    for (let i = 0; i < 8 && last.status !== 429; i += 1)
      last = await post(body({ audioEncoding: 'MP3' }), { key: 'tier0' })
    expect(last.status).toBe(429)
    expect(last.body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' })
  })
})

describe('choices the reference leaves open (gateway/variations.ts)', () => {
  it('raw-synthesis-audio answers LINEAR16, MULAW and ALAW as raw samples', async () => {
    const on = testGateway({ variations: ['raw-synthesis-audio'] })
    const call = (config: Record<string, unknown>) =>
      on.call('/v1/text:synthesize', { method: 'POST', body: body(config) })
    const linear = audio(await call({ audioEncoding: 'LINEAR16', sampleRateHertz: 16_000 }))
    expect(linear.toString('ascii', 0, 4)).not.toBe('RIFF')
    expect(linear.length % 2).toBe(0)
    expect(audio(await call({ audioEncoding: 'MULAW' })).toString('ascii', 0, 4)).not.toBe('RIFF')
    await on.app.close()
  })

  it('synthesis-ceiling-5000 takes 4001 bytes and refuses far more with 413', async () => {
    const on = testGateway({ variations: ['synthesis-ceiling-5000'] })
    const call = (text: string) =>
      on.call('/v1/text:synthesize', { method: 'POST', body: body({ audioEncoding: 'MP3' }, text) })
    expect((await call('a'.repeat(4001))).status).toBe(200)
    expect((await call('a'.repeat(40_000))).status).toBe(413)
    await on.app.close()
  })

  it('synthesis-any-rate resamples to any rate; lenient-enums reads linear16 as LINEAR16', async () => {
    const on = testGateway({ variations: ['synthesis-any-rate', 'lenient-enums'] })
    const call = (config: Record<string, unknown>) =>
      on.call('/v1/text:synthesize', { method: 'POST', body: body(config) })
    const resampled = await call({ audioEncoding: 'LINEAR16', sampleRateHertz: 22_050 })
    expect([resampled.status, resampled.body.audioConfig.sampleRateHertz]).toEqual([200, 22_050])
    expect((await call({ audioEncoding: 'linear16' })).body.audioConfig.audioEncoding).toBe('LINEAR16')
    expect((await call({ audioEncoding: 'WAV' })).status).toBe(400)
    await on.app.close()
  })

  it('the fault synthesize-language-optional answers a voice without languageCode, and still refuses a bad one', async () => {
    const on = testGateway({ faults: ['synthesize-language-optional'] })
    const call = (voice: Record<string, unknown>) =>
      on.call('/v1/text:synthesize', {
        method: 'POST',
        body: { ...body({ audioEncoding: 'MP3' }), voice: { model_name: 'nv-tts-flash', ...voice } },
      })
    expect((await call({})).status).toBe(200)
    expect((await call({ languageCode: 'engl' })).status).toBe(400)
    expect((await call({ languageCode: 7 })).status).toBe(400)
    await on.app.close()
  })

  it('the faults synthesize-ogg-opus-refused and synthesize-48000-refused refuse a listed value', async () => {
    const on = testGateway({ faults: ['synthesize-ogg-opus-refused', 'synthesize-48000-refused'] })
    const call = (config: Record<string, unknown>) =>
      on.call('/v1/text:synthesize', { method: 'POST', body: body(config) })
    expect((await call({ audioEncoding: 'OGG_OPUS' })).status).toBe(400)
    expect((await call({ audioEncoding: 'LINEAR16', sampleRateHertz: 48_000 })).status).toBe(400)
    expect((await call({ audioEncoding: 'LINEAR16', sampleRateHertz: 24_000 })).status).toBe(200)
    await on.app.close()
  })

  it("real-names serves the two models under their makers' names", async () => {
    const on = testGateway({ variations: ['real-names'] })
    const call = (model: string) =>
      on.call('/v1/text:synthesize', { method: 'POST', body: body({ audioEncoding: 'MP3' }, 'Hi.', model) })
    expect((await call(REAL_NAMES['<tts_flash_model>']!)).status).toBe(200)
    expect((await call(REAL_NAMES['<tts_pro_model>']!)).status).toBe(200)
    await on.app.close()
  })
})
