/**
 * The official `openai` Node client (openai 7, a dev dependency) against the reference gateway, used unchanged
 * and as a user would: baseURL is the host root plus /v1, where the compatible endpoints live (Part 1,
 * Conventions and §1.2), and the key goes as Bearer (Part 1 §5.2). If the gateway follows the widely
 * used convention where the reference does, this client works against it.
 *
 * Where the reference leaves a shape unshown (streaming payloads, §6.4; the other compatible endpoints, §4.8),
 * a test only checks that the client works and that what it yields is consistent with itself (the streamed
 * deltas make up the final text), never a value the reference does not state.
 *
 * The rate-limit tests run against gateways of their own (a short minute; a clock after the header migration),
 * so that draining a tier-0 bucket cannot touch the other tests.
 */
import OpenAI, { toFile } from 'openai'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import { pollUntil } from '../../harness/worker/helpers.ts'
import { UUID_V7 } from '../unit/gateway/helpers.ts'
import { isWav, MODELS, transactionsOf } from './fixture.ts'

/** Part 2 §2.4: the thirteen categories. */
const CATEGORIES = [
  'sexual',
  'sexual/minors',
  'hate',
  'hate/threatening',
  'harassment',
  'harassment/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'violence',
  'violence/graphic',
]

/** Part 1 §6.2: the event types the reference names for a streamed response. */
const NAMED_RESPONSE_EVENTS = new Set([
  'response.created',
  'response.output_text.delta',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.completed',
])

const CHAT_REQUEST = {
  model: MODELS.chat,
  messages: [
    { role: 'system' as const, content: 'Be brief.' },
    { role: 'user' as const, content: 'Name three colours.' },
  ],
}

/** A client as a user builds it; the timeout only keeps a broken gateway from hanging the test. */
function clientFor(gateway: EmbeddedGateway, apiKey: string, options: { maxRetries?: number } = {}): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, timeout: 15_000, ...options })
}

async function uploadText(client: OpenAI, text: string, name: string) {
  return client.files.create({
    file: await toFile(Buffer.from(text), name, { type: 'text/plain' }),
    purpose: 'user_data',
  })
}

/** Part 1 §2.4, §4.4: limit 1 makes the client follow has_more and the after cursor from page to page. */
async function filesPageThrough(client: OpenAI): Promise<void> {
  const uploaded = [
    await uploadText(client, 'first\n', 'page-1.txt'),
    await uploadText(client, 'second\n', 'page-2.txt'),
  ]
  const seen: string[] = []
  for await (const file of client.files.list({ limit: 1, purpose: 'user_data' })) {
    seen.push(file.id)
    if (seen.length > 50) break // a cursor that never moves on would page forever
  }
  expect(seen).toEqual(expect.arrayContaining(uploaded.map((file) => file.id)))
  expect(new Set(seen).size).toBe(seen.length)
  for (const file of uploaded) await client.files.delete(file.id)
}

/**
 * Part 1 §6.2: of the named events, response.created comes first and response.completed last, with text deltas
 * between; other event types (§9.2: new ones may appear) are passed over. The deltas make up the final text.
 */
async function responsesStream(client: OpenAI): Promise<void> {
  const stream = await client.responses.create({ model: MODELS.chat, input: 'Name three colours.', stream: true })
  const named: string[] = []
  let deltas = ''
  let final = ''
  for await (const event of stream) {
    if (NAMED_RESPONSE_EVENTS.has(event.type)) named.push(event.type)
    if (event.type === 'response.output_text.delta') deltas += event.delta
    if (event.type === 'response.completed') final = textOf(event.response)
  }
  expect(named[0]).toBe('response.created')
  expect(named.at(-1)).toBe('response.completed')
  expect(named.filter((type) => type === 'response.output_text.delta').length).toBeGreaterThan(0)
  expect(deltas.length).toBeGreaterThan(0)
  expect(final).toBe(deltas)
}

/** The text of a response's output messages, as the client's output_text gathers it. */
function textOf(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('')
}

async function chatStreamHelper(client: OpenAI): Promise<void> {
  const stream = client.chat.completions.stream(CHAT_REQUEST)
  let deltas = ''
  for await (const chunk of stream) deltas += chunk.choices[0]?.delta.content ?? ''
  const final = await stream.finalChatCompletion()
  expect(deltas.length).toBeGreaterThan(0)
  expect(final.choices[0]?.message.content).toBe(deltas)
  expect(final.choices[0]?.finish_reason).toBeTruthy()
}

/** Part 2 §4.3, §6.1: a newer model streams text deltas, then transcript.text.done with the final text. */
async function transcriptionStream(client: OpenAI, wav: Buffer): Promise<void> {
  const file = await toFile(wav, 'speech.wav', { type: 'audio/wav' })
  const stream = await client.audio.transcriptions.create({ model: MODELS.streamingTranscription, file, stream: true })
  const types: string[] = []
  let done = ''
  for await (const event of stream) {
    types.push(event.type)
    if (event.type === 'transcript.text.done') done = event.text
  }
  const known = types.filter((type) => type.startsWith('transcript.text.'))
  expect(known.filter((type) => type === 'transcript.text.delta').length).toBeGreaterThan(0)
  expect(known.at(-1)).toBe('transcript.text.done')
  expect(done.length).toBeGreaterThan(0)
}

/** A speech WAV (Part 2 §4.2) to transcribe. */
async function speechWav(client: OpenAI): Promise<Buffer> {
  const speech = await client.audio.speech.create({
    model: MODELS.speech,
    voice: 'alloy',
    input: 'The quick brown fox.',
    response_format: 'wav',
  })
  return Buffer.from(await speech.arrayBuffer())
}

let gateway: EmbeddedGateway
let client: OpenAI

beforeAll(async () => {
  // Inside the x-request-id migration window (Part 1 §9.4), so the client's own request id is filled; a
  // short video step so that a job completes within the test.
  gateway = await startEmbeddedGateway({ now: '2026-09-01', videoStepMs: 50 })
  client = clientFor(gateway, gateway.keys.main)
})
afterAll(async () => {
  await gateway?.close()
})

describe('models (Part 1 §2.3, §4.3)', () => {
  test('models.list yields model objects, among them every compatible model these tests call', async () => {
    const page = await client.models.list()
    expect(page.data.length).toBeGreaterThan(0)
    for (const model of page.data) {
      expect(model.object).toBe('model')
      expect(typeof model.id).toBe('string')
      expect(typeof model.owned_by).toBe('string')
    }
    const ids = page.data.map((model) => model.id)
    const compatible = [
      MODELS.chat,
      MODELS.embedding,
      MODELS.moderation,
      MODELS.speech,
      MODELS.transcription,
      MODELS.video,
    ]
    expect(compatible.filter((id) => !ids.includes(id))).toEqual([])
  })

  test('models.retrieve gives one model with created and the extra object', async () => {
    const model = await client.models.retrieve(MODELS.chat)
    expect(model.id).toBe(MODELS.chat)
    expect(model.object).toBe('model')
    expect(Number.isInteger(model.created)).toBe(true)
    expect((model as unknown as { extra?: { rate_limits?: unknown } }).extra?.rate_limits).toBeTypeOf('object')
  })
})

describe('files (Part 1 §2.4, §4.4)', () => {
  const upload = (text: string, name: string) => uploadText(client, text, name)

  test('files.create, retrieve, content and delete round-trip one file', async () => {
    const text = 'the client uploads these bytes\n'
    const file = await upload(text, 'round-trip.txt')
    expect(file).toMatchObject({
      object: 'file',
      bytes: Buffer.byteLength(text),
      filename: 'round-trip.txt',
      purpose: 'user_data',
    })
    expect(await client.files.retrieve(file.id)).toMatchObject({
      id: file.id,
      bytes: file.bytes,
      filename: 'round-trip.txt',
    })
    // The reference limits downloads (§8.4) but shows no route; the client's files.content is the convention's.
    expect(await (await client.files.content(file.id)).text()).toBe(text)
    // §4.4: the delete body is not shown, so only the effect is judged: the file is gone (§7: 404).
    await client.files.delete(file.id)
    await expect(client.files.retrieve(file.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  test('files.list pages through the after cursor: pages of one yield every file', () => filesPageThrough(client))
})

describe('responses (Part 1 §2.7, §4.5, §6.2)', () => {
  const request = { model: MODELS.chat, input: 'Name three colours.' }

  test('responses.create: completed, with the output text the client assembles from output', async () => {
    const response = await client.responses.create(request)
    expect(response.status).toBe('completed')
    // output_text is also computed by the client from the output items: both must agree and hold text.
    const fromItems = textOf(response)
    expect(fromItems.length).toBeGreaterThan(0)
    expect(response.output_text).toBe(fromItems)
    expect(response.usage?.input_tokens).toBeGreaterThan(0)
    expect(response.usage?.output_tokens).toBeGreaterThan(0)
  })

  test('responses.create with stream: created first, completed last, deltas that make up the final text', () =>
    responsesStream(client))

  test('responses.stream (the client helper) accumulates the events into a final response', async () => {
    const stream = client.responses.stream(request)
    let deltas = ''
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas += event.delta
    const final = await stream.finalResponse()
    expect(final.status).toBe('completed')
    expect(deltas.length).toBeGreaterThan(0)
    expect(final.output_text).toBe(deltas)
  })
})

describe('chat completions (Part 1 §2.5, §2.6, §4.7)', () => {
  const request = CHAT_REQUEST

  test('chat.completions.create answers the §2.6 shape', async () => {
    const completion = await client.chat.completions.create(request)
    expect(completion.object).toBe('chat.completion')
    expect(completion.model).toBe(MODELS.chat)
    const choice = completion.choices[0]
    expect(choice?.message.role).toBe('assistant')
    expect(choice?.message.content?.length).toBeGreaterThan(0)
    expect(typeof choice?.finish_reason).toBe('string')
    expect(Number.isInteger(completion.usage?.prompt_tokens)).toBe(true)
    expect(Number.isInteger(completion.usage?.completion_tokens)).toBe(true)
    expect(Number.isInteger(completion.usage?.total_tokens)).toBe(true)
  })

  test('chat.completions.create with stream yields chunks whose deltas carry the text and a finish reason', async () => {
    const stream = await client.chat.completions.create({ ...request, stream: true })
    let text = ''
    const finishReasons: string[] = []
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? ''
        if (choice.finish_reason) finishReasons.push(choice.finish_reason)
      }
    }
    expect(text.length).toBeGreaterThan(0)
    expect(finishReasons).toHaveLength(1)
  })

  test('chat.completions.stream (the client helper) assembles the chunks into a final completion', () =>
    chatStreamHelper(client))
})

describe('embeddings (Part 1 §4.8)', () => {
  test('embeddings.create: the client default (base64 on the wire, decoded by the client) agrees with float', async () => {
    const input = ['red', 'a longer sentence about blue']
    // Without encoding_format the client asks for base64 and decodes it itself; with float it takes the numbers.
    const decoded = await client.embeddings.create({ model: MODELS.embedding, input })
    const floats = await client.embeddings.create({ model: MODELS.embedding, input, encoding_format: 'float' })
    expect(decoded.data.map((item) => item.index)).toEqual([0, 1])
    const width = floats.data[0]?.embedding.length ?? 0
    expect(width).toBeGreaterThan(0)
    for (const [i, item] of decoded.data.entries()) {
      expect(item.embedding).toHaveLength(width)
      // An embedding of one input by one model is the same vector in either encoding (float32 on the wire).
      item.embedding.forEach((value, j) => {
        expect(value).toBeCloseTo(floats.data[i]?.embedding[j] ?? Number.NaN, 5)
      })
    }
  })
})

describe('moderations (Part 2 §2.4, §4.7)', () => {
  test('moderations.create gives one result per input, each with the thirteen categories', async () => {
    const moderation = await client.moderations.create({
      model: MODELS.moderation,
      input: ['a quiet afternoon', 'another text'],
    })
    expect(typeof moderation.id).toBe('string')
    expect(moderation.results).toHaveLength(2)
    for (const result of moderation.results) {
      expect(typeof result.flagged).toBe('boolean')
      expect(Object.keys(result.categories).sort()).toEqual([...CATEGORIES].sort())
      for (const score of Object.values(result.category_scores)) {
        expect(score).toBeGreaterThanOrEqual(0)
        expect(score).toBeLessThanOrEqual(1)
      }
    }
  })
})

describe('audio (Part 2 §4.2, §4.3, §4.4)', () => {
  let wav: Buffer

  beforeAll(async () => {
    wav = await speechWav(client)
  })

  test('audio.speech.create returns audio bytes: WAV when asked, MP3 by default', async () => {
    expect(isWav(wav)).toBe(true)
    const mp3 = Buffer.from(
      await (await client.audio.speech.create({ model: MODELS.speech, voice: 'alloy', input: 'Hello.' })).arrayBuffer(),
    )
    // An MP3 stream opens with an ID3 tag or an MPEG frame sync (11 set bits).
    const id3 = mp3.subarray(0, 3).toString('latin1') === 'ID3'
    expect(id3 || (mp3[0] === 0xff && ((mp3[1] ?? 0) & 0xe0) === 0xe0)).toBe(true)
  })

  test('audio.transcriptions.create uploads the WAV and gets its text (json by default)', async () => {
    const transcription = await client.audio.transcriptions.create({
      model: MODELS.transcription,
      file: await toFile(wav, 'speech.wav', { type: 'audio/wav' }),
    })
    expect(transcription.text.length).toBeGreaterThan(0)
  })

  test('audio.transcriptions.create with stream yields text deltas and then transcript.text.done', () =>
    transcriptionStream(client, wav))

  test('audio.translations.create uploads the WAV and gets English text', async () => {
    const translation = await client.audio.translations.create({
      model: MODELS.transcription,
      file: await toFile(wav, 'speech.wav', { type: 'audio/wav' }),
    })
    expect(translation.text.length).toBeGreaterThan(0)
  })
})

describe('videos (Part 2 §2.1, §3, §4.1)', () => {
  test('videos.create, retrieve, list, downloadContent, remix and delete: a job from creation to deletion', async () => {
    // The client always sends create as multipart; the reference takes JSON, or multipart when input_reference
    // is sent (§4.1), and names no refusal of multipart without it.
    const { data: job, response } = await client.videos
      // The client's model type lists its own vendor's models; the reference's are plain strings on the wire.
      .create({
        model: MODELS.video as OpenAI.VideoModel,
        prompt: 'a paper boat on a pond',
        seconds: '4',
        size: '720x1280',
      })
      .withResponse()
    // §4.1 Rules (Part 1) and §2.1: request_id is the svc-request-id of the call that created the job.
    expect((job as unknown as { request_id?: string }).request_id).toBe(response.headers.get('svc-request-id'))
    expect(['queued', 'processing', 'completed']).toContain(job.status)

    const settled = async (): Promise<OpenAI.Video | undefined> => {
      const video = await client.videos.retrieve(job.id)
      return video.status === 'completed' || video.status === 'failed' ? video : undefined
    }
    const done = await pollUntil(settled, { timeoutMs: 10_000, intervalMs: 50 })
    expect(done?.status).toBe('completed')

    const listed: string[] = []
    for await (const video of client.videos.list()) listed.push(video.id)
    expect(listed).toContain(job.id)

    // §3: content is downloadable in the completed state; the client hands back the bytes (an MP4: ftyp box).
    const content = Buffer.from(await (await client.videos.downloadContent(job.id)).arrayBuffer())
    expect(content.subarray(4, 8).toString('latin1')).toBe('ftyp')

    const remix = await client.videos.remix(job.id, { prompt: 'the same boat at night' })
    expect(remix.id).not.toBe(job.id)
    expect(remix.status).not.toBe('failed')

    for (const id of [remix.id, job.id]) await client.videos.delete(id)
    await expect(client.videos.retrieve(job.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })
})

describe('errors (Part 1 §7)', () => {
  test('an unknown key is an AuthenticationError (401)', async () => {
    const stranger = clientFor(gateway, 'sk-not-a-key-of-this-gateway')
    const error = await stranger.models.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(401)
  })

  test('an unknown model and an unknown file are NotFoundError (404)', async () => {
    await expect(client.models.retrieve('no-such-model-anywhere')).rejects.toBeInstanceOf(OpenAI.NotFoundError)
    await expect(client.files.retrieve('file-no-such-file')).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  test('in the migration window the client reads its request id from x-request-id: the svc-request-id (§4.1, §9.4)', async () => {
    // request_id is what the client reads as its request id (also data._request_id and APIError.requestID).
    const { request_id, response } = await client.models.retrieve(MODELS.chat).withResponse()
    expect(response.headers.get('svc-request-id')).toMatch(UUID_V7)
    expect(request_id).toBe(response.headers.get('svc-request-id'))
  })
})

describe('rate limits and the client retry (Part 1 §7, §8.4, §9.4)', () => {
  // Section 8.4: a tier-0 account may upload 3 files a minute. A two-second minute keeps the Retry-After that the
  // client waits (whole seconds, §4.1) short. The clock is after 2026-10-15, when x-request-id is no longer sent.
  let limited: EmbeddedGateway
  let tier0Key: string

  beforeAll(async () => {
    limited = await startEmbeddedGateway({ now: '2026-11-01', minuteMs: 2_000 })
    tier0Key = limited.keys.tier0
  })
  afterAll(async () => {
    await limited?.close()
  })

  const tinyFile = () => toFile(Buffer.from('x'), 'tiny.txt', { type: 'text/plain' })

  /** Uploads without retries until the gateway refuses one; returns that RateLimitError. */
  async function drainUploads(): Promise<InstanceType<typeof OpenAI.RateLimitError>> {
    const noRetry = clientFor(limited, tier0Key, { maxRetries: 0 })
    for (let i = 0; i < 10; i++) {
      const outcome = await noRetry.files
        .create({ file: await tinyFile(), purpose: 'user_data' })
        .catch((e: unknown) => e)
      if (outcome instanceof OpenAI.RateLimitError) return outcome
      if (outcome instanceof Error) throw outcome
    }
    throw new Error('ten uploads in a row were admitted: no per-minute upload limit was met')
  }

  test('a 429 is a RateLimitError; with retries the client waits, retries and succeeds, as the gateway saw', async () => {
    // A window boundary can fall between the drain and the retried call, which then meets no 429 and proves
    // nothing: such a try is made again (at most three).
    for (let attempt = 1; attempt <= 3; attempt++) {
      const refused = await drainUploads()
      expect(refused.status).toBe(429)
      const refusedId = refused.headers?.get('svc-request-id') ?? ''
      expect(refusedId).toMatch(UUID_V7)

      const retrying = clientFor(limited, tier0Key) // the client's default policy: two retries
      const { data: file, response } = await retrying.files
        .create({ file: await tinyFile(), purpose: 'user_data' })
        .withResponse()
      expect(file.object).toBe('file')
      const successId = response.headers.get('svc-request-id') ?? ''

      // Counted at the gateway (Part 1 §2.2): the calls after the drain's refusal, up to the client's success.
      const calls = (await transactionsOf(limited.url, tier0Key)).filter((t) => t.id > refusedId && t.id <= successId)
      expect(calls.at(-1)).toEqual({ id: successId, status_code: 200 })
      const refusals = calls.slice(0, -1)
      if (refusals.length === 0 && attempt < 3) continue
      expect(refusals.length).toBeGreaterThanOrEqual(1)
      expect(refusals.length).toBeLessThanOrEqual(2)
      expect(refusals.every((t) => t.status_code === 429)).toBe(true)
      return
    }
  })

  test('after 2026-10-15 the client has no request id of its own; svc-request-id is on the raw response (§9.4)', async () => {
    // A difference between the reference and the client's convention, not a fault: openai reads x-request-id
    // (data._request_id, APIError.requestID), which the service stops returning after 2026-10-15 (§4.1, §9.4).
    // Callers read svc-request-id from the response headers instead.
    const tier1 = clientFor(limited, limited.keys.tier1)
    const { request_id, response } = await tier1.models.retrieve(MODELS.chat).withResponse()
    expect(response.headers.get('svc-request-id')).toMatch(UUID_V7)
    expect(response.headers.get('x-request-id')).toBeNull()
    expect(request_id).toBeNull()
  })
})

describe('the allowed variation of Part 1 §9.2 (reference gateway --vary): the client does not notice', () => {
  // Unknown properties, keys in another order, opaque ids in another format, unfamiliar stream events and
  // comments, CRLF, events split across writes. No added latency: it would only slow the test.
  let varied: EmbeddedGateway
  let variedClient: OpenAI

  beforeAll(async () => {
    varied = await startEmbeddedGateway({ now: '2026-09-01', vary: true, varyLatencyMs: 0 })
    variedClient = clientFor(varied, varied.keys.main)
  })
  afterAll(async () => {
    await varied?.close()
  })

  test('files.list pages through file ids of another format', () => filesPageThrough(variedClient))

  test('responses.create with stream passes unfamiliar event types through, and the named ones still hold', () =>
    responsesStream(variedClient))

  // A difference between the client and the reference, not a gateway fault: §9.2 lets new stream event types
  // appear, but the client's helper (ResponseAccumulator) throws "When snapshot hasn't been set yet, expected
  // 'response.created' event" when one comes before response.created, as --vary sends. The raw stream above
  // works; only the helper needs response.created to be the very first event.
  test.skip('responses.stream (the client helper) with an unfamiliar event before response.created', async () => {
    const final = await variedClient.responses
      .stream({ model: MODELS.chat, input: 'Name three colours.' })
      .finalResponse()
    expect(final.output_text.length).toBeGreaterThan(0)
  })

  test('chat.completions.stream (the client helper) passes SSE comments and split events over', () =>
    chatStreamHelper(variedClient))

  test('audio.transcriptions.create with stream passes unfamiliar events over', async () =>
    transcriptionStream(variedClient, await speechWav(variedClient)))
})
