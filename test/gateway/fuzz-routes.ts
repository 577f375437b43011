/**
 * Every POST route of the reference gateway, as the fuzz self-tests see it: which error dialect it answers in,
 * which 4xx statuses the reference gives it, valid requests to mutate, and where to send them.
 *
 * One source with the generation phase: the valid requests are the request schemas' x-seed and the generator's
 * positive cases (harness/generate/), filled for the in-process gateway; the statuses and dialect are the answer
 * table's (harness/openapi/answers.ts, §7 of each part). Only a route the reference states no request for has
 * hand-written seeds.
 *
 * The list of routes is read from the Fastify app itself (`postRoutesOf`), and the fuzz test fails on a POST
 * route that has no entry here: a new route cannot be left out of the fuzz by forgetting it.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { ADMIN_KEY, SEEDED_KEYS } from '../../gateway/account/accounts.ts'
import { TINY_PNG_BASE64 } from '../../gateway/compatible/simulate.ts'
import { wavTone } from '../../suites/audio/fixtures.ts'
import type { Json } from '../../common/json.ts'
import { requestSchemaOf, type RequestSchema } from '../../common/request-schemas.ts'
import { generateCases, seedRequest } from '../../harness/generate/cases.ts'
import { GENERATE_DEFAULTS, type GenerateSettings } from '../../harness/generate/settings.ts'
import type { RequestValue } from '../../harness/generate/validate.ts'
import { DIALECTS, type Dialect, ROUTE_ANSWERS } from '../../harness/openapi/answers.ts'

/** The error bodies the fuzz checks (fuzz-shapes.ts): Part 1 §7 compatible and usage, Part 2 §7 synthesis's. */
export type ErrorDialect = 'compatible' | 'usage' | 'native'

export interface FilePartSeed {
  name: string
  filename: string
  contentType: string
  content: Buffer
}

/**
 * A valid request body: JSON, or a multipart form of text fields and at most one file part. `from` says where it
 * came from; `mustServe` is false for a generated positive the gateway may refuse as the words allow (a model's
 * capability, an account setting, a limit the schema does not state), as the generation phase judges it.
 */
export type Seed = { from: string; mustServe: boolean } & (
  | { kind: 'json'; body: Json }
  | { kind: 'multipart'; fields: Array<[string, string]>; file: FilePartSeed | null }
)

export interface FuzzRoute {
  /** The reference's routes this Fastify route serves, as the request schemas and the answer table key them. */
  reference: readonly string[]
  dialect: ErrorDialect
  /** The 4xx statuses the reference gives this route (any other 4xx is out of shape). */
  statuses: readonly number[]
  /** Valid requests: a fuzz case starts from one of them and breaks it. Resource ids are filled by `seedFor`. */
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

/**
 * The generator's size and seed: its default run's cases, or other positives where FUZZ_SEED asks for another
 * search (they need not be served, so any seed is safe).
 */
export const GENERATED: GenerateSettings = {
  runs: GENERATE_DEFAULTS.runs,
  seed: Number(process.env.FUZZ_SEED ?? GENERATE_DEFAULTS.seed),
}

/** The in-process gateway's model for a schema's `{model}`, by its x-model (gateway/models/catalogue.json). */
const MODEL_OF: Readonly<Record<string, string>> = {
  chat: 'gw-chat-mini',
  responses: 'gw-chat-mini',
  completion: 'gw-complete-1',
  embedding: 'gw-embed-1',
  image: 'gw-image-1',
  moderation: 'omni-moderation-latest',
  speech: 'tts-1',
  transcribe: 'gw-transcribe-1',
  ocr: 'gw-ocr-1',
  video: 'vidA-2',
  native: 'nv-gen-flash',
  synthesis: 'nv-tts-flash',
}

/** The body each dialect of the answer table gives its errors, as fuzz-shapes.ts checks it. */
const BODY_OF: Readonly<Record<Dialect, ErrorDialect>> = {
  compatible: 'compatible',
  search: 'compatible',
  moderation: 'compatible',
  videos: 'compatible',
  usage: 'usage',
  // Part 2 §7 gives synthesis error {code, message, status}; the native interface answers alike (gateway/native).
  synthesis: 'native',
  native: 'native',
}

/** The 4xx statuses §7 gives a dialect; its 5xx are never a fuzz case's answer. */
function statusesOf(dialect: Dialect): number[] {
  return Object.keys(DIALECTS[dialect])
    .map(Number)
    .filter((status) => status >= 400 && status < 500)
}

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

const PNG = Buffer.from(TINY_PNG_BASE64, 'base64')
const WAV = wavTone({ seconds: 1 })

/** A value of a form as text: objects as JSON, the rest as they print (as suites/generated/send.ts sends them). */
const asText = (value: unknown): string =>
  typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)

/** Every `{model}` of a generated request filled with the gateway's model; resource ids stay for `seedFor`. */
function withModel(schema: RequestSchema, request: RequestValue): RequestValue {
  const text = JSON.stringify(request)
  if (!text.includes('{model}')) return request
  const model = MODEL_OF[schema['x-model'] ?? '']
  if (model === undefined) throw new Error(`${schema['x-route']}: no fuzz model for x-model ${schema['x-model']}`)
  return JSON.parse(text.replaceAll('{model}', model)) as RequestValue
}

/** The form of a generated multipart request: its binary field the file part (`{file}`: a second of audio). */
function formSeed(
  schema: RequestSchema,
  body: Record<string, unknown>,
): Omit<Seed & { kind: 'multipart' }, 'from' | 'mustServe'> {
  const fields: Array<[string, string]> = []
  let file: FilePartSeed | null = null
  for (const [name, value] of Object.entries(body)) {
    const node = schema.properties.body?.properties?.[name]
    if (node?.format === 'binary') {
      file =
        value === '{file}'
          ? { name, filename: 'tone.wav', contentType: 'audio/wav', content: WAV }
          : {
              name,
              filename: 'seed.txt',
              contentType: typeof node.contentMediaType === 'string' ? node.contentMediaType : 'text/plain',
              content: Buffer.from(asText(value)),
            }
      continue
    }
    // A list travels as the field repeated, as forms send one.
    for (const item of Array.isArray(value) ? value : [value]) fields.push([name, asText(item)])
  }
  return { kind: 'multipart', fields, file }
}

/** The route's x-seed (which must be served) and the generator's other positive cases, as fuzz seeds. */
function schemaSeeds(route: string): Seed[] {
  const schema = requestSchemaOf(route)
  if (schema === undefined) throw new Error(`no request schema for ${route}`)
  const seed = JSON.stringify(seedRequest(schema))
  return generateCases(schema, GENERATED)
    .filter((c) => c.kind === 'positive')
    .map((c): Seed => {
      const request = withModel(schema, c.request)
      const body = (request.body ?? {}) as Record<string, unknown>
      const from = `${route} ${c.id} (${c.title})`
      const mustServe = JSON.stringify(c.request) === seed
      return schema['x-body'] === 'multipart'
        ? { from, mustServe, ...formSeed(schema, body) }
        : { from, mustServe, kind: 'json', body: body as Json }
    })
}

/** The route's URL with its path parameters from the x-seed, resource ids filled from the setup. */
function seedUrl(route: string, setup: Setup): string {
  const schema = requestSchemaOf(route)
  const path = withModel(schema as RequestSchema, { path: schema?.['x-seed']?.path ?? {} }).path ?? {}
  const template = route.split(' ')[1] ?? ''
  return fillIds(
    template.replace(/\{([^}]+)\}/g, (_, name: string) => String(path[name] ?? `{${name}}`)),
    setup,
  )
}

/** Resource placeholders of a request schema's seed, made by `makeSetup`. */
function fillIds(text: string, setup: Setup): string {
  return text
    .replaceAll('{file_id}', setup.fileId)
    .replaceAll('{video_id}', setup.videoId)
    .replaceAll('{response_id}', setup.responseId)
}

interface Entry {
  /** The reference's routes; their request schemas give the seeds and URLs, the answer table the statuses. */
  reference?: readonly string[]
  /** Where the reference states no route: the dialect of the answer table it answers in. */
  dialect?: Dialect
  /** Seeds no request schema gives, each with why. */
  seeds?: readonly Seed[]
  /** URLs besides those of the reference's routes, each with why. */
  urls?(setup: Setup): string[]
  validUrl?(setup: Setup): Promise<string>
  headers?: Record<string, string>
}

/** Seeds that differ: the generator's x-seed is the same for two routes of one Fastify route (the native one). */
function distinct(seeds: Seed[]): Seed[] {
  const seen = new Set<string>()
  return seeds.filter((seed) => {
    const key = JSON.stringify(seed.kind === 'json' ? seed.body : [seed.fields, seed.file?.name])
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function fuzzRoute(pattern: string, entry: Entry): FuzzRoute {
  const reference = entry.reference ?? []
  const dialects = new Set(reference.map((route) => ROUTE_ANSWERS[route]?.dialect))
  if (entry.dialect !== undefined) dialects.add(entry.dialect)
  const [dialect, ...others] = [...dialects]
  if (dialect === undefined || others.length > 0)
    throw new Error(`${pattern}: one dialect of the answer table, got ${[...dialects].join(', ')}`)
  return {
    reference,
    dialect: BODY_OF[dialect],
    statuses: statusesOf(dialect),
    seeds: distinct([...reference.flatMap(schemaSeeds), ...(entry.seeds ?? [])]),
    urls: (setup) => [...reference.map((route) => seedUrl(route, setup)), ...(entry.urls?.(setup) ?? [])],
    ...(entry.validUrl ? { validUrl: entry.validUrl } : {}),
    ...(entry.headers ? { headers: entry.headers } : {}),
  }
}

const json = (from: string, body: Json): Seed => ({ from, mustServe: true, kind: 'json', body })
const only = (route: string): Entry => ({ reference: [route] })

const ENTRIES: Readonly<Record<string, Entry>> = {
  '/v1/responses': only('POST /v1/responses'),
  '/v1/responses/:id/cancel': {
    reference: ['POST /v1/responses/{response_id}/cancel'],
    // A response that is not there: the cancel's 404 path.
    urls: () => ['/v1/responses/resp_unknown/cancel'],
    // The stored response is finished; a cancel is served on one still running.
    validUrl: async (setup) => `/v1/responses/${await setup.backgroundResponse()}/cancel`,
  },
  '/v1/chat/completions': only('POST /v1/chat/completions'),
  '/v1/completions': only('POST /v1/completions'),
  '/v1/embeddings': only('POST /v1/embeddings'),
  '/v1/images/generations': only('POST /v1/images/generations'),
  '/v1/images/edits': only('POST /v1/images/edits'),
  '/v1/messages': only('POST /v1/messages'),
  '/v1/moderations': only('POST /v1/moderations'),
  '/v1/audio/speech': only('POST /v1/audio/speech'),
  '/v1/audio/transcriptions': only('POST /v1/audio/transcriptions'),
  '/v1/audio/translations': only('POST /v1/audio/translations'),
  '/v1/search': only('POST /v1/search'),
  '/v1/search/:tool': {
    reference: ['POST /v1/search/{search_tool_name}'],
    // A second tool, with parameters of its own (Part 2 §4.5).
    urls: () => ['/v1/search/p6-search'],
  },
  '/v1/ocr': only('POST /v1/ocr'),
  '/v1/videos': {
    reference: ['POST /v1/videos'],
    seeds: [
      // The schema states the JSON body; the image reference travels only as a file part (Part 2 §4.1).
      {
        from: 'hand-written: a multipart create with input_reference',
        mustServe: true,
        kind: 'multipart',
        fields: [
          ['model', 'vidA-2'],
          ['prompt', 'a boat'],
          ['seconds', '4'],
        ],
        file: { name: 'input_reference', filename: 'ref.png', contentType: 'image/png', content: PNG },
      },
    ],
  },
  '/v1/videos/:video_id/remix': only('POST /v1/videos/{video_id}/remix'),
  '/v1/files': only('POST /v1/files'),
  '/v1/text:synthesize': only('POST /v1/text:synthesize'),
  '/v1beta/models/:target': {
    reference: ['POST /v1beta/models/{model}:generateContent', 'POST /v1beta/models/{model}:streamGenerateContent'],
    // countTokens has no request schema (Part 1 §7 names the route only), and a speech model takes the same body.
    urls: () => ['/v1beta/models/nv-gen-flash:countTokens', '/v1beta/models/nv-speech-flash-preview:generateContent'],
  },
  '/user/v1/transactions/lookup': {
    // Part 1 §4.2 names the route but shows no request, so no schema: the body is the gateway's (account/routes.ts).
    dialect: 'usage',
    seeds: [json("hand-written: the gateway's lookup body", { ids: ['01890a5d-ac96-774b-bcce-b302099a8057'] })],
    urls: () => ['/user/v1/transactions/lookup'],
  },
  // Not the reference: the gateway's own admin route (gateway/admin.ts), answered in the compatible dialect of
  // every path outside /user/v1. It is fuzzed like the others; the target is another account than the fuzz key's.
  '/admin/accounts/:account_id/tier': {
    dialect: 'compatible',
    seeds: [json("hand-written: the admin route is not the reference's", { tier: 3 })],
    urls: () => ['/admin/accounts/acct-tier3/tier'],
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  },
}

export const FUZZ_ROUTES: Readonly<Record<string, FuzzRoute>> = Object.fromEntries(
  Object.entries(ENTRIES).map(([pattern, entry]) => [pattern, fuzzRoute(pattern, entry)]),
)

/** The headers a fuzz call to `route` carries besides its content type. */
export function authHeaders(route: FuzzRoute): Record<string, string> {
  return route.headers ?? BEARER
}

/** A seed with the setup's resources filled in (the image edit names a stored file). */
export function seedFor(seed: Seed, setup: Setup): Seed {
  if (seed.kind !== 'json') return seed
  return { ...seed, body: JSON.parse(fillIds(JSON.stringify(seed.body), setup)) as Json }
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
