/** Responses rules (Part 1 §2.2, §2.5, §4.4, §4.5, §6.2-§6.4, §7, §8.5), read by the routes, generation and streams. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { ResponsesFault } from './faults.ts'
import { RESPONSE_EDGES as limits } from './limits.ts'

export type ResponseRules = Readonly<ReturnType<typeof responseRules>>

export function responseRules(faults: FaultSet) {
  const bent = bentBy<ResponsesFault>(faults)
  return { ...requestRules(bent), ...generationRules(bent), ...routeRules(bent) }
}

/** Whether a fault of the family is on. */
type Bent = (fault: ResponsesFault) => boolean

/** What the request reader accepts (sections 4.4, 4.5, 8.5). */
function requestRules(bent: Bent) {
  return {
    // There is no n parameter; the fault honours it with that many message items.
    refuseN: !bent('n-parameter-honoured'),
    // conversation is refused beside previous_response_id; the fault ignores it there.
    refuseConversationWithPrevious: !bent('conversation-with-previous-accepted'),
    // temperature is 0 to 2; one fault takes up to 2.5, one refuses 2.
    temperatureMax: bent('temperature-above-2-accepted')
      ? limits.temperature.max + 0.5
      : bent('temperature-2-refused')
        ? limits.temperature.max - 0.01
        : limits.temperature.max,
    // top_logprobs is 0 to 20; one fault takes 21, one refuses 20.
    topLogprobsMax: bent('top-logprobs-21-accepted')
      ? limits.topLogprobs.max + 1
      : bent('top-logprobs-20-refused')
        ? limits.topLogprobs.max - 1
        : limits.topLogprobs.max,
    // safety_identifier is at most 64 characters; one fault takes any length, one refuses 64.
    safetyIdentifierMaxChars: bent('safety-identifier-unchecked')
      ? Infinity
      : limits.safetyIdentifierChars - (bent('safety-identifier-64-refused') ? 1 : 0),
    // metadata holds at most 16 pairs; one fault takes 17, one refuses 16.
    metadataMaxPairs: bent('metadata-17-pairs-accepted')
      ? limits.metadataPairs + 1
      : bent('metadata-16-pairs-refused')
        ? limits.metadataPairs - 1
        : limits.metadataPairs,
    // service_tier default may be given; the fault refuses it.
    takesDefaultServiceTier: !bent('service-tier-default-refused'),
    // service_tier flex is a listed value; the fault refuses it.
    takesFlexServiceTier: !bent('service-tier-flex-refused'),
    // text.format json_schema and json_object are taken; each fault refuses one.
    takesJsonSchemaFormat: !bent('json-schema-format-refused'),
    takesJsonObjectFormat: !bent('json-object-format-refused'),
    // prompt_cache_key is a listed parameter; the fault refuses it.
    takesPromptCacheKey: !bent('prompt-cache-key-refused'),
    // Section 4.4: an input_file has exactly one source; the fault takes several (and reads the first).
    oneFileSource: !bent('input-file-two-sources-accepted'),
    // Section 4.4: file_id, file_url and file_data are the three ways to supply a file; each fault refuses one.
    refusedFileSources: [
      ...(bent('input-file-id-refused') ? ['file_id'] : []),
      ...(bent('input-file-url-refused') ? ['file_url'] : []),
      ...(bent('input-file-data-refused') ? ['file_data'] : []),
    ] as readonly string[],
  }
}

/** What the generation counts and spends (sections 2.5, 4.5). */
function generationRules(bent: Bent) {
  return {
    // A chained response without instructions has none; the fault inherits the previous response's.
    carryInstructions: bent('instructions-carried-over'),
    // truncation disabled fails an input over the window with 400; the fault truncates it anyway.
    honourTruncationDisabled: !bent('truncation-disabled-ignored'),
    // truncation auto drops the oldest items when over the window; the fault fails it with 400 as disabled does.
    honourTruncationAuto: !bent('truncation-auto-refused'),
    // The prior chain context counts as input tokens; the fault counts only the new input.
    countChainContext: !bent('chain-context-not-counted'),
    // tool_choice required always calls a tool; the fault treats it as auto.
    honourToolChoiceRequired: !bent('tool-choice-required-ignored'),
    // max_output_tokens caps visible output plus reasoning; the fault caps the visible text alone.
    reasoningInBudget: !bent('reasoning-outside-budget'),
    // output_tokens includes reasoning; the fault counts the visible text alone.
    reasoningInOutputTokens: !bent('reasoning-outside-output'),
  }
}

/** What the routes serve, stream and record (sections 2.2, 4.5, 6.2-6.4, 7). */
function routeRules(bent: Bent) {
  return {
    // stream true answers an event stream; the fault answers JSON.
    streams: !bent('stream-json-body'),
    // Events are written as they are made; the fault buffers them and writes them at once.
    pacedStream: !bent('stream-buffered'),
    // Section 2.2: a streamed call is recorded with stream true and its tokens; each fault bends one.
    recordStreamFlag: !bent('stream-transaction-flag-false'),
    recordStreamTokens: !bent('stream-transaction-tokens-zero'),
    // Errors answer a JSON error object (the convention, section 7); the fault answers a 400 as plain text.
    jsonErrors: !bent('responses-error-text'),
    // A response created with store false is not stored, so no chain continues it; the fault keeps it for chains.
    chainsUnstored: bent('store-false-chain-continued'),
    // Retrieve, input items and cancel are served; each fault answers 404 for every response.
    servesRetrieve: !bent('retrieve-404'),
    servesInputItems: !bent('input-items-404'),
    servesCancel: !bent('background-cancel-404'),
    // Part 1 section 7: an unknown response id is 404; one fault answers 400, one 500 for an id never issued.
    missingResponseStatus: bent('unknown-response-400') ? (400 as const) : (404 as const),
    neverIssuedResponseStatus: bent('unknown-response-500') ? (500 as const) : (404 as const),
  }
}
