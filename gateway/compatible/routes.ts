/**
 * The other compatible endpoints (Part 1 section 4.8): images (generation and editing), embeddings, legacy
 * completions and messages. The reference names them but shows no shapes, so each is a plausible minimal
 * version of the widely used convention; messages follows the other widely used convention (content blocks,
 * stop_reason). What the reference does state holds here as everywhere: a key is required (section 5.1),
 * the shared headers come from the hooks, bodies are JSON (Conventions) and an invalid request is 400
 * (section 7); an unknown model is 404 and a model above the caller's tier 403, as on chat completions.
 *
 * Where the reference is silent: errors keep the compatible shape (also on /v1/messages, whose own convention
 * differs); /v1/messages also accepts the key in x-api-key, the header its convention sends; image edits
 * take JSON with the image as a stored file id of the caller (section 4.4 lists the image-edit endpoint among
 * those that reference file_id; an unknown id is 404), so multipart is refused with 400; streaming is offered
 * on legacy completions only.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CATALOGUE, findModel, type CatalogueModel, type Mode } from '../models/catalogue.ts'
import { requireCaller, type RequestContext } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { MAX_IMAGES } from '../limit-tables.ts'
import { parseErrorsAs500 } from '../fallbacks.ts'
import { requireModelId, requireTier, resolveModel } from '../models/access.ts'
import { generate } from '../simulate/generate.ts'
import { countTokens } from '../simulate/tokenizer.ts'
import { startSse } from '../sse.ts'
import type { GatewayState } from '../state.ts'
import { compatibleRules, type CompatibleRules } from './rules.ts'
import { embed, EMBEDDING_DIMENSIONS, embeddingBase64, TINY_PNG_BASE64 } from './simulate.ts'

const IMAGE_SIZES = ['auto', '256x256', '512x512', '1024x1024', '1024x1536', '1536x1024'] as const
const COMPLETION_DEFAULT_MAX_TOKENS = 16 // the legacy convention's default

/** The caller, the body as an object and the model it names, checked for mode and tier. */
type Open = (
  request: FastifyRequest,
  modes: readonly Mode[],
  endpoint: string,
) => {
  context: RequestContext
  caller: ReturnType<typeof requireCaller>
  body: Record<string, unknown>
  model: CatalogueModel
}

export function registerCompatibleRoutes(app: FastifyInstance, state: GatewayState): void {
  const rules = compatibleRules(state.faults)
  const seconds = (): number => Math.floor(state.clock.now() / 1000)
  const open: Open = (request, modes, endpoint) => {
    const context = state.contexts.of(request)
    const caller = requireCaller(context)
    // A JSON object, as the validator judged.
    const body = request.body as Record<string, unknown>
    const id =
      body.model === undefined && !rules.requireModel && modes.includes('completion')
        ? firstOf('completion').id
        : requireModelId(body)
    const model =
      !rules.refuseUnknownModel && !findModel(id) && modes.includes('embedding')
        ? firstOf('embedding')
        : resolveModel(id, context, { modes, endpoint })
    requireTier(model, caller, state.tiers)
    return { context, caller, body, model }
  }
  app.post('/v1/embeddings', rules.malformedJsonAs400 ? {} : parseErrorsAs500(state), embeddingsRoute(open, rules))
  app.post('/v1/completions', completionsRoute(open, seconds))
  app.post('/v1/images/generations', imageRoute(open, state, seconds, false))
  app.post('/v1/images/edits', imageRoute(open, state, seconds, true))
  app.post('/v1/messages', { config: { apiKeyHeader: true } }, messagesRoute(open))
}

function embeddingsRoute(open: Open, rules: CompatibleRules) {
  return async (request: FastifyRequest) => {
    const { context, body, model } = open(request, ['embedding'], 'embeddings')
    const inputs = embeddingInputs(body.input)
    const dimensions = optionalInteger(body, 'dimensions', 1, EMBEDDING_DIMENSIONS) ?? EMBEDDING_DIMENSIONS
    const format = body.encoding_format ?? 'float'
    if (format !== 'float' && format !== 'base64')
      throw invalidParameter('encoding_format', 'encoding_format must be float or base64.')
    if (!rules.servesEmbeddings) throw new GatewayError(500, 'The embedding backend failed.')
    const tokens = inputs.reduce(
      (sum, input) => sum + (typeof input === 'string' ? countTokens(input) : input.length),
      0,
    )
    setTokens(context, tokens, 0)
    return {
      object: 'list',
      data: inputs.map((input, index) => {
        const vector = embed(model.id, typeof input === 'string' ? input : input.join(' '), dimensions)
        return { object: 'embedding', index, embedding: format === 'base64' ? embeddingBase64(vector) : vector }
      }),
      model: model.id,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    }
  }
}

function completionsRoute(open: Open, seconds: () => number) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { context, body, model } = open(request, ['completion'], 'completions')
    const prompts =
      typeof body.prompt === 'string'
        ? [body.prompt]
        : Array.isArray(body.prompt) && body.prompt.length > 0 && body.prompt.every((p) => typeof p === 'string')
          ? (body.prompt as string[])
          : undefined
    if (!prompts) throw invalidParameter('prompt', 'prompt is required: a string or a non-empty array of strings.')
    const maxTokens = optionalInteger(body, 'max_tokens', 1, model.maxOutputTokens) ?? COMPLETION_DEFAULT_MAX_TOKENS
    const temperature = optionalNumber(body, 'temperature', 0, 2)
    const stream = body.stream === true
    if (stream && prompts.length > 1) throw invalidParameter('prompt', 'A streamed completion takes one prompt.')
    const runs = prompts.map((prompt) =>
      generate({ model: model.id, reasoning: false, input: prompt, maxOutputTokens: maxTokens, temperature }),
    )
    const promptTokens = runs.reduce((sum, run) => sum + run.inputTokens, 0)
    const completionTokens = runs.reduce((sum, run) => sum + run.outputTokens, 0)
    setTokens(context, promptTokens, completionTokens)
    context.stream = stream
    const head = {
      id: `cmpl-${randomBytes(12).toString('hex')}`,
      object: 'text_completion',
      created: seconds(),
      model: model.id,
    }
    if (stream) return streamCompletion(reply, head, runs[0]!)
    return {
      ...head,
      choices: runs.map((run, index) => ({ text: run.text, index, logprobs: null, finish_reason: run.finish })),
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    }
  }
}

async function streamCompletion(reply: FastifyReply, head: object, run: ReturnType<typeof generate>) {
  const writer = startSse(reply)
  for (const piece of run.pieces)
    await writer.event(undefined, {
      ...head,
      choices: [{ text: piece, index: 0, logprobs: null, finish_reason: null }],
    })
  await writer.event(undefined, {
    ...head,
    choices: [{ text: '', index: 0, logprobs: null, finish_reason: run.finish }],
  })
  await writer.data('[DONE]')
  writer.end()
  return reply
}

function imageRoute(open: Open, state: GatewayState, seconds: () => number, edit: boolean) {
  return async (request: FastifyRequest) => {
    if (edit && /^multipart\//i.test(request.headers['content-type'] ?? '')) {
      throw invalidParameter(
        'image',
        'Send a JSON body with the image as a stored file id (image: "<file_id>"); multipart is not accepted here.',
      )
    }
    const { context, caller, body } = open(request, ['image_generation'], edit ? 'image edits' : 'image generations')
    if (typeof body.prompt !== 'string' || body.prompt.trim() === '')
      throw invalidParameter('prompt', 'prompt is required: a non-empty string.')
    if (edit) {
      for (const id of imageFileIds(body.image)) {
        if (!state.files.get(caller.account.id, id))
          throw new GatewayError(404, `No file with id '${id}'.`, { code: 'file_not_found', param: 'image' })
      }
    }
    const n = optionalInteger(body, 'n', 1, MAX_IMAGES) ?? 1
    const size = body.size ?? '1024x1024'
    if (!(IMAGE_SIZES as readonly unknown[]).includes(size))
      throw invalidParameter('size', `size must be one of ${IMAGE_SIZES.join(', ')}.`)
    const format = body.response_format ?? 'b64_json'
    if (format !== 'b64_json' && format !== 'url')
      throw invalidParameter('response_format', 'response_format must be b64_json or url.')
    const tokens = countTokens(body.prompt)
    setTokens(context, tokens, 0)
    // No image host: a url answer is a data URL of the same image.
    const image = format === 'url' ? { url: `data:image/png;base64,${TINY_PNG_BASE64}` } : { b64_json: TINY_PNG_BASE64 }
    return {
      created: seconds(),
      data: Array.from({ length: n }, () => ({ ...image, revised_prompt: body.prompt })),
      usage: { input_tokens: tokens, output_tokens: 0, total_tokens: tokens },
    }
  }
}

function messagesRoute(open: Open) {
  return async (request: FastifyRequest) => {
    const { context, body, model } = open(request, ['chat'], 'messages')
    const maxTokens = optionalInteger(body, 'max_tokens', 1, model.maxOutputTokens)
    if (maxTokens === undefined)
      throw invalidParameter('max_tokens', `max_tokens is required: an integer from 1 to ${model.maxOutputTokens}.`)
    if (body.stream === true)
      throw invalidParameter(
        'stream',
        'Streaming is not offered on /v1/messages by this gateway; use chat completions or responses.',
      )
    const system = blockText(body.system, 'system', true)
    const input = messagesText(body.messages)
    const run = generate({
      model: model.id,
      reasoning: model.reasoning === true,
      instructions: system,
      input,
      maxOutputTokens: maxTokens,
      temperature: optionalNumber(body, 'temperature', 0, 1),
    })
    setTokens(context, run.inputTokens, run.outputTokens, run.reasoningTokens)
    return {
      id: `msg_${randomBytes(12).toString('hex')}`,
      type: 'message',
      role: 'assistant',
      model: model.id,
      content: [{ type: 'text', text: run.text }],
      stop_reason: run.finish === 'length' ? 'max_tokens' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: run.inputTokens, output_tokens: run.outputTokens },
    }
  }
}

function firstOf(mode: Mode): CatalogueModel {
  return CATALOGUE.find((model) => model.mode === mode) as CatalogueModel
}

function setTokens(context: RequestContext, prompt: number, completion: number, reasoning = 0): void {
  context.tokens = { total: prompt + completion, prompt, completion, reasoning, cached: 0 }
}

function optionalInteger(body: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    throw invalidParameter(name, `${name} must be an integer from ${min} to ${max}.`)
  return value as number
}

function optionalNumber(body: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || value < min || value > max)
    throw invalidParameter(name, `${name} must be a number from ${min} to ${max}.`)
  return value
}

/** Embedding input: a string, strings, or token arrays (the convention's four forms); none may be empty. */
function embeddingInputs(input: unknown): Array<string | number[]> {
  const isTokens = (v: unknown): v is number[] =>
    Array.isArray(v) && v.length > 0 && v.every((n) => Number.isInteger(n) && n >= 0)
  if (typeof input === 'string' && input !== '') return [input]
  if (isTokens(input)) return [input]
  if (
    Array.isArray(input) &&
    input.length > 0 &&
    input.every((v) => (typeof v === 'string' && v !== '') || isTokens(v))
  )
    return input as Array<string | number[]>
  throw invalidParameter('input', 'input is required: a non-empty string, an array of them, or token arrays.')
}

/** The image of an edit: a stored file id, { file_id }, or an array of these. */
function imageFileIds(image: unknown): string[] {
  const one = (v: unknown): string | undefined =>
    typeof v === 'string' && v !== ''
      ? v
      : typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>).file_id === 'string'
        ? ((v as Record<string, unknown>).file_id as string)
        : undefined
  const list = Array.isArray(image) ? image.map(one) : [one(image)]
  if (list.length === 0 || list.some((id) => id === undefined))
    throw invalidParameter('image', 'image is required: a stored file id, { file_id }, or an array of them.')
  return list as string[]
}

/** Text of a string or of an array of { type: "text", text } blocks. */
function blockText(value: unknown, param: string, optional: boolean): string | undefined {
  if ((value === undefined || value === null) && optional) return undefined
  if (typeof value === 'string') return value
  if (
    Array.isArray(value) &&
    value.every(
      (b) =>
        typeof b === 'object' &&
        b !== null &&
        (b as Record<string, unknown>).type === 'text' &&
        typeof (b as Record<string, unknown>).text === 'string',
    )
  ) {
    return value.map((b) => (b as Record<string, unknown>).text as string).join('\n')
  }
  throw invalidParameter(param, `${param} must be a string or an array of { type: "text", text } blocks.`)
}

function messagesText(messages: unknown): string {
  if (!Array.isArray(messages) || messages.length === 0)
    throw invalidParameter('messages', 'messages is required: a non-empty array of { role, content }.')
  return messages
    .map((message, i) => {
      const role =
        typeof message === 'object' && message !== null ? (message as Record<string, unknown>).role : undefined
      if (role !== 'user' && role !== 'assistant')
        throw invalidParameter(`messages[${i}].role`, 'role must be user or assistant (system text goes in system).')
      return blockText((message as Record<string, unknown>).content, `messages[${i}].content`, false) as string
    })
    .join('\n')
}
