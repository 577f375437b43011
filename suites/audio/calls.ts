/**
 * The calls the audio suites make, each with its cost reserved first (harness/worker/suite.ts spend(): estimated from
 * the model's advertised prices): speech as JSON (Part 2 §4.2), transcription and translation as multipart forms
 * (§4.3, §4.4; harness/worker/multipart.ts). A call expected to be refused is reserved too: a target that wrongly serves
 * it also bills it.
 */
import { precondition } from '../../harness/worker/assert.ts'
import type { Exchange, RequestSpec, TargetClient } from '../../harness/worker/http-client.ts'
import { multipartBody, type FilePart } from '../../harness/worker/multipart.ts'
import { spend } from '../../harness/worker/suite.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { FORMAT_CHECKS, firstBytes, readWav, wavTone } from './fixtures.ts'
import { audioModels, speechEstimateUsd, transcriptionEstimateUsd } from './models.ts'

export const SHORT_INPUT = 'Hello from the gateway conformance suite.'
/** What the target is asked to say when the suite needs words to transcribe: two sentences, a few seconds. */
const SPOKEN = 'Good morning. The quick brown fox jumps over the lazy dog, and two colleagues read it aloud.'

export function audioCalls(api: TargetClient) {
  const models = audioModels(api)

  async function speech(
    body: Record<string, unknown>,
    options: { stream?: boolean; key?: RequestSpec['key'] } = {},
  ): Promise<Exchange> {
    const model = typeof body.model === 'string' ? body.model : 'tts-1'
    const chars = typeof body.input === 'string' ? [...body.input].length : 0
    const speed = typeof body.speed === 'number' ? body.speed : 1
    spend(speechEstimateUsd(await models.pricing(model), chars, speed), `speech: ${chars} characters on ${model}`)
    const spec = {
      method: 'POST',
      path: '/v1/audio/speech',
      json: body,
      headers: { accept: '*/*' },
      ...(options.key === undefined ? {} : { key: options.key }),
    }
    return options.stream ? api.stream(spec) : api.request(spec)
  }

  interface FormSpec {
    endpoint?: 'transcriptions' | 'translations'
    /** Fields besides the file, model first when given. */
    fields: Array<[string, string]>
    /** The file part; null sends none. Default: a 2 s WAV tone. */
    file?: FilePart | null
    /** Seconds of audio the file holds, for the estimate (default 2). */
    seconds?: number
    stream?: boolean
    timeoutMs?: number
    key?: RequestSpec['key']
  }

  async function form(spec: FormSpec): Promise<Exchange> {
    const endpoint = spec.endpoint ?? 'transcriptions'
    const file =
      spec.file === undefined
        ? { filename: 'tone-2s.wav', contentType: 'audio/wav', content: wavTone({ seconds: 2 }) }
        : spec.file
    const model = spec.fields.find(([name]) => name === 'model')?.[1] ?? 'gw-transcribe-1'
    const seconds = spec.seconds ?? 2
    spend(
      transcriptionEstimateUsd(await models.pricing(model), seconds),
      `${endpoint}: ${seconds} s of audio on ${model}`,
    )
    const body = multipartBody(spec.fields, file ?? undefined)
    const request = {
      method: 'POST',
      path: `/v1/audio/${endpoint}`,
      headers: { ...body.headers, accept: '*/*' },
      body: body.chunks,
      bodyNote: body.note,
      ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
      ...(spec.key === undefined ? {} : { key: spec.key }),
    }
    return spec.stream ? api.stream(request) : api.request(request)
  }

  /**
   * Speech the target made itself (/v1/audio/speech, tts-1, WAV) to transcribe or translate: a real model hears
   * no words in a tone and rightly answers an empty text. A 2 s tone when the target made none (P2-4.2-speech-models
   * reports that).
   */
  const spoken = memo(async (): Promise<{ file: FilePart; seconds: number }> => {
    const made = await speech({
      model: await models.model('tts-1'),
      input: SPOKEN,
      voice: 'alloy',
      response_format: 'wav',
    })
    const seconds = made.status === 200 ? readWav(made.bytes).seconds : 0
    if (seconds <= 0)
      return {
        file: { filename: 'tone-2s.wav', contentType: 'audio/wav', content: wavTone({ seconds: 2 }) },
        seconds: 2,
      }
    return { file: { filename: 'speech.wav', contentType: 'audio/wav', content: made.bytes }, seconds }
  })

  /**
   * Speech the target made (tts-1) in one of its formats, as a file of §4.3's formats under extension `ext` (mp3
   * also as .mpga and .mpeg, the names of MPEG audio): real files the project did not have to store. A skip where
   * the speech in that format is missing or not of it, naming the requirement that reports that.
   */
  const madeAudio = new Map<string, Promise<Exchange>>()
  async function madeFile(format: 'flac' | 'mp3' | 'opus', ext: string, contentType: string): Promise<FilePart> {
    let made = madeAudio.get(format)
    if (made === undefined) {
      made = models
        .model('tts-1')
        .then((model) => speech({ model, input: 'Hello from the suite.', voice: 'alloy', response_format: format }))
      madeAudio.set(format, made)
    }
    const ex = await made
    requireServed(ex, 'P2-4.2-speech-models', `speech in ${format}`)
    precondition(
      FORMAT_CHECKS[format]?.check(ex.bytes) === true,
      FORMAT_CHECKS[format]?.fixed ? 'P2-4.2-speech-formats' : 'P2-4.2-speech-format-containers',
      `speech in ${format} is not ${format} (${firstBytes(ex.bytes)})`,
    )
    return { filename: `speech.${ext}`, contentType, content: ex.bytes }
  }

  return { models, speech, form, spoken, madeFile }
}

/** The files of §4.3's formats made from the target's speech: format asked, extension, content type. */
export const MADE_FORMATS = [
  ['flac', 'flac', 'audio/flac'],
  ['mp3', 'mp3', 'audio/mpeg'],
  ['mp3', 'mpga', 'audio/mpeg'],
  ['mp3', 'mpeg', 'audio/mpeg'],
  ['opus', 'ogg', 'audio/ogg'],
] as const

/** A 2xx the test builds on: anything else skips it, naming the requirement that reports that answer. */
export function requireServed(ex: Exchange, requirementId: string, what: string): void {
  precondition(ex.status >= 200 && ex.status < 300, requirementId, `${what} answered ${ex.status}`)
}

/** A 404 from a route or model the test needs skips it: that absence is `missing.requirementId`'s to report. */
export function requirePresent(ex: Exchange, missing: { requirementId: string; what: string }): void {
  if (ex.status === 404) precondition(false, missing.requirementId, `${missing.what} answered 404`)
}

/** A missing translation route is P2-4.4-translation's to report, not every refusal test's. */
export const TRANSLATION_MISSING = { requirementId: 'P2-4.4-translation', what: 'POST /v1/audio/translations' }
