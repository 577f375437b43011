/**
 * Every POST route of the reference gateway, as the fuzz self-tests see it: which error dialect it answers in,
 * which 4xx statuses the reference gives it, a valid request to mutate, and where to send it.
 *
 * The list of routes is read from the Fastify app itself (`postRoutesOf`), and the fuzz test fails on a POST
 * route that has no entry here: a new route cannot be left out of the fuzz by forgetting it.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { ADMIN_KEY, SEEDED_KEYS } from '../../gateway/account/accounts.ts'
import { TINY_PNG_BASE64 } from '../../gateway/compatible/simulate.ts'
import { wavTone } from '../../suites/audio/fixtures.ts'
import type { Json } from '../../common/json.ts'

/** The error dialects: Part 1 §7 (compatible, usage) and Part 2 §7 (native and speech synthesis). */
export type ErrorDialect = 'compatible' | 'usage' | 'native'

export interface FilePartSeed {
  name: string
  filename: string
  contentType: string
  content: Buffer
}

/** A valid request body: JSON, or a multipart form of text fields and at most one file part. */
export type Seed =
  | { kind: 'json'; body: Json }
  | { kind: 'multipart'; fields: Array<[string, string]>; file: FilePartSeed | null }

export interface FuzzRoute {
  dialect: ErrorDialect
  /** The 4xx statuses the reference gives this route (any other 4xx is out of shape). */
  statuses: readonly number[]
  /** Valid requests: a fuzz case starts from one of them and breaks it. */
  seeds: readonly Seed[]
  /** The URLs a fuzz case may go to; `setup` makes the resources they name (a stored file, a finished video). */
  urls(setup: Setup): string[]
  /** The URL a valid seed is answered 2xx at (default: the first of `urls`). */
  validUrl?(setup: Setup): Promise<string>
  /** The header that carries the key (default: the tier-5 key as Bearer). */
  headers?: Record<string, string>
}

/** The key every fuzz call uses: the highest tier, so that limits leave room for every case (Part 1 §8). */
const FUZZ_KEY = SEEDED_KEYS.tier5
const BEARER = { authorization: `Bearer ${FUZZ_KEY}` }

/** Part 1 §7: the statuses used across endpoints (400, 401, 403, 404, 429); 5xx is never the caller's fault. */
const PART1 = [400, 401, 403, 404, 429] as const
/** Part 2 §7: search answers 400, 401, 429. */
const SEARCH = [400, 401, 429] as const
/** Part 2 §7: speech synthesis answers 400, 401, 413 (text too large), 429. */
const SYNTHESIS = [400, 401, 413, 429] as const

/** Resources some routes need in their URL or body, made once on the gateway under test. */
export interface Setup {
  /** A file of the fuzz account, for image edits (Part 1 §4.4). */
  fileId: string
  /** A completed video of the fuzz account, for remix (Part 2 §4.1). */
  videoId: string
  /** A stored response of the fuzz account, for cancel (Part 1 §4.5). */
  responseId: string
  /** A new background response, still running: the one a cancel succeeds on. */
  backgroundResponse(): Promise<string>
}

const json = (body: Json): Seed => ({ kind: 'json', body })
const PNG = Buffer.from(TINY_PNG_BASE64, 'base64')
const WAV = wavTone({ seconds: 1 })

export const FUZZ_ROUTES: Readonly<Record<string, FuzzRoute>> = {
  '/v1/responses': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      json({
        model: 'gw-chat-mini',
        input: [{ role: 'user', content: 'Say hello' }],
        instructions: 'Be brief.',
        max_output_tokens: 16,
        temperature: 0,
        metadata: { k: 'v' },
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } }],
      }),
    ],
    urls: () => ['/v1/responses'],
  },
  '/v1/responses/:id/cancel': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [json({})],
    urls: (setup) => [`/v1/responses/${setup.responseId}/cancel`, '/v1/responses/resp_unknown/cancel'],
    validUrl: async (setup) => `/v1/responses/${await setup.backgroundResponse()}/cancel`,
  },
  '/v1/chat/completions': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      json({
        model: 'gw-chat-mini',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        ],
        max_completion_tokens: 16,
        temperature: 0,
        tools: [
          {
            type: 'function',
            function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'integer' } } } },
          },
        ],
      }),
    ],
    urls: () => ['/v1/chat/completions'],
  },
  '/v1/completions': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [json({ model: 'gw-complete-1', prompt: 'Once upon a time', max_tokens: 3 })],
    urls: () => ['/v1/completions'],
  },
  '/v1/embeddings': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [json({ model: 'gw-embed-1', input: ['one two', 'three'], dimensions: 8, encoding_format: 'float' })],
    urls: () => ['/v1/embeddings'],
  },
  '/v1/images/generations': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [json({ model: 'gw-image-1', prompt: 'a red square', n: 1, size: '256x256', response_format: 'b64_json' })],
    urls: () => ['/v1/images/generations'],
  },
  '/v1/images/edits': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [json({ model: 'gw-image-1', prompt: 'make it blue', image: 'FILE_ID' })],
    urls: () => ['/v1/images/edits'],
  },
  '/v1/messages': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      json({ model: 'gw-chat-mini', max_tokens: 8, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }),
    ],
    urls: () => ['/v1/messages'],
  },
  '/v1/moderations': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      json({ model: 'omni-moderation-latest', input: 'hello there' }),
      json({
        model: 'omni-moderation-latest',
        input: [
          { type: 'text', text: 'hi' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
        ],
      }),
    ],
    urls: () => ['/v1/moderations'],
  },
  '/v1/audio/speech': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [json({ model: 'tts-1', input: 'Hello.', voice: 'alloy', response_format: 'wav', speed: 1 })],
    urls: () => ['/v1/audio/speech'],
  },
  '/v1/audio/transcriptions': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      {
        kind: 'multipart',
        fields: [
          ['model', 'gw-transcribe-1'],
          ['response_format', 'json'],
        ],
        file: { name: 'file', filename: 'tone.wav', contentType: 'audio/wav', content: WAV },
      },
    ],
    urls: () => ['/v1/audio/transcriptions'],
  },
  '/v1/audio/translations': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      {
        kind: 'multipart',
        fields: [['model', 'gw-transcribe-1']],
        file: { name: 'file', filename: 'tone.wav', contentType: 'audio/wav', content: WAV },
      },
    ],
    urls: () => ['/v1/audio/translations'],
  },
  '/v1/search': {
    dialect: 'compatible',
    statuses: SEARCH,
    seeds: [
      json({
        search_tool_name: 'p1-search',
        query: 'conformance',
        max_results: 4,
        search_domain_filter: ['example.com'],
      }),
    ],
    urls: () => ['/v1/search'],
  },
  '/v1/search/:tool': {
    dialect: 'compatible',
    statuses: SEARCH,
    seeds: [json({ query: ['one', 'two'], max_results: 2, max_tokens_per_page: 64 })],
    urls: () => ['/v1/search/p1-search', '/v1/search/p6-search'],
  },
  '/v1/ocr': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      json({
        model: 'gw-ocr-1',
        document: { type: 'document_url', document_url: 'https://example.com/a.pdf' },
        pages: [0, 1],
        include_image_base64: true,
        table_format: 'html',
      }),
    ],
    urls: () => ['/v1/ocr'],
  },
  '/v1/videos': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      json({ model: 'vidA-2', prompt: 'a boat at sea', seconds: '4', size: '1280x720' }),
      {
        kind: 'multipart',
        fields: [
          ['model', 'vidA-2'],
          ['prompt', 'a boat'],
          ['seconds', '4'],
        ],
        file: { name: 'input_reference', filename: 'ref.png', contentType: 'image/png', content: PNG },
      },
    ],
    urls: () => ['/v1/videos'],
  },
  '/v1/videos/:video_id/remix': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [json({ prompt: 'the same boat at night', safety_identifier: 'user-1' })],
    urls: (setup) => [`/v1/videos/${setup.videoId}/remix`],
  },
  '/v1/files': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [
      {
        kind: 'multipart',
        fields: [
          ['purpose', 'user_data'],
          ['expires_after[anchor]', 'created_at'],
          ['expires_after[seconds]', '3600'],
        ],
        file: { name: 'file', filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('hello files\n') },
      },
    ],
    urls: () => ['/v1/files'],
  },
  '/v1/text:synthesize': {
    dialect: 'native',
    statuses: SYNTHESIS,
    seeds: [
      json({
        input: { text: 'Hello there.' },
        voice: { languageCode: 'en-US', name: 'Kore', model_name: 'nv-tts-flash' },
        audioConfig: { audioEncoding: 'LINEAR16', sampleRateHertz: 16000 },
      }),
    ],
    urls: () => ['/v1/text:synthesize'],
  },
  '/v1beta/models/:target': {
    dialect: 'native',
    statuses: PART1,
    seeds: [
      json({
        contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
        system_instruction: { parts: [{ text: 'Be brief.' }] },
        generationConfig: { maxOutputTokens: 40, temperature: 0, thinkingConfig: { thinkingBudget: 0 } },
      }),
    ],
    urls: () => [
      '/v1beta/models/nv-gen-flash:generateContent',
      '/v1beta/models/nv-gen-flash:streamGenerateContent',
      '/v1beta/models/nv-gen-flash:countTokens',
      '/v1beta/models/nv-speech-flash-preview:generateContent',
    ],
  },
  '/user/v1/transactions/lookup': {
    dialect: 'usage',
    statuses: PART1,
    seeds: [json({ ids: ['01890a5d-ac96-774b-bcce-b302099a8057'] })],
    urls: () => ['/user/v1/transactions/lookup'],
  },
  // Not the reference: the gateway's own admin route (gateway/admin.ts), answered in the compatible dialect of
  // every path outside /user/v1. It is fuzzed like the others; the target is another account than the fuzz key's.
  '/admin/accounts/:account_id/tier': {
    dialect: 'compatible',
    statuses: PART1,
    seeds: [json({ tier: 3 })],
    urls: () => ['/admin/accounts/acct-tier3/tier'],
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  },
}

/** The headers a fuzz call to `route` carries besides its content type. */
export function authHeaders(route: FuzzRoute): Record<string, string> {
  return route.headers ?? BEARER
}

/** A seed with the setup's resources filled in (the image edit names a stored file). */
export function seedFor(seed: Seed, setup: Setup): Seed {
  if (seed.kind !== 'json') return seed
  return {
    kind: 'json',
    body: JSON.parse(JSON.stringify(seed.body).replaceAll('"FILE_ID"', JSON.stringify(setup.fileId))) as Json,
  }
}

/**
 * The POST routes the app has, as Fastify spells their paths (`/v1/search/:tool`), read from
 * `printRoutes({ method: 'POST' })`: a tree whose lines are indented four columns a level and name a path
 * segment, with the methods of the routes that end there in parentheses.
 */
export function postRoutesOf(app: FastifyInstance): string[] {
  const tree = app.printRoutes({ method: 'POST', commonPrefix: false })
  const stack: string[] = []
  const routes: string[] = []
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line)
    if (!match) continue
    const depth = [...(match[1] ?? '')].length / 4
    stack.length = depth
    stack.push(match[2] ?? '')
    if ((match[3] ?? '').split(', ').includes('POST')) routes.push(stack.join(''))
  }
  return routes.sort()
}

/** Makes the resources of `Setup` on the gateway under test, through its own routes. */
export async function makeSetup(app: FastifyInstance): Promise<Setup> {
  const inject = async (options: InjectOptions): Promise<LightMyRequestResponse> => {
    const response = await app.inject({ ...options, headers: { ...BEARER, ...options.headers } })
    if (response.statusCode !== 200)
      throw new Error(
        `setup: ${options.method} ${String(options.url)} answered ${response.statusCode}: ${response.body.slice(0, 300)}`,
      )
    return response
  }
  const boundary = 'fuzz-setup-boundary'
  const upload = await inject({
    method: 'POST',
    url: '/v1/files',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nvision\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      PNG,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  })
  const video = await inject({
    method: 'POST',
    url: '/v1/videos',
    payload: { model: 'vidA-2', prompt: 'a boat at sea', seconds: '4', size: '1280x720' },
  })
  const response = await inject({
    method: 'POST',
    url: '/v1/responses',
    payload: { model: 'gw-chat-mini', input: 'hello', max_output_tokens: 8 },
  })
  const videoId = (video.json() as { id: string }).id
  // The remix route needs a completed source (Part 2 §3); the fuzz gateway runs a short video step.
  for (let tries = 0; tries < 200; tries += 1) {
    const job = await inject({ method: 'GET', url: `/v1/videos/${videoId}` })
    if ((job.json() as { status: string }).status === 'completed') break
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const backgroundResponse = async (): Promise<string> => {
    const started = await inject({
      method: 'POST',
      url: '/v1/responses',
      payload: { model: 'gw-chat-mini', input: 'hello', background: true },
    })
    return (started.json() as { id: string }).id
  }
  return {
    fileId: (upload.json() as { id: string }).id,
    videoId,
    responseId: (response.json() as { id: string }).id,
    backgroundResponse,
  }
}
