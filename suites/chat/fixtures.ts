/**
 * What the chat suites share (and the compatible suites borrow): models picked from GET /v1/models at run
 * time by mode and by the caller's tier (never hard-coded ids), cheapest first, and small requests, so that a
 * run against a paid target stays cheap.
 */
import { reportedTier } from '../shared/tier.ts'
import { WEATHER_FUNCTION } from '../shared/tools.ts'
import { expectSetup, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Capability } from '../../harness/setup/config.ts'
import type { KeySlot } from '../../harness/keys.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient, RequestSpec } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { listedItems } from '../models/model-list.ts'
import { howToName, namedFirst, namedModel, withNamedModels } from '../shared/named-models.ts'

const CHAT_PATH = '/v1/chat/completions'

/** A prompt whose honest answer is long: a small budget is sure to run out on it. */
export const LONG_PROMPT = 'Write a detailed essay of at least five hundred words on the history of computer networks.'
export const SHORT_PROMPT = 'Say hello to the gateway in one short sentence.'
export const CAPS = {
  answer: 64, // room for a short answer; shapes and prompt counts do not need more
  cut: 16, // sure to run out on LONG_PROMPT, visible text or hidden reasoning alike
  toolCall: 256, // room for a reasoning model to think and then call the tool
}

export interface CatalogueModel {
  id: string
  mode: string
  minTier: number
  /** Output price, for picking the cheapest; unknown sorts last. */
  outputPrice: number
  functionCalling: boolean
  /** supports_system_messages not false: a system or developer message may be sent to it (§2.3). */
  systemMessages: boolean
  /** supports_response_schema not false: a response_format json_schema may be sent to it (§2.3). */
  responseSchema: boolean
}

export interface Catalogue {
  /** The caller's tier: extra.rate_limits.current of a retrieved model, else the credit record, else unknown. */
  tier: number | undefined
  /** Every model of the list. */
  all: CatalogueModel[]
  /** Models the caller may use (min_tier <= tier), cheapest first. */
  usable: CatalogueModel[]
}

function modelOf(item: Record<string, unknown>): CatalogueModel {
  const pricing = isObject(item.pricing) ? item.pricing : {}
  return {
    id: String(item.id),
    mode: String(item.mode),
    minTier: typeof item.min_tier === 'number' ? item.min_tier : 0,
    outputPrice: typeof pricing.output === 'number' ? pricing.output : Number.POSITIVE_INFINITY,
    functionCalling: item.supports_function_calling !== false,
    systemMessages: item.supports_system_messages !== false,
    responseSchema: item.supports_response_schema !== false,
  }
}

async function tierOf(api: TargetClient, someModel: string | undefined, key: KeySlot): Promise<number | undefined> {
  if (someModel !== undefined) {
    const tier = await reportedTier(api, someModel, key)
    if (tier !== undefined) return tier
  }
  const credit = (await api.get('/user/v1/credit', { key })).json
  return isObject(credit) && typeof credit.account_tier === 'number' ? credit.account_tier : undefined
}

/** The catalogue modes these suites pick by, and the capability that names a model of each. */
const CAPABILITY_OF_MODE: Record<string, Capability> = {
  chat: 'chat',
  embedding: 'embedding',
  image_generation: 'image',
  completion: 'completion',
  moderation: 'moderation',
}

function namedByMode(): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(CAPABILITY_OF_MODE).map(([mode, capability]) => [mode, namedModel(capability)]),
  )
}

/** The model list and the main key's tier, once per file. */
export function catalogueFixture(api: TargetClient): () => Promise<Catalogue> {
  return memo(async () => {
    const list = await api.get('/v1/models')
    // The list only names the models these checks use: the models family judges it.
    expectSetup(list, '2xx', 'the model list that names the models to use')
    const items = listedItems(list)
    if (items === undefined) skipTest('set-up failed: GET /v1/models answered no list of models')
    const listed = items.filter(
      (item): item is Record<string, unknown> => isObject(item) && typeof item.id === 'string',
    )
    const named = namedByMode()
    const all = withNamedModels(listed, named).map(modelOf)
    const tier = await tierOf(api, all[0]?.id, 'main')
    // An unknown tier leaves only the models every account may use.
    const usable = all
      .filter((m) => m.minTier <= (tier ?? 0))
      .sort(namedFirst(named, (a, b) => a.outputPrice - b.outputPrice))
    return { tier, all, usable }
  })
}

/** The cheapest usable model of a mode; the test is skipped when the target has none (a capability absent). */
export async function modelFor(
  catalogue: () => Promise<Catalogue>,
  mode: string,
  want: (m: CatalogueModel) => boolean = () => true,
): Promise<CatalogueModel> {
  const { usable, tier } = await catalogue()
  const model = usable.find((m) => m.mode === mode && want(m))
  const how = CAPABILITY_OF_MODE[mode]
  if (!model)
    skipTest(
      `capability absent: no ${mode} model in GET /v1/models that this key${tier === undefined ? '' : ` (tier ${tier})`} may use fits the test${how ? `; ${howToName(how)}` : ''}`,
    )
  return model
}

export function chat(
  api: TargetClient,
  body: Record<string, unknown>,
  spec: Omit<RequestSpec, 'path' | 'method' | 'json'> = {},
): Promise<Exchange> {
  return api.post(CHAT_PATH, body, spec)
}

export function chatStream(api: TargetClient, body: Record<string, unknown>): Promise<Exchange> {
  return api.stream({
    method: 'POST',
    path: CHAT_PATH,
    json: { ...body, stream: true },
    headers: { accept: 'text/event-stream' },
  })
}

export function userMessage(text: string): Record<string, unknown> {
  return { role: 'user', content: text }
}

/** An object with a first choice: what the checks that read a completion need, whatever else its shape gets wrong. */
function hasChoice(value: unknown): value is Record<string, unknown> {
  return isObject(value) && Array.isArray(value.choices) && isObject(value.choices[0])
}

/**
 * The 200 body as a chat completion, for a check that reads it. Another status skips the check as a failed
 * set-up (a check that judges the acceptance itself calls expectStatus first). A check reads only the fields it
 * judges, so the rest of the §2.6 shape is P1-2.6-chat-completion's to report; only a body without a first choice
 * skips the test.
 */
export function completionOf(ex: Exchange): Record<string, unknown> {
  expectSetup(ex, '2xx', 'the chat completion this check reads')
  const body = ex.json
  precondition(
    hasChoice(body),
    'P1-2.6-chat-completion',
    `${ex.excerpt.method} ${ex.excerpt.path} did not answer an object with choices`,
  )
  return body
}

interface ChatUsage {
  prompt: number
  completion: number
  total: number
  cached: number
}

/** The usage counts; skips the test when usage lacks the fields of §2.5 (P1-2.5-chat-usage reports that). */
export function usageOf(completion: Record<string, unknown>): ChatUsage {
  precondition(
    schemas().validate('chat/usage.json', completion.usage).ok,
    'P1-2.5-chat-usage',
    `completion ${String(completion.id)} has no usage with the fields of §2.5`,
  )
  const u = completion.usage as {
    prompt_tokens: number
    completion_tokens: number
    total_tokens: number
    prompt_tokens_details: { cached_tokens: number }
  }
  return {
    prompt: u.prompt_tokens,
    completion: u.completion_tokens,
    total: u.total_tokens,
    cached: u.prompt_tokens_details.cached_tokens,
  }
}

export function firstChoice(completion: Record<string, unknown>): Record<string, unknown> {
  return (completion.choices as Record<string, unknown>[])[0] as Record<string, unknown>
}

/** The shared function tool in the chat convention: { type: function, function: {...} }. */
export const WEATHER_TOOL = { type: 'function', function: WEATHER_FUNCTION } as const

export const WEATHER_PROMPT = 'What is the weather like in Lisbon right now?'
