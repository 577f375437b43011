/**
 * The announced but unavailable surfaces (Part 1 sections 1.6, 4.6, 4.9, 7): token counting, batches,
 * assistants (with threads, messages and runs) and fine-tuning. The reference gateway offers none of them, so
 * their routes are not registered and the not-found handler answers them (../fallbacks.ts): the
 * unsupported-route error, 404 with the compatible error body and code `unsupported_route`, whether or not a
 * key is sent, like any route the service does not have. Section 7 does not show the status of that error;
 * 404 ("resource missing") is among the statuses section 7 says the service uses, and 501 is not.
 *
 * Under a `planned-<surface>-*` fault, that surface is registered and offered with the planned shapes and
 * rules (batches.ts, assistants.ts, fine-tuning.ts) except for the one defect the fault names: this proves that the suite judges a target
 * that does offer a planned surface. Offered routes require a key like every endpoint (section 5.1).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { findModel } from '../models/catalogue.ts'
import { requireCaller } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { UNAVAILABLE_ANSWER_RESHAPES } from './reshapes.ts'
import { PlannedAssistants } from './assistants.ts'
import { PlannedBatches } from './batches.ts'
import { PlannedFineTuning } from './fine-tuning.ts'
import { unavailableRules } from './rules.ts'
import { requestBody, requiredString } from './planned.ts'
import { countTokens } from '../simulate/tokenizer.ts'
import type { GatewayState } from '../state.ts'
import { isObject } from '../../common/json.ts'

type Surface = 'input-tokens' | 'batch' | 'assistant' | 'fine-tuning'
type Method = 'GET' | 'POST'
type Handler = (
  accountId: string,
  request: FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>,
) => unknown

/** Which fault-name prefixes offer each surface. */
const OFFERED_BY: Readonly<Record<Surface, readonly string[]>> = {
  'input-tokens': ['planned-input-tokens-'],
  batch: ['planned-batch-'],
  assistant: ['planned-assistant-', 'planned-threads-'],
  'fine-tuning': ['planned-fine-tuning-'],
}

export function registerUnavailableRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, UNAVAILABLE_ANSWER_RESHAPES)
    registerRoutes(scope, state)
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState): void {
  const { faults } = state
  const rules = unavailableRules(faults)
  const now = (): number => Math.floor(state.clock.now() / 1000)
  const batches = new PlannedBatches(rules, now)
  const assistants = new PlannedAssistants(rules, now)
  const fineTuning = new PlannedFineTuning(rules, now)
  // Real choices (§1.6 "can return an unsupported-route error", its status not shown; §4.6 announces token counting
  // as unavailable, which a target may offer early): see ../variations.ts.
  const offered = (surface: Surface): boolean =>
    [...faults].some((name) => OFFERED_BY[surface].some((prefix) => name.startsWith(prefix))) ||
    (surface === 'input-tokens' && state.variations.has('input-tokens-offered'))
  const refuseWith400 = state.variations.has('unsupported-route-400')

  // Without the JSON rule a planned route answers like a bare web server would: a 404 page that is not JSON.
  const plainText = !rules.unsupportedRouteJson

  const route = (method: Method, url: string, surface: Surface, handler?: Handler): void => {
    const serve = handler !== undefined && offered(surface)
    if (!plainText && !serve && !refuseWith400) return // left to the not-found handler: unsupported-route error
    app.route<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>({
      method,
      url,
      handler: async (request, reply) => {
        if (plainText) return reply.code(404).type('text/plain; charset=utf-8').send('404 page not found')
        if (!serve || handler === undefined)
          throw new GatewayError(400, `${method} ${url} is not available on this service.`, {
            code: 'unsupported_route',
          })
        return handler(requireCaller(state.contexts.of(request)).account.id, request)
      },
    })
  }

  route('POST', '/v1/responses/input_tokens', 'input-tokens', (_account, request) => countInputTokens(request.body))

  route('POST', '/v1/batches', 'batch', (account, request) => batches.create(account, request.body))
  route('GET', '/v1/batches', 'batch', (account, request) => batches.list(account, request.query))
  route('GET', '/v1/batches/:batch_id', 'batch', (account, request) =>
    batches.get(account, request.params.batch_id as string),
  )
  route('POST', '/v1/batches/:batch_id/cancel', 'batch', (account, request) =>
    batches.cancel(account, request.params.batch_id as string),
  )

  route('POST', '/v1/assistants', 'assistant', (account, request) => assistants.createAssistant(account, request.body))
  route('POST', '/v1/threads', 'assistant', (account, request) => assistants.createThread(account, request.body))
  route('POST', '/v1/threads/:thread_id/messages', 'assistant', (account, request) =>
    assistants.addMessage(account, request.params.thread_id as string, request.body),
  )
  route('POST', '/v1/threads/:thread_id/runs', 'assistant', (account, request) =>
    assistants.createRun(account, request.params.thread_id as string, request.body),
  )

  route('POST', '/v1/fine-tuning/jobs', 'fine-tuning', (account, request) => fineTuning.create(account, request.body))
  route('GET', '/v1/fine-tuning/jobs', 'fine-tuning', (account, request) => fineTuning.list(account, request.query))
  route('GET', '/v1/fine-tuning/jobs/:job_id', 'fine-tuning', (account, request) =>
    fineTuning.get(account, request.params.job_id as string),
  )
  route('POST', '/v1/fine-tuning/jobs/:job_id/cancel', 'fine-tuning', (account, request) =>
    fineTuning.cancel(account, request.params.job_id as string),
  )
  route('GET', '/v1/fine-tuning/jobs/:job_id/events', 'fine-tuning', (account, request) =>
    fineTuning.events(account, request.params.job_id as string, request.query),
  )
  // Conditional and not guaranteed (section 4.9): unavailable even where fine-tuning is offered.
  route('POST', '/v1/fine-tuning/jobs/:job_id/pause', 'fine-tuning')
  route('POST', '/v1/fine-tuning/jobs/:job_id/resume', 'fine-tuning')
  route('GET', '/v1/fine-tuning/jobs/:job_id/checkpoints', 'fine-tuning')
}

/** Section 4.6, as planned: the body of response creation in, { input_tokens } out. */
function countInputTokens(raw: unknown): Record<string, unknown> {
  const body = requestBody(raw)
  const model = requiredString(body, 'model')
  if (!findModel(model))
    throw new GatewayError(404, `The model '${model}' does not exist.`, { code: 'model_not_found', param: 'model' })
  if (body.input === undefined) throw invalidParameter('input', 'input is required: text or an array of input items.')
  const text = (value: unknown): string =>
    typeof value === 'string'
      ? value
      : isObject(value) || Array.isArray(value)
        ? Object.values(value).map(text).join(' ')
        : ''
  const tokens =
    countTokens(typeof body.instructions === 'string' ? body.instructions : '') +
    countTokens(text(body.input)) +
    countTokens(body.tools === undefined ? '' : JSON.stringify(body.tools))
  return { object: 'response.input_tokens', input_tokens: tokens }
}
