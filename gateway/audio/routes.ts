/**
 * The audio endpoints (Part 2 §4.2 speech, §4.3 transcription, §4.4 translation, §6.1, §6.2, §8). The rules
 * live beside this file: speech.ts reads a speech request and makes real audio (WAV and PCM to the byte, the other
 * formats in their real containers), transcription.ts reads the multipart forms, transcript.ts renders the
 * answers, models.ts says what each model can do and what it costs.
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
import { chargeUsd } from '../account/billing.ts'
import { requireCaller, type Caller, type RequestContext } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { objectBody, requireModelId, requireTier, resolveModel } from '../models/access.ts'
import { startSse, writeEvents, type StreamEvent } from '../sse.ts'
import { reshapeEvents } from '../faults/events.ts'
import { AUDIO_STREAM_RESHAPES } from '../faults/audio.ts'
import type { GatewayState } from '../state.ts'
import {
  audioTokens,
  speechCostUsd,
  speechModel,
  transcriptionCostUsd,
  transcriptionModel,
  type TranscriptionModel,
} from './models.ts'
import { parseSpeechRequest, SPEECH_FORMATS, synthesize } from './speech.ts'
import { diarizedJson, outputTokens, srt, transcribe, verboseJson, vtt, type Transcript } from './transcript.ts'
import {
  ALL_FORMATS,
  type AudioFile,
  modelField,
  parseTranscription,
  parseTranslation,
  readAudioFile,
  type TranscriptionRequest,
} from './transcription.ts'
import {
  AUDIO_UPLOAD_MAX_BYTES,
  AUDIO_UPLOAD_MAX_MIB,
  AUDIO_UPLOAD_UNCHECKED,
  type AudioForm,
  receiveAudioForm,
} from './upload.ts'
import { abandonBody } from '../abandon-body.ts'

const BASE_TRANSCRIPTION_MODEL = 'gw-transcribe-1'
const AUDIO_CHUNK_BYTES = 16 * 1024 // stream_format audio and sse: the audio in pieces of this size

export function registerAudioRoutes(app: FastifyInstance, state: GatewayState): void {
  const { faults, variations } = state
  // The choices real providers make where §4.2 and §4.3 leave them open (gateway/variations.ts).
  const lenient = variations.has('lenient-audio-fields')
  const streamingWav = variations.has('streaming-wav')
  const uploadMax = variations.has('audio-upload-mib') ? AUDIO_UPLOAD_MAX_MIB : AUDIO_UPLOAD_MAX_BYTES
  const integerSpeakers = variations.has('diarize-integer-speakers')

  /**
   * The other real choices of speech and transcription requests, in one place: an enum parser that answers an
   * unknown value with the default (lenient-enums), voices per model (speech-voices-per-model), and a file in no
   * audio format refused as an unsupported media type (audio-file-415).
   */
  function speechAsChosen(id: string, body: Record<string, unknown>): Record<string, unknown> {
    if (variations.has('speech-voices-per-model') && typeof body.voice === 'string') {
      const older = id === 'tts-1' || id === 'tts-1-hd'
      const refused = older ? ['ballad', 'verse', 'marin', 'cedar'] : id === 'gw-speech-1' ? ['fable', 'onyx'] : []
      if (refused.includes(body.voice)) throw invalidParameter('voice', `${id} does not offer voice '${body.voice}'.`)
    }
    if (!variations.has('lenient-enums')) return body
    const out = { ...body }
    if (typeof out.response_format === 'string' && !(SPEECH_FORMATS as readonly string[]).includes(out.response_format))
      delete out.response_format
    if (out.stream_format !== undefined && out.stream_format !== 'audio' && out.stream_format !== 'sse')
      delete out.stream_format
    return out
  }
  function formAsChosen(form: AudioForm): void {
    const format = form.fields.get('response_format')
    if (variations.has('lenient-enums') && format !== undefined && !ALL_FORMATS.includes(format))
      form.fields.delete('response_format')
  }
  function fileAsChosen(read: () => AudioFile): AudioFile {
    try {
      return read()
    } catch (error) {
      const unsupported = error instanceof GatewayError && error.message.startsWith('Unsupported file')
      if (variations.has('audio-file-415') && unsupported) throw new GatewayError(415, error.message, { param: 'file' })
      throw error
    }
  }
  // The fault identifies valid keys as usual but refuses no one (Part 2 §5.1 asks a key of every endpoint).
  const config = { auth: faults.has('audio-missing-key-allowed') ? ('optional' as const) : ('required' as const) }
  const callerOf = (context: RequestContext): Caller =>
    !context.caller && faults.has('audio-missing-key-allowed')
      ? { account: state.accounts.main(), keyForm: 'bearer' }
      : requireCaller(context)
  const limitOf = (fault: 'transcription' | 'translation') => ({
    exclusive: faults.has(`${fault}-size-exclusive`),
    max: faults.has(`${fault}-size-unchecked`) ? AUDIO_UPLOAD_UNCHECKED : uploadMax,
  })

  app.post('/v1/audio/speech', { config }, async (request, reply) => {
    const context = state.contexts.of(request)
    const caller = callerOf(context)
    const body = objectBody(request.body)
    const id = requireModelId(body)
    if (id === 'tts-1-hd' && faults.has('speech-tts-1-hd-unknown')) {
      context.model = id
      throw new GatewayError(404, `The model '${id}' does not exist.`, { code: 'model_not_found', param: 'model' })
    }
    requireTier(resolveModel(id, context, { modes: ['audio_speech'], endpoint: 'speech generation' }), caller)
    const model = speechModel(id)
    if (!model) throw invalidParameter('model', `The model '${id}' is not served by /v1/audio/speech.`)
    const speechRequest = parseSpeechRequest(speechAsChosen(id, body), model, faults, lenient)
    const speech = synthesize(speechRequest, faults, streamingWav)
    const completion = model.pricedBy === 'tokens' ? speech.audioTokens : 0
    setTokens(context, speech.textTokens, completion)
    context.stream = speechRequest.stream !== undefined
    chargeUsd(caller.account, speechCostUsd(model, [...speechRequest.input].length, speech.textTokens, speech.seconds))

    const pieces = chunks(speech.bytes)
    if (speechRequest.stream === 'sse' && !faults.has('speech-sse-as-audio')) {
      const writer = startSse(reply)
      for (const piece of pieces)
        await writer.event('speech.audio.delta', { type: 'speech.audio.delta', audio: piece.toString('base64') })
      await writer.event('speech.audio.done', {
        type: 'speech.audio.done',
        usage: {
          input_tokens: speech.textTokens,
          output_tokens: completion,
          total_tokens: speech.textTokens + completion,
        },
      })
      writer.end()
      return reply
    }
    reply.header('content-type', speech.contentType)
    if (speechRequest.stream !== undefined) return reply.send(Readable.from(pieces))
    return reply.header('content-length', String(speech.bytes.length)).send(speech.bytes)
  })

  // Multipart parsing only inside this scope, as for files: other routes keep refusing multipart bodies.
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart, { throwFileSizeLimit: true })

    scope.post('/v1/audio/transcriptions', { config }, async (request, reply) => {
      try {
        const context = state.contexts.of(request)
        const caller = callerOf(context)
        const form = await receiveAudioForm(request, limitOf('transcription'))
        const model = audioModel(
          context,
          modelField(form, faults.has('transcription-model-optional') ? BASE_TRANSCRIPTION_MODEL : undefined),
          'transcriptions',
        )
        requireTier(
          resolveModel(model.id, context, { modes: ['audio_transcription'], endpoint: 'transcriptions' }),
          caller,
        )
        formAsChosen(form)
        const file = fileAsChosen(() => readAudioFile(form, 'transcriptions', faults))
        const transcription = parseTranscription(form, model.kind, file, faults, lenient)
        const transcript = transcribe(file.seconds, transcription.speakers)
        const usage = charge(context, model.id, file.seconds, transcript)
        if (transcription.stream) return await streamTranscript(reply, model, transcription, transcript, usage, context)
        return render(reply, transcription.format, transcript, {
          task: 'transcribe',
          language: transcription.language,
          granularities: transcription.granularities,
          usage,
          logprobs: transcription.logprobs,
          kind: model.kind,
          srtSeparator: srtSeparator(),
        })
      } catch (error) {
        abandonBody(request, reply)
        throw error
      }
    })

    if (faults.has('translation-route-missing')) return
    scope.post('/v1/audio/translations', { config }, async (request, reply) => {
      try {
        const context = state.contexts.of(request)
        const caller = callerOf(context)
        const form = await receiveAudioForm(request, limitOf('translation'))
        const model = audioModel(
          context,
          modelField(form, faults.has('translation-model-optional') ? BASE_TRANSCRIPTION_MODEL : undefined),
          'translations',
        )
        requireTier(
          resolveModel(model.id, context, { modes: ['audio_transcription'], endpoint: 'translations' }),
          caller,
        )
        if (!model.translation)
          throw invalidParameter(
            'model',
            `Translation takes the base transcription model (${BASE_TRANSCRIPTION_MODEL}); ${model.id} is not enabled for it.`,
          )
        const file = fileAsChosen(() => readAudioFile(form, 'translations', faults))
        const { format } = parseTranslation(form, faults)
        const transcript = transcribe(file.seconds)
        const usage = charge(context, model.id, file.seconds, transcript)
        return render(reply, format, transcript, {
          task: 'translate',
          language: 'english',
          granularities: [],
          usage,
          logprobs: false,
          kind: 'base',
          srtSeparator: ',',
        })
      } catch (error) {
        abandonBody(request, reply)
        throw error
      }
    })
  })

  const srtSeparator = (): ',' | '.' => (faults.has('transcription-srt-dot-millis') ? '.' : ',')

  /** The transcription model a form names: 404 when unknown, 400 when of another mode or not served here. */
  function audioModel(context: RequestContext, id: string, endpoint: string): TranscriptionModel {
    const model = transcriptionModel(id)
    if (model) return model
    resolveModel(id, context, { modes: ['audio_transcription'], endpoint })
    throw invalidParameter('model', `The model '${id}' is not served by /v1/audio/${endpoint}.`)
  }

  function charge(
    context: RequestContext,
    modelId: string,
    seconds: number,
    transcript: Transcript,
  ): Record<string, unknown> {
    const input = audioTokens(seconds)
    const output = outputTokens(transcript)
    setTokens(context, input, output)
    chargeUsd(callerOf(context).account, transcriptionCostUsd(modelId, seconds, output))
    return {
      type: 'tokens',
      input_tokens: input,
      input_token_details: { audio_tokens: input, text_tokens: 0 },
      output_tokens: output,
      total_tokens: input + output,
    }
  }

  async function streamTranscript(
    reply: FastifyReply,
    model: TranscriptionModel,
    request: TranscriptionRequest,
    transcript: Transcript,
    usage: Record<string, unknown>,
    context: RequestContext,
  ): Promise<FastifyReply> {
    context.stream = true
    const diarized = model.kind === 'diarize'
    const events: StreamEvent[] = []
    const emit = (data: Record<string, unknown> & { type: string }) => events.push({ name: data.type, data })
    for (const segment of transcript.segments) {
      const words = segment.text.split(/(?<= )/)
      const prefix = segment.id === 0 ? '' : ' '
      for (const [i, word] of words.entries()) {
        const delta = i === 0 ? prefix + word : word
        emit({
          type: 'transcript.text.delta',
          delta,
          ...(diarized ? { segment_id: integerSpeakers ? segment.id : `seg_${segment.id}` } : {}),
          ...(request.logprobs ? { logprobs: [{ token: delta, logprob: -0.1, bytes: [...Buffer.from(delta)] }] } : {}),
        })
      }
      if (diarized) {
        emit({
          type: 'transcript.text.segment',
          id: integerSpeakers ? segment.id : `seg_${segment.id}`,
          start: segment.start,
          end: segment.end,
          text: segment.text,
          // Variation diarize-integer-speakers: speakers numbered, as some diarizers stream them.
          speaker: integerSpeakers ? speakerNumber(segment.speaker) : segment.speaker,
        })
      }
    }
    emit({ type: 'transcript.text.done', text: transcript.text, usage })
    const writer = startSse(reply)
    await writeEvents(writer, reshapeEvents(events, faults, AUDIO_STREAM_RESHAPES))
    writer.end()
    return reply
  }
}

interface RenderOptions {
  task: 'transcribe' | 'translate'
  language: string
  granularities: string[]
  usage: Record<string, unknown>
  logprobs: boolean
  kind: TranscriptionModel['kind']
  /** Fault transcription-srt-dot-millis bends it to a full stop. */
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

const speakerNumbers = new Map<string, number>()
function speakerNumber(name: string): number {
  if (!speakerNumbers.has(name)) speakerNumbers.set(name, speakerNumbers.size)
  return speakerNumbers.get(name) as number
}

function setTokens(context: RequestContext, prompt: number, completion: number): void {
  context.tokens = { total: prompt + completion, prompt, completion, reasoning: 0, cached: 0 }
}

function chunks(bytes: Buffer): Buffer[] {
  const out: Buffer[] = []
  for (let at = 0; at < bytes.length; at += AUDIO_CHUNK_BYTES) out.push(bytes.subarray(at, at + AUDIO_CHUNK_BYTES))
  return out
}
