/** The responses faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { isObject } from '../../common/json.ts'
import { onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import { eachEvent, isType, type EventReshapes, type StreamEvent } from '../faults/events.ts'
import type { ResponsesFault } from './faults.ts'

type ResponseObject = Record<string, unknown>

/** The routes whose answer is a response object. */
const RESPONSE_ROUTES = ['POST /v1/responses', 'GET /v1/responses/:id', 'POST /v1/responses/:id/cancel']

/** A bend of every response object: the answers of the routes and the response of each stream event. */
function eachResponse(bend: (response: ResponseObject) => ResponseObject) {
  return {
    answers: onRoutes(RESPONSE_ROUTES, (answer) => (answer.object === 'response' ? bend(answer) : answer)),
    events: eachEvent((event) =>
      isObject(event.data.response)
        ? { ...event, data: { ...event.data, response: bend(event.data.response) } }
        : event,
    ),
  }
}

// §2.7 gives incomplete_details as an object (its reason); an incomplete answer keeps it, so only this rule breaks.
const incompleteDetailsText = eachResponse((response) =>
  response.status === 'incomplete' ? response : { ...response, incomplete_details: 'none' },
)
const noOutputText = eachResponse(({ output_text: _text, ...response }) => response)
const noReasoningDetails = eachResponse((response) => {
  if (!isObject(response.usage)) return response
  const { output_tokens_details: _details, ...usage } = response.usage
  return { ...response, usage }
})
const noModerationOutput = eachResponse((response) => {
  if (!isObject(response.moderation)) return response
  const { output: _output, ...moderation } = response.moderation
  return { ...response, moderation }
})

const asCompleted = eachResponse((response) =>
  response.status === 'incomplete' ? { ...response, status: 'completed', incomplete_details: null } : response,
)

/** Output text with a newline more than its message parts: JSON still parses, the text no longer matches. */
const trailingNewline = onRoutes(RESPONSE_ROUTES, (answer) =>
  typeof answer.output_text === 'string' ? { ...answer, output_text: `${answer.output_text}\n` } : answer,
)
const noCallId = onRoutes(RESPONSE_ROUTES, (answer) =>
  Array.isArray(answer.output)
    ? {
        ...answer,
        output: answer.output.map((item: unknown) => {
          if (!isObject(item) || item.type !== 'function_call') return item
          const { call_id: _id, ...rest } = item
          return rest
        }),
      }
    : answer,
)

/** The responses faults that only reshape an answer (../faults/answers.ts); each bends the stream's responses too. */
export const RESPONSES_ANSWER_RESHAPES: AnswerReshapes<ResponsesFault> = {
  'incomplete-reported-completed': asCompleted.answers,
  'response-incomplete-details-text': incompleteDetailsText.answers,
  'response-output-text-missing': noOutputText.answers,
  'usage-no-reasoning-details': noReasoningDetails.answers,
  'moderation-output-missing': noModerationOutput.answers,
  // Answers only: a stream's text is judged against its deltas, which stay whole.
  'output-text-trailing-newline': trailingNewline,
  'function-call-no-call-id': noCallId,
  // Retrieval alone: the creation answered the gateway's own id.
  'retrieve-upstream-id': onRoutes(['GET /v1/responses/:id'], (answer) =>
    typeof answer.id === 'string' ? { ...answer, id: answer.id.replace(/^resp_/, 'resp_upstream_') } : answer,
  ),
  // A created background response is the one answer still queued; polls show its true status.
  'background-status-pending': onRoutes(['POST /v1/responses'], (answer) =>
    answer.status === 'queued' ? { ...answer, status: 'pending' } : answer,
  ),
}

const TEXT_DELTA = 'response.output_text.delta'
const ARGS_DELTA = 'response.function_call_arguments.delta'

const isTerminal = (event: StreamEvent): boolean =>
  isType(event, 'response.completed') || isType(event, 'response.incomplete')

/**
 * The responses faults that only bend a stream's events (../faults/events.ts); the others act where the answer is made.
 */
export const RESPONSES_STREAM_RESHAPES: EventReshapes<ResponsesFault> = {
  // The terminal event of a cut response is response.completed too.
  'incomplete-reported-completed': (events) =>
    eachEvent((event) =>
      isType(event, 'response.incomplete')
        ? { name: 'response.completed', data: { ...event.data, type: 'response.completed' } }
        : event,
    )(asCompleted.events(events)),
  'response-incomplete-details-text': incompleteDetailsText.events,
  'response-output-text-missing': noOutputText.events,
  'usage-no-reasoning-details': noReasoningDetails.events,
  'moderation-output-missing': noModerationOutput.events,
  // The moderation results of the terminal response, already in the snapshot of response.created.
  'stream-moderation-early': (events) => {
    const terminal = events.find(isTerminal)
    const results =
      terminal !== undefined && isObject(terminal.data) && isObject(terminal.data.response)
        ? terminal.data.response.moderation
        : undefined
    return eachEvent((event) =>
      isType(event, 'response.created') && isObject(event.data.response) && results !== undefined
        ? { ...event, data: { ...event.data, response: { ...event.data.response, moderation: results } } }
        : event,
    )(events)
  },
  'stream-created-late': (events) => {
    const [created, progress, ...rest] = events
    return created !== undefined && progress !== undefined ? [progress, created, ...rest] : [...events]
  },
  'stream-function-args-no-delta': eachEvent((event) =>
    isType(event, 'response.function_call_arguments.delta') ? null : event,
  ),
  'stream-no-terminal': eachEvent((event) => (isTerminal(event) ? null : event)),
  'stream-empty': () => [],
  'stream-terminal-twice': eachEvent((event) => (isTerminal(event) ? [event, event] : event)),
  'stream-event-names-off': eachEvent((event) => ({ ...event, name: 'update' })),
  'stream-created-no-id': eachEvent((event) => {
    if (!isType(event, 'response.created') || !isObject(event.data.response)) return event
    const { id: _id, ...response } = event.data.response
    return { ...event, data: { ...event.data, response } }
  }),
  'stream-args-delta-repeated': eachEvent((event, index, events) =>
    isType(event, ARGS_DELTA) && events.findIndex((e) => isType(e, ARGS_DELTA)) === index ? [event, event] : event,
  ),
  'stream-delta-repeated': eachEvent((event, index, events) =>
    isType(event, TEXT_DELTA) && events.findIndex((e) => isType(e, TEXT_DELTA)) === index ? [event, event] : event,
  ),
}
