/**
 * Faults of the responses endpoint (Part 1 §2.2, §2.5, §2.7, §3, §4.5, §6.2-6.4, §7). See ../faults/registry.ts for
 * what a fault is.
 */
import type { FaultDefinition } from '../faults/definition.ts'

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
    relaxes: ['P1-4.5-required-fields'],
    description: 'A body without input is answered as if input were an empty string.',
  },
  {
    name: 'metadata-17-pairs-accepted',
    breaks: ['P1-4.5-metadata-refused'],
    relaxes: ['P1-4.5-metadata-refused'],
    description: 'metadata is refused only above 17 pairs.',
  },
  {
    name: 'temperature-above-2-accepted',
    breaks: ['P1-4.5-temperature-refused'],
    relaxes: ['P1-4.5-temperature-refused'],
    description: 'temperature is refused only above 2.5.',
  },
  {
    name: 'top-logprobs-21-accepted',
    breaks: ['P1-4.5-top-logprobs-refused'],
    relaxes: ['P1-4.5-top-logprobs-refused'],
    description: 'top_logprobs is refused only above 21.',
  },
  {
    name: 'safety-identifier-unchecked',
    breaks: ['P1-4.5-safety-identifier-refused'],
    relaxes: ['P1-4.5-safety-identifier-refused'],
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
    relaxes: ['P1-4.5-conversation-exclusive'],
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
    relaxes: ['P1-4.5-stream-options-need-stream'],
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
    name: 'retrieve-upstream-id',
    breaks: ['P1-4.5-retrieve-same'],
    description:
      "GET /v1/responses/{response_id} answers the stored response under the upstream provider's id, not the id its creation answered.",
  },
  {
    name: 'store-false-chain-continued',
    breaks: ['P1-4.5-store-false'],
    description:
      'A response created with store false is kept for chains: previous_response_id continues it, though retrieving it still answers 404.',
  },
  {
    name: 'input-file-two-sources-accepted',
    breaks: ['P1-4.4-input-file-one-source'],
    relaxes: ['P1-4.4-input-file-one-source'],
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

/** The names of the responses faults: what its rules and reshapes are typed by. */
export type ResponsesFault = (typeof RESPONSES_FAULTS)[number]['name']
