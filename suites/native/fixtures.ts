/**
 * What the native suites share (Part 2 §4.8): the models the native interface serves, found at run time, small
 * request bodies, the cost estimate of each call, and the key forms of §5.
 *
 * The reference names no way to list the native interface's models, so they are found by asking: the usable
 * models of GET /v1/models of the right mode, cheapest first (and those of the generation model's owner first
 * for speech), are tried with a tiny request until one answers 200. Each try is a billable call and is
 * estimated before it is sent. A target whose list gives no model of that mode, and whose user named none, skips
 * the tests that need one naming the setting; one whose models were tried and refused, as a capability absent.
 */
import { expectStatus, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient, RequestSpec } from '../../harness/worker/http-client.ts'
import { currentRequirement, observe, skipTest } from '../../harness/worker/recorder.ts'
import { reportedTier } from '../shared/tier.ts'
import { modelItems } from '../models/model-list.ts'
import { howToName, namedFirst, namedModel, withNamedModels } from '../shared/named-models.ts'
import { runConfig, spend } from '../../harness/worker/suite.ts'

export interface ListedModel {
  id: string
  mode: string
  ownedBy: string
  minTier: number
  /** Per million tokens (the unit §4.9 states for the native models); unknown reads as 0. */
  input: number
  cachedInput: number
  output: number
}

/** §4.9: audio output counts 32 tokens per second. */
export const AUDIO_TOKENS_PER_SECOND = 32
/** A typical speaking rate (about 150 words a minute) for estimates; one second more is added. */
const CHARS_PER_SECOND = 15
const MAX_PROBES = 8
/** Room for an answer of a few sentences, thinking included; keeps each call cheap. */
export const MAX_OUTPUT = 256
/** The cap where a model will not turn thinking off: room for its thinking and then some text. */
export const ROOMY_OUTPUT = 2048

export const SPEECH_TEXT = 'Hello from the conformance suite.'

export function generatePath(model: string, method = 'generateContent'): string {
  return `/v1beta/models/${encodeURIComponent(model)}:${method}`
}

export function userTurn(text: string): Record<string, unknown> {
  return { role: 'user', parts: [{ text }] }
}

/** A minimal valid body: one user turn and a bounded answer. */
export function textBody(
  extra: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    contents: [userTurn('Say hello in one short sentence.')],
    generationConfig: { maxOutputTokens: MAX_OUTPUT, ...config },
    ...extra,
  }
}

export function speechBody(
  extra: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
  text = SPEECH_TEXT,
): Record<string, unknown> {
  return {
    contents: [userTurn(text)],
    generationConfig: {
      responseModalities: ['AUDIO'],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } },
      ...config,
    },
    ...extra,
  }
}

/**
 * A text call whose answer the test reads: thinking off (thinkingBudget 0, "0 disables"), so that a thinking model
 * cannot spend the cap before any text; where the model refuses that with 400, the same call with a larger cap.
 * An empty candidate is then never the test's own doing.
 */
export async function withRoomForText(
  send: (body: Record<string, unknown>) => Promise<Exchange>,
): Promise<{ ex: Exchange; body: Record<string, unknown> }> {
  const noThinking = textBody({}, { thinkingConfig: { thinkingBudget: 0 } })
  const ex = await send(noThinking)
  if (ex.status !== 400) return { ex, body: noThinking }
  const roomy = textBody({}, { maxOutputTokens: ROOMY_OUTPUT })
  return { ex: await send(roomy), body: roomy }
}

const roundUp = (usd: number): number => Math.ceil(usd * 1_000_000) / 1_000_000

/** Input read as one token per character (an upper bound), output as the whole budget. */
export function textCostUsd(model: ListedModel, body: Record<string, unknown>): number {
  const chars = JSON.stringify(body.contents ?? '').length + JSON.stringify(body.system_instruction ?? '').length
  const config = isObject(body.generationConfig) ? body.generationConfig : {}
  const max = typeof config.maxOutputTokens === 'number' ? config.maxOutputTokens : MAX_OUTPUT
  return roundUp((chars * model.input + Math.ceil(max) * model.output) / 1_000_000)
}

export function speechCostUsd(model: ListedModel, text: string): number {
  const seconds = text.length / CHARS_PER_SECOND + 1
  return roundUp((text.length * model.input + seconds * AUDIO_TOKENS_PER_SECOND * model.output) / 1_000_000)
}

function listed(item: Record<string, unknown>): ListedModel {
  const pricing = isObject(item.pricing) ? item.pricing : {}
  return {
    id: String(item.id),
    mode: String(item.mode),
    ownedBy: String(item.owned_by ?? ''),
    minTier: typeof item.min_tier === 'number' ? item.min_tier : 0,
    input: typeof pricing.input === 'number' ? pricing.input : 0,
    cachedInput: typeof pricing.cached_input === 'number' ? pricing.cached_input : 0,
    output: typeof pricing.output === 'number' ? pricing.output : 0,
  }
}

interface NativeModels {
  /** A model id for a call without a valid key, and whether it is known to be served here (named or found). */
  forKeylessCall: () => Promise<{ id: string; known: boolean }>
  /** Models the main key may use, cheapest output first. */
  usable: () => Promise<ListedModel[]>
  /** A model that answers generateContent with text. */
  generation: () => Promise<ListedModel>
  /** A newer speech model that answers generateContent with audio. */
  speech: () => Promise<ListedModel>
}

export function nativeModels(api: TargetClient): NativeModels {
  const usable = memo(async () => {
    const list = await api.get('/v1/models')
    expectStatus(list, 200)
    const items = modelItems(list).filter((i): i is Record<string, unknown> => isObject(i) && typeof i.id === 'string')
    const named = { chat: namedModel('native'), audio_speech: namedModel('native-speech') }
    const all = withNamedModels(items, named).map(listed)
    const tier = all[0] === undefined ? undefined : await reportedTier(api, all[0].id)
    return all.filter((m) => m.minTier <= (tier ?? 0)).sort(namedFirst(named, (a, b) => a.output - b.output))
  })

  /** The first candidate that answers 2xx, or undefined (never skips: callers decide); `tried` says who was asked. */
  async function probe(
    candidates: ListedModel[],
    body: Record<string, unknown>,
    cost: (m: ListedModel) => number,
    what: string,
  ): Promise<Probed> {
    const tried = candidates.slice(0, MAX_PROBES).map((m) => m.id)
    for (const model of candidates.slice(0, MAX_PROBES)) {
      spend(cost(model), `native ${what} probe with ${model.id}`)
      let ex = await api.post(generatePath(model.id), body)
      // A target that refuses Bearer here (P2-5.1-native-bearer reports it) may still serve the native key.
      if (ex.status === 401) ex = await api.post(generatePath(model.id), body, nativeKeySpec(api))
      if (ex.status >= 200 && ex.status < 300) {
        observe(`native ${what} model`, `${model.id} (owned_by ${model.ownedBy}) answers generateContent`)
        return { model, tried }
      }
    }
    return { model: undefined, tried }
  }

  function orSkip({ model, tried }: Probed, what: 'generation' | 'speech'): ListedModel {
    const how = howToName(what === 'speech' ? 'native-speech' : 'native')
    const mode = what === 'speech' ? 'audio_speech' : 'chat'
    // No call made is no capability judged absent: the list only failed to point at a model.
    if (model === undefined && tried.length === 0)
      skipTest(
        `GET /v1/models gives no model of mode ${mode} that this key may use, so no native ${what} model could be found by its mode; ${how}`,
      )
    if (model === undefined)
      skipTest(
        `capability absent: none of ${tried.join(', ')} (GET /v1/models, mode ${mode}) answers POST /v1beta/models/{model}:generateContent; ${how}`,
      )
    return model
  }

  const findGeneration = memo(async () => {
    const probeBody = textBody({}, { maxOutputTokens: 16 })
    return probe(
      (await usable()).filter((m) => m.mode === 'chat'),
      probeBody,
      (m) => textCostUsd(m, probeBody),
      'generation',
    )
  })

  const findSpeech = memo(async () => {
    // The provider's own speech models first: the owner of its generation model, where one was found.
    const owner = (await findGeneration()).model?.ownedBy
    const all = (await usable()).filter((m) => m.mode === 'audio_speech')
    const candidates = [...all.filter((m) => m.ownedBy === owner), ...all.filter((m) => m.ownedBy !== owner)]
    return probe(candidates, speechBody(), (m) => speechCostUsd(m, SPEECH_TEXT), 'speech')
  })

  const generation = async (): Promise<ListedModel> => orSkip(await findGeneration(), 'generation')
  const speech = async (): Promise<ListedModel> => orSkip(await findSpeech(), 'speech')

  /**
   * A model for a call without a valid key, which needs no working key: the named native model, else the one found
   * to answer generateContent, else the first chat model of the list; `known` is false for that last one, which the
   * native interface may not serve and so may refuse before it reads the key.
   */
  async function forKeylessCall(): Promise<{ id: string; known: boolean }> {
    const named = namedModel('native')
    if (named !== undefined) return { id: named, known: true }
    // A key the list refuses finds no model here; the call without a key needs none.
    if ((await api.get('/v1/models')).status !== 200) return { id: 'gc-native-model', known: false }
    const found = (await findGeneration()).model
    if (found !== undefined) return { id: found.id, known: true }
    const chat = (await usable()).find((m) => m.mode === 'chat')
    return { id: chat?.id ?? 'gc-native-model', known: false }
  }

  return { usable, generation, speech, forKeylessCall }
}

interface Probed {
  model: ListedModel | undefined
  tried: string[]
}

/**
 * The key in the native key header (§5.2: x-native-api-key, a neutral word standing for the vendor's; a target
 * names its own in GATEWAY_NATIVE_KEY_HEADER) instead of Authorization; the client's redactor hides the key.
 */
export function nativeKeySpec(
  api: TargetClient,
  key: 'main' | 'invalid' = 'main',
): Pick<RequestSpec, 'key' | 'headers'> {
  const value = key === 'main' ? api.keyOrSkip('main') : `gc-invalid-key-native-${Date.now()}`
  return { key: null, headers: { [runConfig().nativeKeyHeader]: value } }
}

/** The first candidate's parts of a §2.5 body, or []. */
export function partsOf(body: unknown): Record<string, unknown>[] {
  const candidate = isObject(body) && Array.isArray(body.candidates) ? body.candidates[0] : undefined
  const content = isObject(candidate) ? candidate.content : undefined
  return isObject(content) && Array.isArray(content.parts) ? content.parts.filter(isObject) : []
}

/** The inlineData of the first audio part: { mimeType, data } with both strings, or undefined. */
export function audioPart(ex: Exchange): { mimeType: string; data: string } | undefined {
  for (const part of partsOf(ex.json)) {
    const inline = isObject(part.inlineData)
      ? part.inlineData
      : isObject(part.inline_data)
        ? part.inline_data
        : undefined
    if (inline === undefined) continue
    const mimeType = inline.mimeType ?? inline.mime_type
    if (typeof mimeType === 'string' && typeof inline.data === 'string') return { mimeType, data: inline.data }
  }
  return undefined
}

/**
 * POST to the native interface with the main key as Bearer. A 401 to that valid key skips the running test:
 * P2-5.1-native-bearer reports the refusal once, instead of every test that expected another status.
 */
export async function nativePost(
  api: TargetClient,
  path: string,
  body: unknown,
  spec: Omit<RequestSpec, 'path' | 'method' | 'json'> = {},
): Promise<Exchange> {
  const ex = await api.post(path, body, spec)
  const bearerMain = ex.excerpt.auth === 'bearer' && ex.excerpt.key === 'main'
  if (ex.status === 401 && bearerMain && currentRequirement() !== 'P2-5.1-native-bearer') {
    precondition(
      false,
      'P2-5.1-native-bearer',
      `${ex.excerpt.method} ${ex.excerpt.path} refused the main key as Bearer with 401`,
    )
  }
  return ex
}

/** streamGenerateContent read as SSE when the target answers text/event-stream, else as a plain body. */
export async function nativeStream(
  api: TargetClient,
  model: string,
  body: unknown,
  query: Record<string, string> = {},
  spec: Omit<RequestSpec, 'path' | 'method' | 'json'> = {},
): Promise<Exchange> {
  const ex = await api.stream({
    method: 'POST',
    path: generatePath(model, 'streamGenerateContent'),
    query,
    json: body,
    ...spec,
  })
  if (
    ex.status === 401 &&
    ex.excerpt.auth === 'bearer' &&
    ex.excerpt.key === 'main' &&
    currentRequirement() !== 'P2-5.1-native-bearer'
  ) {
    precondition(
      false,
      'P2-5.1-native-bearer',
      `${ex.excerpt.method} ${ex.excerpt.path} refused the main key as Bearer with 401`,
    )
  }
  return ex
}
