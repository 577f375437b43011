/**
 * One source for the gateway and the checks: the reference gateway enforces every request schema through its
 * validator (gateway/request-validation.ts, tested beside it); where a family's reader still reads a stated edge or
 * list (a default, a clamp, a fault that moves an edge, a variation's leniency), it reads the schema's value, with no
 * fault on; and the constants the gateway and the suites used to write by hand are gone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { constraintsOf, requestSchemas, type SchemaNode } from '../../../common/request-schemas.ts'
import { accountRules } from '../../../gateway/account/rules.ts'
import { SPEECH_MODELS } from '../../../gateway/audio/models.ts'
import { audioRules } from '../../../gateway/audio/rules.ts'
import { ALL_FORMATS, SPEECH_FORMATS, SPEED, TEMPERATURE } from '../../../gateway/audio/limits.ts'
import { filesRules } from '../../../gateway/files/rules.ts'
import { FILE_PURPOSES } from '../../../gateway/files/store.ts'
import { NATIVE_TEMPERATURE, ROLES, THINKING_LEVELS } from '../../../gateway/native/limits.ts'
import { nativeRules } from '../../../gateway/native/rules.ts'
import { responseRules } from '../../../gateway/responses/rules.ts'
import { RESPONSE_EDGES } from '../../../gateway/responses/limits.ts'
import { CATEGORIES, DEVICES, SEARCH_EDGES, SYSTEMS } from '../../../gateway/search/limits.ts'
import { searchRules } from '../../../gateway/search/rules.ts'
import { ENCODINGS, RATES } from '../../../gateway/synthesize/routes.ts'
import { METADATA_EDGES } from '../../../gateway/unavailable/planned.ts'
import { VIDEO_MODELS } from '../../../gateway/videos/request.ts'
import { videoRules } from '../../../gateway/videos/rules.ts'
import videoLimits from '../../../schemas/limits/video-limits.json' with { type: 'json' }

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const NONE = new Set<never>()

type Value = number | readonly unknown[]

/** What the gateway enforces, keyed `route | location field | keyword`, each read as the gateway reads it. */
function enforced(): Map<string, Value> {
  const responses = responseRules(NONE)
  const account = accountRules(NONE)
  const files = filesRules(NONE)
  const search = searchRules(NONE)
  const audio = audioRules(NONE)
  const native = nativeRules(NONE)
  const videos = videoRules(NONE)
  const out = new Map<string, Value>()
  const put = (route: string, field: string, keyword: string, value: Value): void => {
    out.set(`${route} | ${field} | ${keyword}`, value)
  }
  const create = 'POST /v1/responses'
  put(create, 'body temperature', 'minimum', RESPONSE_EDGES.temperature.min)
  put(create, 'body temperature', 'maximum', responses.temperatureMax)
  put(create, 'body top_logprobs', 'minimum', RESPONSE_EDGES.topLogprobs.min)
  put(create, 'body top_logprobs', 'maximum', responses.topLogprobsMax)
  put(create, 'body safety_identifier', 'maxLength', responses.safetyIdentifierMaxChars)
  put(create, 'body metadata', 'maxProperties', responses.metadataMaxPairs)
  put(create, 'body metadata', 'propertyNames.maxLength', RESPONSE_EDGES.metadataKeyChars)
  put(create, 'body metadata', 'additionalProperties.maxLength', RESPONSE_EDGES.metadataValueChars)

  const transactions = 'GET /user/v1/transactions'
  for (const [field, range] of [
    ['hours_ago', account.hoursAgo],
    ['page', account.page],
    ['page_size', account.pageSize],
  ] as const) {
    put(transactions, `query ${field}`, 'minimum', range.min)
    put(transactions, `query ${field}`, 'maximum', range.max)
  }

  put('GET /v1/files', 'query limit', 'minimum', files.listLimit.min)
  put('GET /v1/files', 'query limit', 'maximum', files.listLimit.max)
  put('POST /v1/files', 'body purpose', 'enum', files.purposes)

  for (const route of ['POST /v1/search', 'POST /v1/search/{search_tool_name}']) {
    put(route, 'body max_results', 'minimum', SEARCH_EDGES.maxResults.min)
    put(route, 'body max_results', 'maximum', search.maxResults)
    put(route, 'body search_domain_filter', 'maxItems', search.maxDomains)
    put(route, 'body depth', 'maximum', search.maxDepth)
    put(route, 'body device', 'enum', DEVICES)
    put(route, 'body os', 'enum', SYSTEMS)
    put(route, 'body categories[].type', 'enum', CATEGORIES)
    put(route, 'body processor', 'enum', search.processorValues)
  }
  put('POST /v1/search', 'body  (allOf 0) (then).tbs', 'enum', search.tbsValues)

  const speech = 'POST /v1/audio/speech'
  put(speech, 'body speed', 'minimum', SPEED.min)
  put(speech, 'body speed', 'maximum', audio.speechSpeedMax)
  put(speech, 'body response_format', 'enum', SPEECH_FORMATS)
  put(speech, 'body  (allOf 0) (then).input', 'maxLength', SPEECH_MODELS['tts-1']?.maxInputChars ?? Number.NaN)
  const transcription = 'POST /v1/audio/transcriptions'
  put(transcription, 'body temperature', 'minimum', TEMPERATURE.min)
  put(transcription, 'body temperature', 'maximum', audio.temperatureMax)
  put(transcription, 'body response_format', 'enum', ALL_FORMATS)
  put(transcription, 'body known_speaker_names[]', 'maxItems', audio.knownSpeakersMax)
  put(transcription, 'body known_speaker_references[]', 'maxItems', audio.knownSpeakersMax)

  for (const route of [
    'POST /v1beta/models/{model}:generateContent',
    'POST /v1beta/models/{model}:streamGenerateContent',
  ]) {
    put(route, 'body generationConfig.temperature', 'minimum', NATIVE_TEMPERATURE.min)
    put(route, 'body generationConfig.temperature', 'maximum', native.temperatureMax)
    put(
      route,
      'body generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
      'maxItems',
      native.maxSpeakers,
    )
    put(route, 'body contents[].role', 'enum', [...ROLES])
    put(route, 'body generationConfig.thinkingConfig.thinkingLevel', 'enum', [...THINKING_LEVELS])
  }

  const synthesize = 'POST /v1/text:synthesize'
  put(synthesize, 'body audioConfig.audioEncoding', 'enum', ENCODINGS)
  put(synthesize, 'body audioConfig (allOf 0) (then).sampleRateHertz', 'enum', RATES.LINEAR16 ?? [])
  put(synthesize, 'body audioConfig (allOf 1) (then).sampleRateHertz', 'const', RATES.MULAW ?? [])

  put('POST /v1/videos', 'body prompt', 'maxLength', videos.promptMaxChars)
  put('POST /v1/videos', 'body safety_identifier', 'maxLength', videos.safetyIdentifierMaxChars)
  put('POST /v1/videos', 'body model', 'enum', VIDEO_MODELS)
  return out
}

const NUMERIC = ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'maxProperties'] as const

/** Every numeric edge and every list of every request schema, keyed as `enforced` keys them. */
function stated(): Map<string, Value> {
  const out = new Map<string, Value>()
  for (const schema of requestSchemas())
    for (const c of constraintsOf(schema)) {
      if (c.keywords.includes('required')) continue
      const node: SchemaNode = c.node
      const at = `${c.route} | ${c.location} ${c.field}`
      for (const keyword of NUMERIC) if (typeof node[keyword] === 'number') out.set(`${at} | ${keyword}`, node[keyword])
      const values = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined
      if (typeof node.propertyNames?.maxLength === 'number')
        out.set(`${at} | propertyNames.maxLength`, node.propertyNames.maxLength)
      if (typeof values?.maxLength === 'number') out.set(`${at} | additionalProperties.maxLength`, values.maxLength)
      if (node.enum) out.set(`${at} | enum`, node.enum)
      if (node.const !== undefined) out.set(`${at} | const`, [node.const])
      if (node.items?.enum) out.set(`${at} | items.enum`, node.items.enum)
    }
  return out
}

const sorted = (list: readonly unknown[]): unknown[] => [...list].map(String).sort()

describe('one source: the request schemas and the reference gateway', () => {
  const gateway = enforced()
  const schemas = stated()

  it("every stated edge and list a reader reads is the schema's value", () => {
    for (const [key, theirs] of gateway) {
      const value = schemas.get(key)
      if (value === undefined) continue // the next test names it
      if (typeof value === 'number') expect(theirs, key).toBe(value)
      else expect(sorted(theirs as readonly unknown[]), key).toEqual(sorted(value as readonly unknown[]))
    }
  })

  it('every value the gateway reads names a constraint some request schema states', () => {
    expect([...gateway.keys()].filter((key) => !schemas.has(key))).toEqual([])
  })

  it('the planned surfaces hold metadata to the same §8.5 edges', () => {
    expect(METADATA_EDGES).toEqual({
      pairs: RESPONSE_EDGES.metadataPairs,
      keyChars: RESPONSE_EDGES.metadataKeyChars,
      valueChars: RESPONSE_EDGES.metadataValueChars,
    })
  })

  it('the store knows every listed purpose, the ones no fault refuses included', () => {
    expect(FILE_PURPOSES).toEqual(schemas.get('POST /v1/files | body purpose | enum'))
  })

  it('the video limit table agrees with the videos request schema where both state a limit', () => {
    const videos = videoRules(NONE)
    expect(videoLimits.promptMaxChars).toBe(videos.promptMaxChars)
    expect(videoLimits.safetyIdentifierMaxChars).toBe(videos.safetyIdentifierMaxChars)
  })
})

/** Declarations the schemas replaced: a hand-written copy of a stated edge or list, in gateway or suite code. */
const REMOVED: ReadonlyArray<[string, RegExp]> = [
  ['RESPONSE_LIMITS', /\bRESPONSE_LIMITS\b/],
  ['INCLUDE_VALUES', /\bINCLUDE_VALUES\b/],
  ['METADATA_LIMITS', /\bMETADATA_LIMITS\b/],
  ['SEARCH_LIMITS', /\bSEARCH_LIMITS\b/],
  ['TBS_VALUES', /\bTBS_VALUES\b/],
  ['PROCESSORS', /\bPROCESSORS\s*=\s*\[/],
  ['TEMPERATURE_MAX', /\bTEMPERATURE_MAX\b/],
  ['MAX_SPEAKERS', /\bMAX_SPEAKERS\b/],
  ['a written purpose list', /PURPOSES\s*=\s*\[/],
  ['a written speech format list', /SPEECH_FORMATS\s*=\s*\[/],
  ['a written transcription format list', /ALL_FORMATS\s*=\s*\[/],
  ['a written encoding list', /ENCODINGS\s*=\s*\[/],
  ['a written speed range', /SPEED\s*=\s*\{\s*min:\s*[\d.]/],
  ['a written temperature range', /TEMPERATURE\s*=\s*\{\s*min:\s*\d/],
  ['a written speech input limit', /(COMPATIBLE_INPUT|MAX_INPUT)\s*=\s*\d/],
  ['a written files list limit', /MAX_LIMIT\s*=\s*\d/],
  ['written search lists', /\b(TBS|DEVICES|SYSTEMS)\s*=\s*\[|CATEGORIES\s*=\s*\['github'/],
  ['written transaction edges', /\{\s*(hours_ago|page|page_size):\s*(720|10_?000|1_?000)\s*\}/],
]

function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) {
      if (name !== 'generated' && name !== 'node_modules') out.push(...sources(path))
    } else if (name.endsWith('.ts')) out.push(path)
  }
  return out
}

describe('one source: no hand-written copies left', () => {
  it('no gateway or suite file declares a removed constant', () => {
    const found: string[] = []
    for (const file of [...sources(join(ROOT, 'gateway')), ...sources(join(ROOT, 'suites'))]) {
      const text = readFileSync(file, 'utf8')
      for (const [what, pattern] of REMOVED) if (pattern.test(text)) found.push(`${relative(ROOT, file)}: ${what}`)
    }
    expect(found).toEqual([])
  })
})
