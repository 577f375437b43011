/** Faults of the responses endpoint (Part 1 §2.2, §2.5, §2.7, §3, §4.5, §6.2-6.4, §7). See ../faults.ts for what a fault is. */
import { isObject } from '../../common/json.ts'
import { onRoutes, type AnswerReshapes } from './answers.ts'
import type { FaultDefinition } from './definition.ts'
import { eachEvent, isType, type EventReshapes, type StreamEvent } from './events.ts'

export const RESPONSES_FAULTS = [
  {
    name: 'usage-no-reasoning-details',
    breaks: ['P1-2.5-usage-fields'],
    description: 'usage has no output_tokens_details.',
  },
  {
    name: 'incomplete-reported-completed',
    breaks: ['P1-3-incomplete-max-output-tokens'],
    description: 'A response cut by max_output_tokens has status completed and no incomplete_details.',
  },
  {
    name: 'reasoning-outside-budget',
    breaks: ['P1-4.5-max-output-tokens-cap'],
    description: 'max_output_tokens caps only the visible text; hidden reasoning comes on top of it.',
  },
  {
    name: 'missing-input-accepted',
    breaks: ['P1-4.5-required-fields'],
    description: 'A body without input is answered as if input were an empty string.',
  },
  {
    name: 'metadata-17-pairs-accepted',
    breaks: ['P1-4.5-metadata-refused'],
    description: 'metadata is refused only above 17 pairs.',
  },
  {
    name: 'temperature-above-2-accepted',
    breaks: ['P1-4.5-temperature-refused'],
    description: 'temperature is refused only above 2.5.',
  },
  {
    name: 'top-logprobs-21-accepted',
    breaks: ['P1-4.5-top-logprobs-refused'],
    description: 'top_logprobs is refused only above 21.',
  },
  {
    name: 'safety-identifier-unchecked',
    breaks: ['P1-4.5-safety-identifier-refused'],
    description: 'safety_identifier of any length is accepted.',
  },
  {
    name: 'metadata-16-pairs-refused',
    breaks: ['P1-4.5-metadata-limits'],
    description: 'metadata of 16 pairs, the most the limit allows, is refused (at most 15).',
  },
  {
    name: 'temperature-2-refused',
    breaks: ['P1-4.5-temperature-range'],
    description: 'temperature 2, the top of the range, is refused (at most 1.99).',
  },
  {
    name: 'top-logprobs-20-refused',
    breaks: ['P1-4.5-top-logprobs-range'],
    description: 'top_logprobs 20, the top of the range, is refused (at most 19).',
  },
  {
    name: 'safety-identifier-64-refused',
    breaks: ['P1-4.5-safety-identifier-length'],
    description: 'a safety_identifier of 64 characters, the most allowed, is refused (at most 63).',
  },
  {
    name: 'n-parameter-honoured',
    breaks: ['P1-4.5-no-n-parameter'],
    description: 'n is accepted and yields that many message items.',
  },
  {
    name: 'json-schema-format-refused',
    breaks: ['P1-4.5-text-format'],
    description: 'text.format json_schema is refused with 400.',
  },
  {
    name: 'truncation-auto-refused',
    breaks: ['P1-4.5-truncation-auto'],
    description: 'An input over the window is refused with 400 even with truncation auto.',
  },
  {
    name: 'prompt-cache-key-refused',
    breaks: ['P1-4.5-listed-parameters'],
    description: 'prompt_cache_key is refused with 400 as an unknown parameter.',
  },
  {
    name: 'input-file-data-refused',
    breaks: ['P1-4.4-input-file-sources'],
    description: 'An input_file given by file_data (a Base64 data URL) is refused with 400.',
  },
  {
    name: 'input-file-id-refused',
    breaks: ['P1-4.4-input-file-sources'],
    description: 'An input_file given by file_id (of an uploaded user_data file) is refused with 400.',
  },
  {
    name: 'input-file-url-refused',
    breaks: ['P1-4.4-input-file-sources'],
    description: 'An input_file given by file_url is refused with 400, saying the URL is not supported.',
  },
  {
    name: 'service-tier-flex-refused',
    breaks: ['P1-4.5-service-tier-flex'],
    description: 'service_tier flex is refused with 400.',
  },
  {
    name: 'conversation-with-previous-accepted',
    breaks: ['P1-4.5-conversation-exclusive'],
    description: 'conversation is ignored when previous_response_id is given.',
  },
  {
    name: 'truncation-disabled-ignored',
    breaks: ['P1-7-truncation-disabled'],
    description: 'An input over the window is truncated (oldest first) even with truncation disabled.',
  },
  {
    name: 'service-tier-default-refused',
    breaks: ['P1-4.5-service-tier'],
    description: 'service_tier default, given explicitly, is refused with 400.',
  },
  {
    name: 'retrieve-404',
    breaks: ['P1-4.5-store-retrieve'],
    description: 'GET /v1/responses/{response_id} answers 404 for every response.',
  },
  {
    name: 'input-items-404',
    breaks: ['P1-4.5-input-items'],
    description: 'GET /v1/responses/{response_id}/input_items answers 404 for every response.',
  },
  {
    name: 'chain-context-not-counted',
    breaks: ['P1-4.5-chain-input-tokens'],
    description: 'input_tokens of a chained response counts only the new input, not the prior chain context.',
  },
  {
    name: 'instructions-carried-over',
    breaks: ['P1-4.5-instructions-not-carried'],
    description: 'A chained response without instructions inherits those of the previous response.',
  },
  {
    name: 'unknown-response-500',
    breaks: ['P1-7-unknown-response-404'],
    description:
      'GET /v1/responses/{response_id} of an id the gateway never issued answers 500 instead of refusing it.',
  },
  {
    name: 'background-status-pending',
    breaks: ['P1-3-background-status'],
    description: 'A background response is answered with status pending, neither queued nor in_progress nor finished.',
  },
  {
    name: 'background-cancel-404',
    breaks: ['P1-4.5-background-cancel'],
    description: 'POST /v1/responses/{response_id}/cancel answers 404.',
  },
  {
    name: 'moderation-output-missing',
    breaks: ['P1-2.7-moderation'],
    description: 'Inline moderation reports the input result only.',
  },
  {
    name: 'stream-moderation-early',
    breaks: ['P1-6.3-moderation-after-output'],
    description: 'The moderation results are already in the response of response.created, before any delta.',
  },
  {
    name: 'stream-json-body',
    breaks: ['P1-6.2-stream-sse'],
    description: 'stream true is ignored: the response object is answered as JSON.',
  },
  {
    name: 'stream-function-args-no-delta',
    breaks: ['P1-6.2-stream-event-types'],
    description: 'A streamed tool call sends response.function_call_arguments.done without any delta events.',
  },
  {
    name: 'stream-no-terminal',
    breaks: ['P1-6.2-stream-terminal'],
    description: 'Streams end after the last output event, without response.completed or response.incomplete.',
  },
  {
    name: 'stream-empty',
    breaks: ['P1-6.2-stream-sse'],
    description: 'stream true answers 200 text/event-stream and ends at once, without any event.',
  },
  {
    name: 'stream-transaction-flag-false',
    breaks: ['P1-2.2-responses-stream-flag'],
    description: 'Streamed responses calls are recorded with stream false.',
  },
  {
    name: 'response-incomplete-details-text',
    breaks: ['P1-2.7-response-object'],
    description: 'A finished response carries incomplete_details as the text "none", not an object with reason.',
  },
  // SHOULD requirements: a run with these warns and still exits 0.
  {
    name: 'response-output-text-missing',
    breaks: ['P1-2.7-output-text'],
    description: 'Response objects (and the response in stream events) have no output_text.',
  },
  {
    name: 'reasoning-outside-output',
    breaks: ['P1-2.5-reasoning-breakdown'],
    description: 'output_tokens counts only the visible text; reasoning_tokens is reported beside it, not inside it.',
  },
  {
    name: 'stream-options-unchecked',
    breaks: ['P1-4.5-stream-options-need-stream'],
    description: 'stream_options without stream true is accepted and ignored.',
  },
  {
    name: 'tool-choice-required-ignored',
    breaks: ['P1-4.5-function-tool-call'],
    description: 'tool_choice required is treated as auto, so a prompt that does not name the tool gets a text answer.',
  },
  {
    name: 'unknown-response-400',
    breaks: ['P1-7-unstored-response-404'],
    description:
      'GET /v1/responses/{response_id} of an id it has not stored (one issued with store false) answers 400.',
  },
  {
    name: 'input-file-two-sources-accepted',
    breaks: ['P1-4.4-input-file-one-source'],
    description: 'An input_file part with both file_id and file_data is accepted (the first source is read).',
  },
  {
    name: 'stream-buffered',
    breaks: ['P1-6.2-streaming-real'],
    description: 'Stream events are written all at once when the answer is complete, without pauses.',
  },
  {
    name: 'stream-created-late',
    breaks: ['P1-6.2-stream-order'],
    description: 'response.in_progress is sent before response.created.',
  },
  {
    name: 'stream-terminal-twice',
    breaks: ['P1-6.2-stream-one-terminal'],
    description: 'The terminal event of a stream is sent twice.',
  },
  {
    name: 'stream-event-names-off',
    breaks: ['P1-6.2-event-name'],
    description: 'Every event: line names the event "update", whatever the type of its data.',
  },
  {
    name: 'stream-created-no-id',
    breaks: ['P1-6.4-event-schemas'],
    description: 'The response in response.created carries no id.',
  },
  {
    name: 'stream-delta-repeated',
    breaks: ['P1-6.2-deltas-concatenate'],
    description: 'The first text delta of a stream is sent twice, so the deltas join to more than the final text.',
  },
  {
    name: 'stream-args-delta-repeated',
    breaks: ['P1-6.2-function-call-arguments'],
    description: 'The first function call argument delta of a stream is sent twice.',
  },
  {
    name: 'output-text-trailing-newline',
    breaks: ['P1-2.7-output-text-matches'],
    description: 'output_text of an answered response ends with a newline its message parts do not hold.',
  },
  {
    name: 'function-call-no-call-id',
    breaks: ['P1-4.5-function-call-item'],
    description: 'A function_call output item of an answered response carries no call_id.',
  },
  {
    name: 'responses-error-text',
    breaks: ['P1-7-responses-error-body'],
    description: 'A 400 from POST /v1/responses answers its message as plain text, not a JSON error member.',
  },
  {
    name: 'json-object-format-refused',
    breaks: ['P1-4.5-text-format-json'],
    description: 'text.format json_object is refused with 400.',
  },
  {
    name: 'stream-transaction-tokens-zero',
    breaks: ['P1-2.2-responses-transaction-tokens'],
    description: 'Streamed calls are recorded when the stream starts, with zero tokens.',
  },
] as const satisfies readonly FaultDefinition[]

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

/** The responses faults that only reshape an answer (./answers.ts); each bends the stream's responses too. */
export const RESPONSES_ANSWER_RESHAPES: AnswerReshapes = {
  'incomplete-reported-completed': asCompleted.answers,
  'response-incomplete-details-text': incompleteDetailsText.answers,
  'response-output-text-missing': noOutputText.answers,
  'usage-no-reasoning-details': noReasoningDetails.answers,
  'moderation-output-missing': noModerationOutput.answers,
  // Answers only: a stream's text is judged against its deltas, which stay whole.
  'output-text-trailing-newline': trailingNewline,
  'function-call-no-call-id': noCallId,
  // A created background response is the one answer still queued; polls show its true status.
  'background-status-pending': onRoutes(['POST /v1/responses'], (answer) =>
    answer.status === 'queued' ? { ...answer, status: 'pending' } : answer,
  ),
}

const TEXT_DELTA = 'response.output_text.delta'
const ARGS_DELTA = 'response.function_call_arguments.delta'

const isTerminal = (event: StreamEvent): boolean =>
  isType(event, 'response.completed') || isType(event, 'response.incomplete')

/** The responses faults that only bend a stream's events (./events.ts); the others act where the answer is made. */
export const RESPONSES_STREAM_RESHAPES: EventReshapes = {
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
