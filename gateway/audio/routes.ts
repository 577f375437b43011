/**
 * The audio endpoints (Part 2 §4.2 speech, §4.3 transcription, §4.4 translation, §6.1, §6.2, §8). The rules
 * live beside this file: speech.ts reads a speech request and makes real audio (WAV and PCM to the byte, the other
 * formats in their real containers), transcription.ts reads the multipart forms, transcript.ts renders the
 * answers, models.ts says what each model can do and what it costs; rules.ts holds the family's rules as values
 * (where the faults bend them) and choices.ts the choices real providers make.
 *
 * Where the reference is silent: speech answers the bytes with the format's media type; stream_format audio
 * sends the same bytes in chunks; stream_format sse (whose event shapes are not shown) sends
 * speech.audio.delta events carrying Base64 audio, then speech.audio.done with usage, the widely used
 * convention; a model of another mode is a 400 and an unknown one a 404, as on chat completions; every call is
 * charged when its work starts, that is after the request has been read and checked (Part 2 section 3).
 */
import fastifyMultipart from '@fastify/multipart'
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { abandonBody } from '../abandon-body.ts'
import { chargeUsd } from '../account/billing.ts'
import { requireCaller, type Caller, type RequestContext } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { AUDIO_ANSWER_RESHAPES, AUDIO_STREAM_RESHAPES, reshapeSpeech, type SpeechReshape } from './reshapes.ts'
import { reshapeEvents } from '../faults/events.ts'
import { objectBody, requireModelId, requireTier, resolveModel } from '../models/access.ts'
import { startSse, writeEvents } from '../sse.ts'
import type { GatewayState } from '../state.ts'
import { type AudioChoices, audioChoices } from './choices.ts'
import {
  audioTokens,
  BASE_TRANSCRIPTION_MODEL,
  speechCostUsd,
  speechModel,
  transcriptionCostUsd,
  transcriptionModel,
  type TranscriptionModel,
} from './models.ts'
import { type AudioRules, audioRules } from './rules.ts'
import { parseSpeechRequest, synthesize } from './speech.ts'
import {
  diarizedJson,
  outputTokens,
  srt,
  transcribe,
  transcriptEvents,
  verboseJson,
  vtt,
  type Transcript,
} from './transcript.ts'
import { type AudioFile, modelField, parseTranscription, parseTranslation, readAudioFile } from './transcription.ts'
import { checkForm } from '../request-validation.ts'
import { AUDIO_UPLOAD_UNCHECKED, type AudioForm, receiveAudioForm } from './upload.ts'
import type { Endpoint, Limit } from './limits.ts'

const AUDIO_CHUNK_BYTES = 16 * 1024 // stream_format audio and sse: the audio in pieces of this size

export function registerAudioRoutes(app: FastifyInstance, state: GatewayState): void {
  const audio = audioFamily(state)
  registerSpeechRoute(app, audio)
  // Multipart parsing only inside this scope, as for files: other routes keep refusing multipart bodies.
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart, { throwFileSizeLimit: true })
    reshapeAnswers(scope, state.faults, AUDIO_ANSWER_RESHAPES)
    registerUploadRoute(scope, audio, 'transcriptions', (call, reply) => transcription(audio, call, reply))
    if (audio.rules.translationRoute)
      registerUploadRoute(scope, audio, 'translations', (call, reply) => translation(audio, call, reply))
  })
}

/** What every audio route reads, made once when the routes are registered. */
interface AudioFamily {
  state: GatewayState
  rules: AudioRules
  choices: AudioChoices
  config: { auth: 'required' | 'optional' }
  reshapeSpeech: SpeechReshape
  callerOf(context: RequestContext): Caller
  uploadLimit(endpoint: Endpoint): Limit
}

function audioFamily(state: GatewayState): AudioFamily {
  const rules = audioRules(state.faults)
  const choices = audioChoices(state.variations)
  return {
    state,
    rules,
    choices,
    // Without the key rule, valid keys are identified as usual but no one is refused (§5.1 asks a key everywhere).
    config: { auth: rules.keyRequired ? 'required' : 'optional' },
    reshapeSpeech: reshapeSpeech(state.faults),
    callerOf: (context) =>
      !context.caller && !rules.keyRequired
        ? { account: state.accounts.main(), keyForm: 'bearer' }
        : requireCaller(context),
    uploadLimit: (endpoint) => {
      const upload = rules.uploads[endpoint]
      return { exclusive: upload.sizeExclusive, max: upload.checkSize ? choices.uploadMax : AUDIO_UPLOAD_UNCHECKED }
    },
  }
}

function registerSpeechRoute(app: FastifyInstance, audio: AudioFamily): void {
  const { state, rules, choices } = audio
  app.post('/v1/audio/speech', { config: audio.config }, async (request, reply) => {
    const context = state.contexts.of(request)
    const caller = audio.callerOf(context)
    const body = objectBody(request.body)
    const id = requireModelId(body)
    if (rules.missingSpeechModels.includes(id)) {
      context.model = id
      throw new GatewayError(404, `The model '${id}' does not exist.`, { code: 'model_not_found', param: 'model' })
    }
    requireTier(resolveModel(id, context, { modes: ['audio_speech'], endpoint: 'speech generation' }), caller)
    const model = speechModel(id)
    if (!model) throw invalidParameter('model', `The model '${id}' is not served by /v1/audio/speech.`)
    const speechRequest = parseSpeechRequest(choices.speech(id, body), model, rules)
    const speech = synthesize(speechRequest, choices.streamingWav)
    const bytes = audio.reshapeSpeech(speech.bytes, speechRequest, speech.seconds)
    const completion = model.pricedBy === 'tokens' ? speech.audioTokens : 0
    setTokens(context, speech.textTokens, completion)
    context.stream = speechRequest.stream !== undefined
    chargeUsd(caller.account, speechCostUsd(model, [...speechRequest.input].length, speech.textTokens, speech.seconds))

    if (speechRequest.stream === 'sse' && rules.speechSseEvents)
      return streamSpeech(reply, chunks(bytes), speech.textTokens, completion)
    reply.header('content-type', speech.contentType)
    if (speechRequest.stream !== undefined) return reply.send(Readable.from(chunks(bytes)))
    return reply.header('content-length', String(bytes.length)).send(bytes)
  })
}

/** stream_format sse: the audio as Base64 deltas, then done with usage. */
async function streamSpeech(
  reply: FastifyReply,
  pieces: Buffer[],
  input: number,
  output: number,
): Promise<FastifyReply> {
  const writer = startSse(reply)
  for (const piece of pieces)
    await writer.event('speech.audio.delta', { type: 'speech.audio.delta', audio: piece.toString('base64') })
  await writer.event('speech.audio.done', {
    type: 'speech.audio.done',
    usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
  })
  writer.end()
  return reply
}

/** A call to an upload route once its form is read: the caller, the form and a model of the right mode. */
interface Upload {
  context: RequestContext
  caller: Caller
  form: AudioForm
  model: TranscriptionModel
  file: () => AudioFile
}

/** An upload route: the form read within its limit, then `answer`; a refused upload's body is abandoned. */
function registerUploadRoute(
  scope: FastifyInstance,
  audio: AudioFamily,
  endpoint: Endpoint,
  answer: (call: Upload, reply: FastifyReply) => unknown,
): void {
  const upload = audio.rules.uploads[endpoint]
  scope.post(`/v1/audio/${endpoint}`, { config: audio.config }, async (request, reply) => {
    try {
      const context = audio.state.contexts.of(request)
      const caller = audio.callerOf(context)
      const form = await receiveAudioForm(request, audio.uploadLimit(endpoint))
      const model = audioModel(context, modelField(form, upload.defaultModel), endpoint)
      requireTier(resolveModel(model.id, context, { modes: ['audio_transcription'], endpoint }), caller)
      // Once the model is read, as the JSON routes' refusals count theirs (request-validation.ts).
      checkForm(audio.state, `POST /v1/audio/${endpoint}`, {
        ...Object.fromEntries(form.fields),
        ...Object.fromEntries(form.lists),
        ...(form.file ? { file: form.file.filename } : {}),
      })
      const file = () => audio.choices.file(() => readAudioFile(form, upload))
      return await answer({ context, caller, form, model, file }, reply)
    } catch (error) {
      abandonBody(request, reply)
      throw error
    }
  })
}

async function transcription(audio: AudioFamily, call: Upload, reply: FastifyReply): Promise<unknown> {
  const { state, rules, choices } = audio
  const { context, form, model } = call
  choices.form(form)
  const file = call.file()
  const request = parseTranscription(form, model.kind, file, rules, choices.lenient)
  const transcript = transcribe(file.seconds, request.speakers)
  const usage = charge(context, call.caller, model.id, file.seconds, transcript)
  if (request.stream) {
    context.stream = true
    const events = transcriptEvents(transcript, {
      diarized: model.kind === 'diarize',
      logprobs: request.logprobs,
      usage,
      integerSpeakers: choices.integerSpeakers,
    })
    const named = reshapeEvents(
      events.map((data) => ({ name: data.type, data })),
      state.faults,
      AUDIO_STREAM_RESHAPES,
    )
    if (choices.ndjsonTranscripts) {
      const lines = named.map(({ data }) => `${JSON.stringify(data)}\n`).join('')
      return reply.header('content-type', 'application/x-ndjson').send(lines)
    }
    const writer = startSse(reply)
    await writeEvents(writer, named)
    writer.end()
    return reply
  }
  return render(reply, request.format, transcript, {
    task: 'transcribe',
    language: request.language,
    granularities: request.granularities,
    usage,
    logprobs: request.logprobs,
    kind: model.kind,
    srtSeparator: rules.srtSeparator,
  })
}

function translation(audio: AudioFamily, call: Upload, reply: FastifyReply): unknown {
  const { context, form, model } = call
  if (!model.translation)
    throw invalidParameter(
      'model',
      `Translation takes the base transcription model (${BASE_TRANSCRIPTION_MODEL}); ${model.id} is not enabled for it.`,
    )
  const file = call.file()
  const { format } = parseTranslation(form, audio.rules)
  const transcript = transcribe(file.seconds)
  const usage = charge(context, call.caller, model.id, file.seconds, transcript)
  return render(reply, format, transcript, {
    task: 'translate',
    language: 'english',
    granularities: [],
    usage,
    logprobs: false,
    kind: 'base',
    srtSeparator: ',',
  })
}

/** The transcription model a form names: 404 when unknown, 400 when of another mode or not served here. */
function audioModel(context: RequestContext, id: string, endpoint: Endpoint): TranscriptionModel {
  const model = transcriptionModel(id)
  if (model) return model
  resolveModel(id, context, { modes: ['audio_transcription'], endpoint })
  throw invalidParameter('model', `The model '${id}' is not served by /v1/audio/${endpoint}.`)
}

function charge(
  context: RequestContext,
  caller: Caller,
  modelId: string,
  seconds: number,
  transcript: Transcript,
): Record<string, unknown> {
  const input = audioTokens(seconds)
  const output = outputTokens(transcript)
  setTokens(context, input, output)
  chargeUsd(caller.account, transcriptionCostUsd(modelId, seconds, output))
  return {
    type: 'tokens',
    input_tokens: input,
    input_token_details: { audio_tokens: input, text_tokens: 0 },
    output_tokens: output,
    total_tokens: input + output,
  }
}

interface RenderOptions {
  task: 'transcribe' | 'translate'
  language: string
  granularities: string[]
  usage: Record<string, unknown>
  logprobs: boolean
  kind: TranscriptionModel['kind']
  /** The comma of the reference, or what the rules make of it (rules.ts). */
  srtSeparator: ',' | '.'
}

function render(
  reply: FastifyReply,
  format: string,
  transcript: Transcript,
  options: RenderOptions,
): FastifyReply | Record<string, unknown> {
  switch (format) {
    case 'text':
      return reply.header('content-type', 'text/plain; charset=utf-8').send(`${transcript.text}\n`)
    case 'srt':
      return reply.header('content-type', 'text/plain; charset=utf-8').send(srt(transcript, options.srtSeparator))
    case 'vtt':
      return reply.header('content-type', 'text/vtt; charset=utf-8').send(vtt(transcript))
    case 'verbose_json':
      return verboseJson(transcript, options.task, options.language, options.granularities)
    case 'diarized_json':
      return diarizedJson(transcript, options.usage)
    default: {
      const logprobs = options.logprobs
        ? {
            logprobs: transcript.text
              .split(/(?<= )/)
              .map((token) => ({ token, logprob: -0.1, bytes: [...Buffer.from(token)] })),
          }
        : {}
      return { text: transcript.text, ...(options.kind === 'base' ? {} : { usage: options.usage }), ...logprobs }
    }
  }
}

function setTokens(context: RequestContext, prompt: number, completion: number): void {
  context.tokens = { total: prompt + completion, prompt, completion, reasoning: 0, cached: 0 }
}

function chunks(bytes: Buffer): Buffer[] {
  const out: Buffer[] = []
  for (let at = 0; at < bytes.length; at += AUDIO_CHUNK_BYTES) out.push(bytes.subarray(at, at + AUDIO_CHUNK_BYTES))
  return out
}
