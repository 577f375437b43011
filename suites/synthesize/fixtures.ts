/**
 * What the speech-synthesis suites share (Part 2 §4.9): the models that serve POST /v1/text:synthesize, found
 * at run time, request bodies, and cost estimates from the prices §4.9 states.
 *
 * The reference names the two models only as placeholders (<tts_flash_model>, <tts_pro_model>): the target's
 * names for them come from GATEWAY_NAMES, or else from the prices §4.9 states for each (a listed model priced so,
 * whatever its mode); the usable audio_speech models of GET /v1/models are tried too, with a tiny request, and
 * those that answer 2xx serve the other checks.
 */
import { precondition } from '../../harness/worker/assert.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient, RequestSpec } from '../../harness/worker/http-client.ts'
import { currentRequirement, observe, skipTest } from '../../harness/worker/recorder.ts'
import { spend } from '../../harness/worker/suite.ts'
import { nativeModels, type ListedModel } from '../native/fixtures.ts'
import { howToName, namedModel } from '../shared/named-models.ts'
import { howToNameId, isNamed, targetName } from '../shared/names.ts'
import { valuesOf, valuesWhen } from '../../common/request-schemas.ts'

const SYNTHESIZE = 'POST /v1/text:synthesize'

export const SYNTHESIZE_PATH = '/v1/text:synthesize'
/** The encodings the checks know the audio of; those asked are the ones the request schema lists (section 4.9). */
export type Encoding = 'MP3' | 'LINEAR16' | 'OGG_OPUS' | 'MULAW' | 'ALAW'
export const ENCODINGS: readonly Encoding[] = valuesOf<Encoding>(SYNTHESIZE, 'body', 'audioConfig.audioEncoding')
/** The rates the request schema lists for an encoding; undefined where the rate is automatic. */
export function listedRates(encoding: Encoding): readonly number[] | undefined {
  return valuesWhen<number>(SYNTHESIZE, 'body', 'audioConfig.sampleRateHertz', { audioEncoding: encoding })
}
const SHORT_TEXT = 'Hello from the conformance suite.'

/** §4.9 prices per million tokens; the pro model's (the higher) for every estimate, since which is which is not known. */
const PRICE = { input: 1.0, output: 20.0 }
const AUDIO_TOKENS_PER_SECOND = 32
const CHARS_PER_SECOND = 15 // a typical speaking rate (about 150 words a minute); one second more is added
const MAX_PROBES = 8

function synthesisCostUsd(text: string): number {
  const seconds = [...text].length / CHARS_PER_SECOND + 1
  const usd =
    (Buffer.byteLength(text, 'utf8') * PRICE.input + seconds * AUDIO_TOKENS_PER_SECOND * PRICE.output) / 1_000_000
  return Math.ceil(usd * 1_000_000) / 1_000_000
}

interface SynthesisOptions {
  text?: string
  encoding?: string
  rate?: number
  model?: string
}

export function synthesisBody(options: SynthesisOptions & { model: string }): Record<string, unknown> {
  return {
    input: { text: options.text ?? SHORT_TEXT },
    voice: { languageCode: 'en-US', name: 'Kore', model_name: options.model },
    audioConfig: {
      audioEncoding: options.encoding ?? 'LINEAR16',
      ...(options.rate === undefined ? {} : { sampleRateHertz: options.rate }),
    },
  }
}

/**
 * POST /v1/text:synthesize, estimated first. A 401 to the main key as Bearer skips the running test:
 * P2-5.3-bearer-only reports that refusal once.
 */
export async function synthesize(
  api: TargetClient,
  body: Record<string, unknown>,
  spec: Omit<RequestSpec, 'path' | 'method' | 'json'> = {},
): Promise<Exchange> {
  const input = body.input as { text?: unknown } | undefined
  spend(synthesisCostUsd(typeof input?.text === 'string' ? input.text : ''), 'text:synthesize')
  const ex = await api.post(SYNTHESIZE_PATH, body, spec)
  if (
    ex.status === 401 &&
    ex.excerpt.auth === 'bearer' &&
    ex.excerpt.key === 'main' &&
    currentRequirement() !== 'P2-5.3-bearer-only'
  ) {
    precondition(
      false,
      'P2-5.3-bearer-only',
      `${ex.excerpt.method} ${ex.excerpt.path} refused the main key as Bearer with 401`,
    )
  }
  return ex
}

/** The two models §4.9 names with placeholders; GATEWAY_NAMES gives the target's names for them. */
export const REFERENCE_MODELS = ['<tts_flash_model>', '<tts_pro_model>'] as const

/** §4.9: "flash model input 0.50, cached input 0.25, audio output 10.00; pro model input 1.00, cached input 0.50, output 20.00". */
const STATED_PRICES: Record<
  (typeof REFERENCE_MODELS)[number],
  Pick<ListedModel, 'input' | 'cachedInput' | 'output'>
> = {
  '<tts_flash_model>': { input: 0.5, cachedInput: 0.25, output: 10 },
  '<tts_pro_model>': { input: 1, cachedInput: 0.5, output: 20 },
}

/** The target's id for a reference model: the one GATEWAY_NAMES gives, else the one listed at its stated prices. */
function referenceId(reference: (typeof REFERENCE_MODELS)[number], listed: ListedModel[]): Identified | undefined {
  if (isNamed(reference)) return { reference, id: targetName(reference), by: 'GATEWAY_NAMES' }
  const price = STATED_PRICES[reference]
  const found = listed.find(
    (m) => m.input === price.input && m.cachedInput === price.cachedInput && m.output === price.output,
  )
  return found === undefined ? undefined : { reference, id: found.id, by: 'the prices §4.9 states' }
}

interface Identified {
  reference: string
  id: string
  by: string
}

interface SynthesisModels {
  /** Every usable model that answered text:synthesize, cheapest first; skips the test when there is none. */
  all: () => Promise<ListedModel[]>
  /** The cheapest of them. */
  first: () => Promise<ListedModel>
  /** The reference models named by GATEWAY_NAMES or found by their prices, each with the answer of its first try. */
  named: () => Promise<Array<Identified & { ex: Exchange }>>
}

function stub(id: string): ListedModel {
  return { id, mode: 'audio_speech', ownedBy: '', minTier: 0, input: 0, cachedInput: 0, output: 0 }
}

export function synthesisModels(api: TargetClient): SynthesisModels {
  const found = memo(async () => {
    const usable = await nativeModels(api).usable()
    // The reference's models first (GATEWAY_NAMES, or their stated prices), then GATEWAY_MODELS synthesis=.
    const identified = REFERENCE_MODELS.flatMap((reference) => referenceId(reference, usable) ?? [])
    const namedIds = [
      ...identified.map((m) => m.id),
      ...[namedModel('synthesis')].filter((id): id is string => id !== undefined),
    ].filter((id, i, all) => all.indexOf(id) === i)
    const first = namedIds.map((id) => usable.find((m) => m.id === id) ?? stub(id))
    const candidates = [
      ...first,
      ...usable.filter((m) => !namedIds.includes(m.id) && m.mode === 'audio_speech').slice(0, MAX_PROBES),
    ]
    const serving: ListedModel[] = []
    const tried = new Map<string, Exchange>()
    for (const model of candidates) {
      const ex = await synthesize(api, synthesisBody({ model: model.id }))
      tried.set(model.id, ex)
      if (ex.status >= 200 && ex.status < 300) serving.push(model)
    }
    observe(
      'text:synthesize models',
      serving.length === 0 ? `none of ${candidates.map((m) => m.id).join(', ')}` : serving.map((m) => m.id).join(', '),
    )
    return { serving, tried, identified }
  })
  const all = async (): Promise<ListedModel[]> => {
    const { serving, tried } = await found()
    const how = `${howToNameId(REFERENCE_MODELS[0])}, or ${howToName('synthesis')}`
    // No call made is no capability judged absent: the list only failed to point at a model.
    if (tried.size === 0)
      skipTest(
        `GET /v1/models gives no model of mode audio_speech, nor one at the prices §4.9 states, that this key may use, so no synthesis model could be found; ${how}`,
      )
    if (serving.length === 0)
      skipTest(`capability absent: none of ${[...tried.keys()].join(', ')} answers POST /v1/text:synthesize; ${how}`)
    return serving
  }
  const named = async () => {
    const { tried, identified } = await found()
    return identified.map((m) => ({ ...m, ex: tried.get(m.id) as Exchange }))
  }
  return { all, first: async () => (await all())[0] as ListedModel, named }
}
