/** The native interface of the reference gateway (Part 2 sections 2.5, 4.8, 5.1, 5.2). */
import { afterAll, describe, expect, it } from 'vitest'
import { remainingUsd } from '../../../gateway/account/billing.ts'
import { KEYS, testGateway } from './helpers.ts'

const gw = testGateway()
afterAll(() => gw.app.close())

const path = (model: string, method = 'generateContent') => `/v1beta/models/${model}:${method}`
const text = {
  contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
  generationConfig: { maxOutputTokens: 200, temperature: 0 },
}
const post = (url: string, body: unknown, options: Parameters<typeof gw.call>[1] = {}) =>
  gw.call(url, { method: 'POST', body, ...options })

describe('generateContent', () => {
  it('answers the §2.5 shape, records the model and charges the caller', async () => {
    const before = remainingUsd(gw.state.accounts.main())
    const response = await post(path('nv-gen-flash'), text)
    expect(response.status).toBe(200)
    const [candidate] = response.body.candidates
    expect(candidate).toMatchObject({ content: { role: 'model' }, index: 0, finishReason: expect.any(String) })
    expect(candidate.content.parts[0].text).toEqual(expect.any(String))
    expect(candidate.safetyRatings[0]).toMatchObject({ category: expect.any(String), probability: expect.any(String) })
    const usage = response.body.usageMetadata
    expect(usage.totalTokenCount).toBe(
      usage.promptTokenCount + usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0),
    )
    expect(response.body).toMatchObject({ modelVersion: 'nv-gen-flash', responseId: expect.any(String) })
    expect(remainingUsd(gw.state.accounts.main())).toBeLessThan(before)
  })

  it('takes the key as Bearer or x-native-api-key, and refuses none or an unknown one with a native error body', async () => {
    expect(
      (await post(path('nv-gen-flash'), text, { key: null, headers: { 'x-native-api-key': KEYS.main } })).status,
    ).toBe(200)
    const missing = await post(path('nv-gen-flash'), text, { key: null })
    expect(missing.status).toBe(401)
    expect(missing.body).toEqual({ error: { code: 401, message: expect.any(String), status: 'UNAUTHENTICATED' } })
    expect(
      (await post(path('nv-gen-flash'), text, { key: null, headers: { 'x-native-api-key': 'sk-nope' } })).status,
    ).toBe(401)
    // Only the native interface reads the header (Part 2 section 5.2).
    expect((await gw.call('/v1/models', { key: null, headers: { 'x-native-api-key': KEYS.main } })).status).toBe(401)
  })

  it('takes the key in the header --native-key-header names instead of x-native-api-key', async () => {
    const named = testGateway({ nativeKeyHeader: 'X-Vendor-Api-Key' })
    try {
      const call = (headers: Record<string, string>) =>
        named.call(path('nv-gen-flash'), { method: 'POST', body: text, key: null, headers })
      expect((await call({ 'x-vendor-api-key': KEYS.main })).status).toBe(200)
      expect((await call({ 'x-native-api-key': KEYS.main })).status).toBe(401)
      expect((await named.call('/v1/models', { key: null, headers: { 'x-vendor-api-key': KEYS.main } })).status).toBe(
        401,
      )
    } finally {
      await named.app.close()
    }
  })

  it('serves only the native models, and only the named methods', async () => {
    expect((await post(path('gw-chat-mini'), text)).body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' })
    expect((await post(path('nv-tts-flash'), text)).status).toBe(404)
    expect((await post(path('nv-gen-flash', 'fooBar'), text)).status).toBe(404)
    expect((await post(path('nv-gen-flash', 'countTokens'), text)).body).toEqual({ totalTokens: 2 })
    expect((await post(path('nv-gen-flash', 'embedContent'), text)).status).toBe(400)
  })

  it('enforces roles, contents and the generationConfig ranges with 400', async () => {
    const bad = [
      { generationConfig: {} },
      { contents: [{ role: 'system', parts: [{ text: 'x' }] }] },
      { contents: [{ parts: [{ text: 'x' }] }] },
      { ...text, generationConfig: { temperature: 2.01 } },
      { ...text, generationConfig: { temperature: -0.01 } },
      { ...text, generationConfig: { maxOutputTokens: 1.5 } },
      { ...text, generationConfig: { thinkingConfig: { thinkingLevel: 'max' } } },
      { ...text, generationConfig: { thinkingConfig: { thinkingBudget: 2.5 } } },
    ]
    for (const body of bad) expect((await post(path('nv-gen-flash'), body)).status, JSON.stringify(body)).toBe(400)
    const good = [
      { ...text, system_instruction: { parts: [{ text: 'Be brief.' }] } },
      { ...text, generationConfig: { temperature: 2, thinkingConfig: { thinkingLevel: 'high' } } },
      { ...text, generationConfig: { temperature: 0, thinkingConfig: { thinkingBudget: 0 } } },
    ]
    for (const body of good) expect((await post(path('nv-gen-flash'), body)).status, JSON.stringify(body)).toBe(200)
  })

  it('thinkingBudget 0 disables thinking', async () => {
    const response = await post(path('nv-gen-flash'), {
      ...text,
      generationConfig: { thinkingConfig: { thinkingBudget: 0 } },
    })
    expect(response.body.usageMetadata.thoughtsTokenCount).toBeUndefined()
  })
})

describe('streamGenerateContent', () => {
  it('writes a JSON array by default and SSE with ?alt=sse; only the last chunk has finishReason', async () => {
    const array = await post(path('nv-gen-flash', 'streamGenerateContent'), {
      ...text,
      generationConfig: { ...text.generationConfig, thinkingConfig: { thinkingBudget: 0 } },
    })
    expect(array.headers['content-type']).toMatch(/^application\/json/)
    expect(array.body.length).toBeGreaterThan(1)
    const finishes = array.body.map(
      (c: { candidates: Array<{ finishReason?: string }> }) => c.candidates[0]!.finishReason,
    )
    expect(finishes.slice(0, -1).every((f: unknown) => f === undefined)).toBe(true)
    expect(finishes.at(-1)).toEqual(expect.any(String))
    const sse = await post(`${path('nv-gen-flash', 'streamGenerateContent')}?alt=sse`, text)
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/)
    const chunks = String(sse.body)
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => JSON.parse(e.slice(6)))
    expect(chunks.at(-1).candidates[0].finishReason).toEqual(expect.any(String))
  })
})

describe('newer speech models', () => {
  const speech = {
    contents: [{ role: 'user', parts: [{ text: 'Read this aloud.' }] }],
    generationConfig: { responseModalities: ['AUDIO'] },
  }

  it('answers WAV by default and raw L16 when asked', async () => {
    const wav = await post(path('nv-speech-flash-preview'), speech)
    const inline = wav.body.candidates[0].content.parts[0].inlineData
    expect(inline.mimeType).toBe('audio/wav')
    const bytes = Buffer.from(inline.data, 'base64')
    expect(bytes.toString('ascii', 0, 4)).toBe('RIFF')
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8)
    expect(bytes.readUInt32LE(24)).toBe(24_000)
    const pcm = await post(path('nv-speech-flash-preview'), {
      ...speech,
      generationConfig: { responseMimeType: 'audio/L16' },
    })
    const raw = pcm.body.candidates[0].content.parts[0].inlineData
    expect(raw.mimeType).toBe('audio/L16;codec=pcm;rate=24000')
    expect(Buffer.from(raw.data, 'base64').length).toBe(bytes.length - 44)
    expect(wav.body.usageMetadata.candidatesTokensDetails[0].modality).toBe('AUDIO')
  })

  it('refuses thinkingConfig, tools, image or audio input, a third speaker and an unknown speaker', async () => {
    const speakers = (...names: string[]) => ({
      multiSpeakerVoiceConfig: { speakerVoiceConfigs: names.map((speaker) => ({ speaker, voiceConfig: {} })) },
    })
    const dialogue = (a: string, b: string) => [
      {
        role: 'user',
        parts: [
          { text: 'Hi.', speechMetadata: { speaker: a } },
          { text: 'Hello.', speechMetadata: { speaker: b } },
        ],
      },
    ]
    const bad = [
      { ...speech, generationConfig: { thinkingConfig: { thinkingBudget: 0 } } },
      { ...speech, tools: [{ functionDeclarations: [] }] },
      {
        contents: [{ role: 'user', parts: [{ text: 'x' }, { inline_data: { mime_type: 'image/png', data: 'AAAA' } }] }],
      },
      { contents: [{ role: 'user', parts: [{ text: 'x' }, { inlineData: { mimeType: 'audio/wav', data: 'AAAA' } }] }] },
      { contents: dialogue('Ann', 'Ben'), generationConfig: { speechConfig: speakers('Ann', 'Ben', 'Cleo') } },
      { contents: dialogue('Ann', 'Dora'), generationConfig: { speechConfig: speakers('Ann', 'Ben') } },
    ]
    for (const body of bad)
      expect((await post(path('nv-speech-flash-preview'), body)).status, JSON.stringify(body)).toBe(400)
    expect(
      (
        await post(path('nv-speech-flash-preview'), {
          contents: dialogue('Ann', 'Ben'),
          generationConfig: { speechConfig: speakers('Ann', 'Ben') },
        })
      ).status,
    ).toBe(200)
  })
})

describe('choices the reference leaves open (gateway/variations.ts)', () => {
  const speech = {
    contents: [{ role: 'user', parts: [{ text: 'Read this aloud.' }] }],
    generationConfig: { responseModalities: ['AUDIO'] },
  }

  it('streaming-wav writes the speech WAV with unknown sizes', async () => {
    const on = testGateway({ variations: ['streaming-wav'] })
    const answer = await on.call(path('nv-speech-flash-preview'), { method: 'POST', body: speech })
    const bytes = Buffer.from(answer.body.candidates[0].content.parts[0].inlineData.data, 'base64')
    expect([bytes.readUInt32LE(4), bytes.readUInt32LE(40)]).toEqual([0xffffffff, 0xffffffff])
    await on.app.close()
  })

  it('lenient-audio-fields accepts and ignores what speech models are not to be sent, an unknown speaker too', async () => {
    const on = testGateway({ variations: ['lenient-audio-fields'] })
    const call = (body: unknown) => on.call(path('nv-speech-flash-preview'), { method: 'POST', body })
    expect((await call({ ...speech, generationConfig: { thinkingConfig: { thinkingBudget: 0 } } })).status).toBe(200)
    expect((await call({ ...speech, tools: [{ functionDeclarations: [] }] })).status).toBe(200)
    const unknownSpeaker = {
      contents: [{ role: 'user', parts: [{ text: 'Hi.', speechMetadata: { speaker: 'Dora' } }] }],
      generationConfig: {
        speechConfig: { multiSpeakerVoiceConfig: { speakerVoiceConfigs: [{ speaker: 'Ann', voiceConfig: {} }] } },
      },
    }
    expect((await call(unknownSpeaker)).status).toBe(200)
    await on.app.close()
  })

  it('native-no-alt refuses ?alt=sse and keeps the JSON array', async () => {
    const on = testGateway({ variations: ['native-no-alt'] })
    const body = { contents: [{ role: 'user', parts: [{ text: 'Hi.' }] }] }
    expect(
      (await on.call(`${path('nv-gen-flash', 'streamGenerateContent')}?alt=sse`, { method: 'POST', body })).status,
    ).toBe(400)
    expect((await on.call(path('nv-gen-flash', 'streamGenerateContent'), { method: 'POST', body })).status).toBe(200)
    await on.app.close()
  })

  it('native-images-per-model leaves images to the other model; lenient-enums ignores an unknown level', async () => {
    const on = testGateway({ variations: ['native-images-per-model', 'lenient-enums'] })
    const image = {
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'What is it?' },
            {
              inline_data: {
                mime_type: 'image/png',
                data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
              },
            },
          ],
        },
      ],
    }
    expect((await on.call(path('nv-gen-flash'), { method: 'POST', body: image })).status).toBe(400)
    expect((await on.call(path('nv-gen-pro'), { method: 'POST', body: image })).status).toBe(200)
    const level = {
      contents: [{ role: 'user', parts: [{ text: 'Hi.' }] }],
      generationConfig: { thinkingConfig: { thinkingLevel: 'extreme' } },
    }
    expect((await on.call(path('nv-gen-pro'), { method: 'POST', body: level })).status).toBe(200)
    await on.app.close()
  })

  it('native-integer-strings reads maxOutputTokens "16" as 16, and still refuses 1.5', async () => {
    const on = testGateway({ variations: ['native-integer-strings'] })
    const call = (maxOutputTokens: unknown) =>
      on.call(path('nv-gen-flash'), { method: 'POST', body: { ...text, generationConfig: { maxOutputTokens } } })
    expect((await call('16')).status).toBe(200)
    expect((await call(1.5)).status).toBe(400)
    expect((await post(path('nv-gen-flash'), { ...text, generationConfig: { maxOutputTokens: '16' } })).status).toBe(
      400,
    )
    await on.app.close()
  })

  it('native-thinking-first spends a small cap on thinking alone; the cheaper model refuses thinkingBudget 0', async () => {
    const on = testGateway({ variations: ['native-thinking-first', 'range-refusals-422'] })
    const capped = await on.call(path('nv-gen-pro'), { method: 'POST', body: text })
    expect(capped.status).toBe(200)
    expect(capped.body.candidates[0].content).toEqual({ role: 'model' })
    expect(capped.body.usageMetadata.candidatesTokenCount).toBeUndefined()
    const off = { ...text, generationConfig: { maxOutputTokens: 200, thinkingConfig: { thinkingBudget: 0 } } }
    expect((await on.call(path('nv-gen-flash'), { method: 'POST', body: off })).status).toBe(400)
    const thinkingOff = await on.call(path('nv-gen-pro'), { method: 'POST', body: off })
    expect(thinkingOff.body.candidates[0].content.parts[0].text).toEqual(expect.any(String))
    const hot = { ...text, generationConfig: { temperature: 2.01 } }
    expect((await on.call(path('nv-gen-pro'), { method: 'POST', body: hot })).status).toBe(422)
    await on.app.close()
  })

  it('thinking-levels-per-model leaves medium to the other model', async () => {
    const on = testGateway({ variations: ['thinking-levels-per-model'] })
    const medium = { ...text, generationConfig: { thinkingConfig: { thinkingLevel: 'medium' } } }
    expect((await on.call(path('nv-gen-flash'), { method: 'POST', body: medium })).status).toBe(400)
    expect((await on.call(path('nv-gen-pro'), { method: 'POST', body: medium })).status).toBe(200)
    await on.app.close()
  })
})
