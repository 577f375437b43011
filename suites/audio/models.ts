/**
 * Which models the audio suites use, and what their calls may cost (Part 2 §4.2-4.4).
 *
 * tts-1 and tts-1-hd are named by the reference. The newer speech model and the three kinds of transcription
 * model (the base model, a newer one, the diarization model) are not: the reference gateway's ids are the
 * defaults, and a target with other ids names its own in GATEWAY_MODELS (or GATEWAY_AUDIO_MODELS, its older
 * name), e.g. `speech=my-tts,transcribe=my-whisper,transcribe-newer=my-stt,diarize=my-stt-diarize`. A model
 * named there is used as named; a default the target's list does not have skips the tests that need it, saying
 * which key to set.
 */
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { TargetClient } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { AUDIO_CAPABILITIES, type NamedModels } from '../../harness/setup/config.ts'
import { runConfig } from '../../harness/worker/suite.ts'
import { howToName } from '../shared/named-models.ts'
import { reportedTier } from '../shared/tier.ts'

const DEFAULT_ROLES = {
  speech: 'gw-speech-1',
  transcribe: 'gw-transcribe-1',
  'transcribe-newer': 'gw-transcribe-2',
  diarize: 'gw-transcribe-2-diarize',
} as const
export type Role = keyof typeof DEFAULT_ROLES | 'tts-1' | 'tts-1-hd'

function pick(models: NamedModels, capabilities: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(models).filter(([capability]) => capabilities.includes(capability)))
}

/** GATEWAY_MODELS (and GATEWAY_AUDIO_MODELS) are parsed and checked with the rest of the configuration (harness/setup/config.ts). */
function roles(): Record<string, string> {
  return { ...DEFAULT_ROLES, 'tts-1': 'tts-1', 'tts-1-hd': 'tts-1-hd', ...pick(runConfig().models, AUDIO_CAPABILITIES) }
}

export interface Pricing {
  input: number
  output: number
}

export interface ListedModel {
  id: string
  mode: unknown
  pricing: Pricing
  /** Part 1: "a model has min_tier"; a key of a lower tier may not use it (0 when the list does not say). */
  minTier: number
}

/** Used where a target lists a model without pricing: high, so an estimate errs on the safe side. */
const UNKNOWN_PRICE: Pricing = { input: 100, output: 100 }

export function audioModels(api: TargetClient) {
  const list = memo(async (): Promise<Map<string, ListedModel>> => {
    const ex = await api.get('/v1/models')
    const body = ex.json
    const items = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.data) ? body.data : []
    const out = new Map<string, ListedModel>()
    for (const item of items) {
      if (!isObject(item) || typeof item.id !== 'string') continue
      const p = isObject(item.pricing) ? item.pricing : {}
      const price = (v: unknown, fallback: number): number =>
        typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback
      out.set(item.id, {
        id: item.id,
        mode: item.mode,
        pricing: { input: price(p.input, UNKNOWN_PRICE.input), output: price(p.output, UNKNOWN_PRICE.output) },
        minTier: typeof item.min_tier === 'number' ? item.min_tier : 0,
      })
    }
    return out
  })

  /**
   * The main key's tier as the target reports it on a model's retrieve (Part 1 §2.3); undefined when it does not
   * say, and then no model is set aside for its min_tier (a refusal would show in the test itself).
   */
  const tier = memo(async (): Promise<number | undefined> => {
    const first = [...(await list()).keys()][0]
    return first === undefined ? undefined : reportedTier(api, first)
  })

  /** Why the role's model cannot be used with the main key, or undefined when it can. */
  async function unusable(role: Role): Promise<string | undefined> {
    const id = roles()[role] as string
    const listed = (await list()).get(id)
    if (!Object.hasOwn(runConfig().models, role) && listed === undefined) {
      const how = role === 'tts-1' || role === 'tts-1-hd' ? 'the reference names it' : howToName(role)
      return `the target's model list has no ${id} (${role}); ${how}`
    }
    // Part 1: "The tier sets rate limits and which models can be used (a model has min_tier)".
    const own = await tier()
    if (listed !== undefined && own !== undefined && listed.minTier > own)
      return `${id} (${role}) has min_tier ${listed.minTier}, above the main key's tier ${own}; give a main key of that tier`
    return undefined
  }

  /** The model of a role, or a skip naming the key that sets it (or the tier the main key lacks). */
  async function model(role: Role): Promise<string> {
    const why = await unusable(role)
    if (why !== undefined) skipTest(why)
    return roles()[role] as string
  }

  /** The model of a role, or undefined where model() would skip. */
  async function available(role: Role): Promise<string | undefined> {
    return (await unusable(role)) === undefined ? (roles()[role] as string) : undefined
  }

  /**
   * A model for a call without a valid key, which needs no usable model (its tier, its price): the role's model
   * when the user named it or the list has it, else a listed model of the mode; `known` is false when neither is
   * there and the role's default id is sent, which the target may refuse as unknown before it reads the key.
   */
  async function forKeylessCall(role: Role, mode: string): Promise<{ id: string; known: boolean }> {
    const id = roles()[role] as string
    const listed = await list()
    if (Object.hasOwn(runConfig().models, role) || listed.has(id)) return { id, known: true }
    const other = [...listed.values()].find((m) => m.mode === mode)
    return other === undefined ? { id, known: false } : { id: other.id, known: true }
  }

  async function pricing(id: string): Promise<Pricing> {
    return (await list()).get(id)?.pricing ?? UNKNOWN_PRICE
  }

  /** Every listed model of a mode that the main key's tier may use. */
  async function ofMode(mode: string): Promise<string[]> {
    const own = (await tier()) ?? Number.POSITIVE_INFINITY
    return [...(await list()).values()].filter((m) => m.mode === mode && m.minTier <= own).map((m) => m.id)
  }

  return { model, available, forKeylessCall, pricing, ofMode }
}

/**
 * Estimates, rounded up, from a model's advertised prices read per million units: characters or text tokens
 * in (there are never more tokens than characters), and audio at 50 tokens a second (above the 32 of §4.9) for
 * at most one second per five characters, slowed by speed. Transcription: audio in at 50 tokens a second and
 * ten text tokens a second out, plus 100.
 */
const ESTIMATE = {
  audioTokensPerSecond: 50,
  charsPerSecondAtLeast: 5,
  textTokensPerSecond: 10,
  textTokensFixed: 100,
} as const

const roundUp = (usd: number): number => Math.ceil(usd * 1e6) / 1e6

export function speechEstimateUsd(price: Pricing, chars: number, speed = 1): number {
  const seconds = Math.max(1, chars / ESTIMATE.charsPerSecondAtLeast) / Math.min(1, Math.max(0.25, speed))
  return roundUp((chars * price.input + seconds * ESTIMATE.audioTokensPerSecond * price.output) / 1e6)
}

export function transcriptionEstimateUsd(price: Pricing, seconds: number): number {
  const output = seconds * ESTIMATE.textTokensPerSecond + ESTIMATE.textTokensFixed
  return roundUp((Math.max(1, seconds) * ESTIMATE.audioTokensPerSecond * price.input + output * price.output) / 1e6)
}
