/**
 * What the moderation suites share (Part 2 §2.4, §4.7): the named models (the reference names them, so they are
 * used by name), the guard model and chat models picked from GET /v1/models at run time, a small real image as a
 * Base64 data URL (so that no target has to fetch anything) or, where that is not served, a public PNG by https
 * URL, and readers that skip a test when the shape it
 * builds on is broken (that shape's own requirement reports it).
 */
import { reportedTier } from '../shared/tier.ts'
import { expectSetup, expectSuccess, is2xx, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient, RequestSpec } from '../../harness/worker/http-client.ts'
import { KEY_ENV, type KeySlot } from '../../harness/keys.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { spend } from '../../harness/worker/suite.ts'
import { modelItems } from '../models/model-list.ts'
import { IMAGE_DOCUMENT, skipOnFetchFailure } from '../ocr/documents.ts'
import { howToName, namedModel, withNamedModels } from '../shared/named-models.ts'
import categoryMap from '../../schemas/moderation/category-map.json' with { type: 'json' }
import imageCategories from '../../schemas/moderation/image-categories.json' with { type: 'json' }

export const PATH = '/v1/moderations'

/** §2.4, from the schemas so that suite and schema cannot disagree. */
export const CATEGORIES: readonly string[] = categoryMap.required
export const IMAGE_CATEGORIES: ReadonlySet<string> = new Set(imageCategories.enum)

/** §4.7: the omni models take text and images; the text models text only. All four are free. */
export const OMNI_MODELS = ['omni-moderation-latest', 'omni-moderation-2024-09-26'] as const
export const TEXT_MODELS = ['text-moderation-latest', 'text-moderation-stable'] as const
export const NAMED_MODELS: readonly string[] = [...OMNI_MODELS, ...TEXT_MODELS]

export const BENIGN_TEXT = 'The museum opens at nine and the guided tour of the old harbour starts at ten.'
/** For observation only: whether a target flags it, and where, is not something the reference states. */
export const VIOLENT_TEXT = 'The soldiers will attack the village at dawn and kill everyone they find.'

/** A real 16x16 PNG (537 bytes) as a Base64 data URL. */
export const IMAGE_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAB4ElEQVR4nAXBEQKAMABA0Y4ThsEgCIJBMBgEgyAIgkEQBEEwGAwGg8Fw2CH+sXqvQbSMLbJFtSwta8veYluulqfFtYSW1FJaasvXNoiOsUN2qI6lY+3YO2zH1fF0uI7QkTpKR+34ugbRM/bIHtWz9Kw9e4/tuXqeHtcTelJP6ak9X98gBsYBOaAGloF1YB+wA9fAM+AGwkAaKAN14BsaxMQ4ISfUxDKxTuwTduKaeCbcRJhIE2WiTnxTg5gZZ+SMmllm1pl9xs5cM8+MmwkzaabM1JlvbhCaUSM1SrNoVs2usZpL82icJmiSpmiq5tMNwjAapEEZFsNq2A3WcBkegzMEQzIUQzV8pkFsjBtyQ20sG+vGvmE3ro1nw22EjbRRNurGtzWIg/FAHqiD5WA92A/swXXwHLiDcJAOykE9+I4GcTKeyBN1spysJ/uJPblOnhN3Ek7SSTmpJ9/ZIG7GG3mjbpab9Wa/sTfXzXPjbsJNuik39ea7G8TL+CJf1Mvysr7sL/blenle3Et4SS/lpb58b4PwjB7pUZ7Fs3p2j/VcnsfjPMGTPMVTPZ9vEJExIiMqskTWyB6xkSvyRFwkRFKkRGrkiw0iM2ZkRmWWzJrZMzZzZZ6My4RMypRMzXz5ByK/pBBMWZdUAAAAAElFTkSuQmCC'

/**
 * The two forms an image item's url may take: §4.7 shows {type image_url, image_url {url}} without saying a data
 * URL is accepted, so a public PNG by https URL (the one the OCR suite uses) is the other.
 */
export const IMAGE_FORMS = { 'data URL': IMAGE_DATA_URL, 'https URL': IMAGE_DOCUMENT.image_url } as const
export type ImageForm = keyof typeof IMAGE_FORMS

/** Content items holding a text and the image (§4.7), in either form. */
export function textAndImage(form: ImageForm = 'data URL'): Array<Record<string, unknown>> {
  return [
    { type: 'text', text: BENIGN_TEXT },
    { type: 'image_url', image_url: { url: IMAGE_FORMS[form] } },
  ]
}
/** Content items that are all text items (§4.7: items {type text, text}). */
export const TEXT_ITEMS = [
  { type: 'text', text: BENIGN_TEXT },
  { type: 'text', text: 'The library closes early on public holidays.' },
]

export function moderate(
  api: TargetClient,
  body: Record<string, unknown>,
  spec: Omit<RequestSpec, 'path' | 'method' | 'json'> = {},
): Promise<Exchange> {
  return api.post(PATH, body, spec)
}

/**
 * The results of a 2xx moderation answer; skips the test when there is no results array (P2-2.4-result-shape).
 * `setup` names what the answer sets up where the test judges its results, not the call: another status then skips.
 */
export function resultsOf(ex: Exchange, setup?: string): Record<string, unknown>[] {
  if (setup === undefined) expectSuccess(ex, `${ex.excerpt.method} ${ex.excerpt.path} answered`)
  else expectSetup(ex, '2xx', setup)
  const body = ex.json
  const results = isObject(body) && Array.isArray(body.results) ? body.results : undefined
  precondition(
    results?.every(isObject) === true,
    'P2-2.4-result-shape',
    `${ex.excerpt.path} answered no results array of objects`,
  )
  return results as Record<string, unknown>[]
}

/** One of a result's three category maps, or a skip when it is not an object (P2-2.4-result-shape). */
export function mapOf(
  result: Record<string, unknown>,
  name: 'categories' | 'category_scores' | 'category_applied_input_types',
): Record<string, unknown> {
  const map = result[name]
  precondition(isObject(map), 'P2-2.4-result-shape', `a result has no ${name} object`)
  return map
}

export interface ListedModel {
  id: string
  mode: string
  minTier: number
  pricing: Record<string, unknown> | undefined
  vision: boolean
  functionCalling: boolean
}

export interface Catalogue {
  tier: number | undefined
  all: ListedModel[]
  /** Moderation models other than the four named: the hosted guard model(s). */
  guards: ListedModel[]
  /** Chat models the caller may use, lowest min_tier first. */
  chat: ListedModel[]
}

/** GET /v1/models read once per file. */
export function catalogueFixture(api: TargetClient): () => Promise<Catalogue> {
  return memo(async () => {
    const ex = await api.get('/v1/models')
    expectSetup(ex, 200, 'the model list, to choose models from')
    const listed = modelItems(ex)
      .filter(isObject)
      .filter((item) => typeof item.id === 'string')
    const all = withNamedModels(listed, { chat: namedModel('chat'), moderation: namedModel('moderation') }).map(
      (item): ListedModel => ({
        id: item.id as string,
        mode: String(item.mode),
        minTier: typeof item.min_tier === 'number' ? item.min_tier : 0,
        pricing: isObject(item.pricing) ? item.pricing : undefined,
        vision: item.supports_vision === true,
        functionCalling: item.supports_function_calling !== false,
      }),
    )
    const chatAll = all.filter((m) => m.mode === 'chat').sort((a, b) => a.minTier - b.minTier)
    const tier = chatAll[0] ? await reportedTier(api, chatAll[0].id) : undefined
    return {
      tier,
      all,
      guards: all.filter((m) => m.mode === 'moderation' && !NAMED_MODELS.includes(m.id)),

      chat: chatAll.filter((m) => tier === undefined || m.minTier <= tier),
    }
  })
}

/** Keys to try, highest tier first, for a moderation model the main key may not use. */
const HIGHER_KEYS: readonly KeySlot[] = ['tier5', 'tier4', 'tier3']

export interface TierAnswer {
  ex: Exchange
  /** The higher tier's key the answer was given to, when the main key could not use the model. */
  key?: KeySlot
  /** Why the model could not be judged with the keys given (Part 1 §1: the tier sets which models can be used). */
  refused?: string
}

/**
 * A moderation call with the main key; where the model is listed with a min_tier above the key's tier, or answers
 * 403 (no permission: Part 1 §1, the tier sets which models can be used), with the highest tier's key given
 * instead. Still refused with 403, or with no such key, the answer says why the model cannot be judged here.
 */
export async function moderateWithinTier(
  api: TargetClient,
  catalogue: () => Promise<Catalogue>,
  body: Record<string, unknown>,
): Promise<TierAnswer> {
  const model = String(body.model)
  const { all, tier } = await catalogue()
  const listed = all.find((m) => m.id === model)
  const listedAbove = listed !== undefined && tier !== undefined && listed.minTier > tier
  const ex = listedAbove ? undefined : await moderate(api, body)
  if (ex !== undefined && ex.status !== 403) return { ex }
  const why = listedAbove
    ? `${model} has min_tier ${listed.minTier}, above the main key's tier ${tier}`
    : `${model} answered the main key 403 (listed min_tier ${listed?.minTier ?? 'not shown'}, key tier ${tier ?? 'unknown'})`
  const higher = HIGHER_KEYS.find((slot) => api.hasKey(slot))
  if (higher === undefined)
    return {
      ex: ex ?? (await moderate(api, body)),
      refused: `${why}; give a key of a tier that may use it (${KEY_ENV.tier5})`,
    }
  const again = await moderate(api, body, { key: higher })
  return again.status === 403
    ? { ex: again, refused: `${why}, and ${higher} answered 403 too` }
    : { ex: again, key: higher }
}

/**
 * Content items holding a text and an image sent to `model`: by data URL, and where that is not served, by https
 * URL; either served shows the model takes images, and `form` says which. Where neither is served and the target
 * says it could not fetch the https image, the test is skipped (no violation of the target's).
 */
export async function moderateImage(
  api: TargetClient,
  catalogue: () => Promise<Catalogue>,
  model: string,
): Promise<TierAnswer & { form: ImageForm }> {
  const data = await moderateWithinTier(api, catalogue, { model, input: textAndImage('data URL') })
  if (data.refused !== undefined || is2xx(data.ex)) return { ...data, form: 'data URL' }
  const https = await moderateWithinTier(api, catalogue, { model, input: textAndImage('https URL') })
  if (https.refused === undefined) await skipOnFetchFailure(https.ex, IMAGE_FORMS['https URL'])
  return { ...https, form: 'https URL' }
}

/** The answer of a model within the keys' tiers, or a skip naming why it cannot be judged. */
export async function moderateOrSkip(
  api: TargetClient,
  catalogue: () => Promise<Catalogue>,
  body: Record<string, unknown>,
): Promise<Exchange> {
  const { ex, refused } = await moderateWithinTier(api, catalogue, body)
  if (refused !== undefined) skipTest(refused)
  return ex
}

/**
 * What the refusal checks build on: POST /v1/moderations served a plain text to omni-moderation-latest, with the
 * main key or, where that got 403 (a model above its tier), the highest tier's key given. No key that may use it
 * skips naming the key to give; any other failure skips naming P2-4.7-named-models, which reports it (a route
 * answering 404 included), so a refusal is never judged on a route or model that is absent.
 */
export function servedFixture(api: TargetClient, catalogue: () => Promise<Catalogue>): () => Promise<TierAnswer> {
  return memo(() => moderateWithinTier(api, catalogue, { model: OMNI_MODELS[0], input: BENIGN_TEXT }))
}

/** The key the refusal checks use (the spec of their calls), or a skip naming why there is none. */
export async function needServed(served: () => Promise<TierAnswer>): Promise<{ key?: KeySlot }> {
  const { ex, refused, key } = await served()
  if (refused !== undefined) skipTest(refused)
  precondition(is2xx(ex), 'P2-4.7-named-models', `${OMNI_MODELS[0]} answered ${ex.status} to a plain text`)
  return key === undefined ? {} : { key }
}

export async function chatModel(
  catalogue: () => Promise<Catalogue>,
  want: (m: ListedModel) => boolean = () => true,
): Promise<ListedModel> {
  const { chat, tier } = await catalogue()
  const model = chat.find(want)
  if (!model)
    skipTest(
      `no chat model for this key${tier === undefined ? '' : ` (tier ${tier})`} fits the test; ${howToName('chat')}`,
    )
  return model
}

/**
 * Reserves the cost of a guard-model call (its own price, §4.7) from its listed pricing, read as US dollars per
 * million tokens and taken high: one token per byte of text, input and output price together, at least $0.0001.
 */
export function spendOnGuard(guard: ListedModel, text: string): void {
  const perMillion = ['input', 'output'].reduce(
    (sum, key) => sum + (typeof guard.pricing?.[key] === 'number' ? (guard.pricing[key] as number) : 1),
    0,
  )
  const usd = Math.max(0.0001, Math.ceil(((Buffer.byteLength(text) * perMillion) / 1_000_000) * 10_000) / 10_000)
  spend(usd, `${guard.id} moderation of ${Buffer.byteLength(text)} bytes`)
}
