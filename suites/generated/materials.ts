/**
 * What a generated request names but cannot invent: the model (`{model}`, the named model of the schema's x-model or
 * the first model of its kind in GET /v1/models), the resources its path or body names (`{file_id}`, `{response_id}`,
 * `{video_id}`: made first, each deleted after where the reference has a delete), the audio a multipart `{file}`
 * carries, and the target's names for the ids the reference neutralised. Made once per test file, but for a case
 * that deletes what it names, which gets its own.
 */
import { isObject } from '../../common/json.ts'
import type { RequestSchema } from '../../common/request-schemas.ts'
import type { RequestValue } from '../../harness/generate/validate.ts'
import { expectSetup } from '../../harness/worker/assert.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { TargetClient } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { runMetadata } from '../../harness/worker/run-tag.ts'
import { perFile, runConfig } from '../../harness/worker/suite.ts'
import type { Capability } from '../../harness/setup/config.ts'
import { deleteCreated, upload } from '../files/uploads.ts'
import { howToName, namedModel } from '../shared/named-models.ts'
import { targetName } from '../shared/names.ts'

/** The mode (§2.3) of the models a capability names, to find one in the list where the user named none. */
const MODE_OF: Readonly<Record<string, string>> = {
  chat: 'chat',
  responses: 'chat',
  reasoning: 'chat',
  'chat-audio': 'chat',
  native: 'chat',
  embedding: 'embedding',
  image: 'image_generation',
  completion: 'completion',
  moderation: 'moderation',
  speech: 'audio_speech',
  'native-speech': 'audio_speech',
  synthesis: 'audio_speech',
  transcribe: 'audio_transcription',
  'transcribe-newer': 'audio_transcription',
  diarize: 'audio_transcription',
  ocr: 'ocr',
  video: 'video_generation',
}

/** Placeholders that name a resource a case must make first. */
export const RESOURCE_PLACEHOLDERS = ['{file_id}', '{response_id}', '{video_id}'] as const

/** Whether a case's request names a resource that costs to make: a video job on a paid target. */
export function namesVideo(request: RequestValue): boolean {
  return JSON.stringify(request).includes('{video_id}')
}

interface ListedModel {
  id: string
  mode?: string
  minTier: number
}

const listed = perFile(() => ({ models: undefined as undefined | (() => Promise<ListedModel[]>) }))

function modelList(api: TargetClient): Promise<ListedModel[]> {
  const state = listed()
  state.models ??= memo(async () => {
    const ex = await api.get('/v1/models')
    expectSetup(ex, '2xx', 'the model list, to name a model in a generated request')
    const data = isObject(ex.json) && Array.isArray(ex.json.data) ? ex.json.data : []
    return data
      .filter(isObject)
      .filter((item) => typeof item.id === 'string')
      .map((item) => ({
        id: item.id as string,
        ...(typeof item.mode === 'string' ? { mode: item.mode } : {}),
        minTier: typeof item.min_tier === 'number' ? item.min_tier : 0,
      }))
      .sort((a, b) => a.minTier - b.minTier)
  })
  return state.models()
}

/**
 * The models a schema's `{model}` may stand for, best first: the named one, then those listed of its kind (lowest
 * tier first). Skips, naming what to set, where there is none.
 */
export async function modelCandidates(api: TargetClient, schema: RequestSchema): Promise<string[]> {
  const capability = schema['x-model'] as Capability | undefined
  const named = capability === undefined ? undefined : namedModel(capability)
  const models = await modelList(api)
  const mode = capability === undefined ? undefined : MODE_OF[capability]
  const listed = models.filter((m) => mode === undefined || m.mode === mode).map((m) => m.id)
  const out = [...new Set([...(named === undefined ? [] : [named]), ...listed])]
  if (out.length === 0)
    skipTest(
      `no model of mode ${mode ?? 'any'} in GET /v1/models for ${schema['x-route']}'s {model}; ${howToName(capability ?? 'chat')}`,
    )
  return out
}

/** Resources made for the cases of one test file (one each, shared by the cases that only read them). */
const shared = perFile(() => new Map<string, Promise<string>>())
/** Resources to delete after the file's cases: the route that deletes each, and its id. */
const leftovers = perFile(() => [] as Array<{ path: string }>)

async function makeResponse(api: TargetClient): Promise<string> {
  const [model] = await modelCandidates(api, {
    'x-model': 'responses',
    'x-route': 'POST /v1/responses',
  } as RequestSchema)
  const ex = await api.post('/v1/responses', {
    model,
    input: 'Say hi.',
    max_output_tokens: 16,
    store: true,
    metadata: runMetadata(runConfig().runId),
  })
  expectSetup(ex, '2xx', 'a stored response, for a generated request that names {response_id}')
  const id = isObject(ex.json) ? ex.json.id : undefined
  if (typeof id !== 'string') skipTest('set-up failed: the stored response answered no id')
  return id
}

async function makeVideo(api: TargetClient): Promise<string> {
  const ex = await api.post('/v1/videos', { model: targetName('vidA-2'), prompt: 'A red ball on a table.' })
  expectSetup(ex, '2xx', 'a video job, for a generated request that names {video_id}')
  const id = isObject(ex.json) ? ex.json.id : undefined
  if (typeof id !== 'string') skipTest('set-up failed: the video job answered no id')
  leftovers().push({ path: `/v1/videos/${encodeURIComponent(id)}` })
  return id
}

async function makeFile(api: TargetClient): Promise<string> {
  const made = await upload(api, { label: 'generated', purpose: 'user_data' })
  if (made.id === undefined)
    expectSetup(made.ex, '2xx', 'an uploaded file, for a generated request that names {file_id}')
  if (made.id === undefined) skipTest('set-up failed: the upload answered no file id')
  return made.id
}

const MAKERS: Readonly<Record<string, (api: TargetClient) => Promise<string>>> = {
  '{file_id}': makeFile,
  '{response_id}': makeResponse,
  '{video_id}': makeVideo,
}

/** The value of one placeholder; `fresh` for a case that deletes what it names. */
async function resource(api: TargetClient, placeholder: string, fresh: boolean): Promise<string> {
  const make = MAKERS[placeholder]
  if (make === undefined) skipTest(`a generated request names ${placeholder}, which the phase does not make`)
  if (fresh) return make(api)
  const made = shared()
  if (!made.has(placeholder)) made.set(placeholder, make(api))
  return made.get(placeholder) as Promise<string>
}

/** A string of a request with its placeholders filled; `{file}` stays, for the multipart encoder's audio. */
async function fill(api: TargetClient, model: () => Promise<string>, text: string, fresh: boolean): Promise<string> {
  if (text === '{model}' || text === '{model_id}') return model()
  if (/^\{[a-z_]+\}$/.test(text) && text !== '{file}') return resource(api, text, fresh)
  if (text.includes('{model}')) return text.replaceAll('{model}', await model())
  return targetName(text)
}

async function walk(value: unknown, at: (text: string) => Promise<string>): Promise<unknown> {
  if (typeof value === 'string') return at(value)
  if (Array.isArray(value)) return Promise.all(value.map((item) => walk(item, at)))
  if (isObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [key, member] of Object.entries(value)) out[key] = await walk(member, at)
    return out
  }
  return value
}

/**
 * The request as it is sent: every placeholder filled (`model` gives the model, asked only where one is named),
 * every neutral name the target's.
 */
export async function materialise(
  api: TargetClient,
  schema: RequestSchema,
  request: RequestValue,
  model: () => Promise<string>,
): Promise<RequestValue> {
  const fresh = schema['x-route'].startsWith('DELETE ')
  return (await walk(request, (text) => fill(api, model, text, fresh))) as RequestValue
}

/** Remembers a resource a served case created, to delete after the file's cases. */
export function createdBy(route: string, answer: unknown, deletable: (route: string) => string | undefined): void {
  const id = isObject(answer) ? answer.id : undefined
  const template = deletable(route)
  if (typeof id !== 'string' || template === undefined) return
  leftovers().push({ path: template.replace(/\{[^}]+\}/, encodeURIComponent(id)) })
}

/** afterAll: deletes what the file's cases made, ignoring the answers (a leftover names its run for the sweep). */
export async function cleanUp(api: TargetClient): Promise<void> {
  await deleteCreated(api)
  for (const { path } of leftovers().splice(0)) {
    try {
      await api.request({ method: 'DELETE', path })
    } catch {
      // Cleanup must not turn a finished run into a harness error.
    }
  }
}
