/**
 * Choices the reference leaves open, made as real providers make them. `--real` switches every one on; `--variation
 * NAME` one at a time. A suite that asserts only what the reference states passes against every combination: the
 * self-tests run the whole suite with all of them on (test/cli/real-variation.test.ts), so a check that demands one
 * choice where the reference allows several fails there.
 *
 * Unlike a fault (faults/registry.ts), a variation is conformant. Each names the words of the reference that leave it open.
 */

export const VARIATIONS = {
  'real-names':
    "the ids the reference writes with a neutral word answer under their makers' names (REAL_NAMES); Part 2 neutralises them",
  // headers, auth, models, chat, compatible, unavailable
  'reset-seconds':
    'x-ratelimit-reset-* in bare seconds (0.75, 12.5) instead of Go durations; Part 1 §4.1 gives "a number followed by s" as a sample form',
  'default-temperature-only':
    'chat models take only the default temperature (1) on chat completions and refuse another with 400, as some reasoning models do; Part 1 §4.7 does not show the parameter list',
  'unsupported-route-400':
    'the announced but unavailable routes answer 400 with code unsupported_route instead of 404; Part 1 §7: the status of the unsupported-route error is not shown',
  'input-tokens-offered':
    'POST /v1/responses/input_tokens is offered with its planned shape; Part 1 §4.6 announces it as unavailable, which a target may change early',
  'system-messages-flag':
    'the cheapest chat model says supports_system_messages false and chat completions refuse a system or developer message to it; Part 1 §2.3 makes the flag a capability',
  'model-snapshot-names':
    'a chat completion names in model the dated snapshot that served the alias asked for; Part 1 §9.3: behaviour can change between aliases and snapshots',
  'prompt-filter-chunk':
    'a chat stream opens with a chunk that has no choices and an empty id, carrying prompt_filter_results, as a provider with a content filter sends; Part 1 §6.4: chat stream payloads are not shown',
  'error-body-shape':
    '400, 404 and 500 on /v1 answer { "error": "<code>", "message": … } instead of the error object; Part 1 §7: "Error body shapes for 400, 404 and 500 on compatible endpoints are not shown"',
  'disallowed-current-null':
    "a model above the caller's tier shows extra.rate_limits.current with rpm and tpm null; Part 1 §2.3 gives current as the caller's tier's values, and a tier the model does not allow has none (\"absent\")",
  'current-tier-string':
    'extra.rate_limits.current.tier is the tier number\'s string ("2"); Part 1 §2.3 gives current\'s tier no type, and keys tiers by the tier number as a string',
  // account, tiers, files
  'late-transactions':
    'a transaction is listed some seconds after its call; §4.2: "transaction data is available within 30 seconds of the call"',
  'transactions-no-key-id':
    'a listed transaction shows only the fields of §2.2, not the id of the key that made it; §4.2 filters by api_key_id but no answer is shown to carry it',
  'late-credit':
    'a charge shows in the credit record some seconds after the call; §2.1 does not say when remaining credit is updated',
  'opaque-file-ids':
    'a file id the gateway never issued is refused with 400 as invalid; §9.2: ids are opaque, and §7 allows 400 as well as 404',
  'binary-megabytes':
    'the 128 MB upload limit and the storage quotas are read as MiB (2^20 bytes); §4.4 and §8.4 write MB without saying',
  'storage-blocks-when-full':
    'the storage quota is checked before an upload only: one that starts with room is stored whole, the next is refused; §8.4: "When storage is full, uploads are blocked"',
  'expires-json-part':
    'expires_after is taken only as one multipart part holding JSON text; §4.4 gives an object in a form without showing how it is written',
  'no-assistants-files':
    'purpose assistants is refused with 400; §4.4: "assistants only for hosted retrieval surfaces when enabled"',
  // responses, moderation
  'logprobs-model-dependent':
    'the cheapest chat model refuses top_logprobs and logprobs on POST /v1/responses with 400; Part 1 §4.5: features are model dependent',
  'temperature-to-1':
    'the cheapest chat model takes temperature 0 to 1 only and refuses more with 400; Part 1 §4.5: features are model dependent',
  'moderation-min-tier-3':
    'text-moderation-stable and the guard model answer keys below tier 3 with 403 (no permission); Part 1 §1.5: the tier sets which models can be used',
  'inline-results-wrapped':
    'inline moderation results come wrapped in a results array ({results: [{flagged, …}]}); Part 1 §2.7 shows no shape beyond "each with flagged"',
  'no-background':
    'background true is run in the foreground and answered finished; Part 1 §3 and §4.5: background runs "when supported"',
  'no-output-text':
    'response objects carry no output_text, only output; Part 1 §2.7 calls output_text the "convenience final text"',
  'no-inline-moderation':
    'the moderation object of POST /v1/responses is accepted and ignored (no moderation member); Part 1 §4.5: inline moderation "where enabled"',
  'opaque-response-ids':
    'a response id of a form the gateway never issues is refused with 400 as invalid; Part 1 §9.2: ids are opaque, and §7 allows 400 as well as 404',
  'conversations-not-found':
    'a conversation id on POST /v1/responses answers 404 (no such conversation); Part 1 §4.5: persistent conversations "only where enabled"',
  'long-reasoning':
    'every chat model on POST /v1/responses spends 128 hidden reasoning tokens before any text, so a short budget ends incomplete with no text; Part 1 §4.5 rule 7 allows it',
  'whole-item-truncation':
    'truncation auto on POST /v1/responses drops whole input items, oldest first, and refuses with 400 an input whose newest item alone is over the window; Part 1 §4.5: auto "drops oldest items when over the window"',
  'tool-choice-flags':
    'the cheapest chat model says supports_tool_choice and supports_parallel_function_calling false, and POST /v1/responses refuses tool_choice or parallel_tool_calls to it with 400; Part 1 §2.3 makes the flags capabilities',
  'n-unknown-422':
    'POST /v1/responses answers a body with n 422 (an unknown parameter) instead of 400; Part 1 §4.5 rule 1 says there is no n parameter without a status',
  'flex-times-out':
    'service_tier flex on POST /v1/responses answers 504, the request having timed out in the flex queue; Part 1 §4.5: flex "may time out up to 900 seconds"',
  'moderation-image-urls-only':
    'moderation takes an image item by its https URL and refuses a Base64 data URL with 400; Part 2 §4.7 shows {type image_url, image_url {url}} and does not say a data URL is accepted',
  'moderation-more-categories':
    'moderation results name a category beyond the thirteen; Part 2 §2.4 lists thirteen, and Part 1 §9.2 lets new response fields appear',
  // videos
  'video-in-progress':
    'a running video reports status in_progress instead of processing; Part 2 §2.1 and §3 give the statuses as "observed" and do not show the transitions',
  'video-content-redirect':
    'GET /v1/videos/{id}/content of a completed job answers 302 to a storage URL that serves the file without a key; §4.1: "download file", "content URLs are not durable storage"',
  'video-content-redirect-own':
    'GET /v1/videos/{id}/content of a completed job answers 302 to a download path of the service itself, which needs the key like every route; §4.1: "download file"',
  'video-content-not-ready-404':
    'content asked for before completion answers 404 instead of 400; Part 2 §7: that error "is not shown"',
  'video-content-pending-text':
    'content asked for while the job runs answers 202 with a plain-text "still processing" message, no file; Part 2 §7: the answer before completion "is not shown"',
  'video-id-checked':
    'a video id not of the form this gateway issues answers 400 as invalid; Part 1 §9.2: ids are opaque, and §7 allows 400 as well as 404',
  'video-create-201': 'create and remix answer 201 with the job; §4.1 says only that a create "returns the job"',
  'video-create-202':
    'create and remix answer 202 Accepted with the job, as for an asynchronous job; §4.1 says only that a create "returns the job", Part 1 §7 gives "2xx success"',
  'video-eventual':
    'DELETE /v1/videos/{id} answers 202 and the job goes a moment later, and a new job shows in the list a moment after its create; §4.1 states what the routes do, not how soon another call sees it',
  // audio, synthesize, native
  'lenient-audio-fields':
    'fields a model does not support are accepted and ignored: instructions and stream_format sse on tts-1, stream on the base transcription model, timestamp_granularities[] off verbose_json, prompt on diarization, thinkingConfig, tools, image or audio parts and a speechMetadata speaker missing from speakerVoiceConfigs on the native speech models; §4.2, §4.3 and §4.8 state capabilities and rules for callers, not refusals',
  'lenient-enums':
    'an enum parser that ignores case and answers an unknown value with the default: audioEncoding linear16 read as LINEAR16, an unknown speech response_format or stream_format, transcription response_format and native thinkingLevel ignored; §4.2, §4.3, §4.8 and §4.9 list the values without stating that others are refused',
  'synthesis-any-rate':
    'text:synthesize resamples to any asked sampleRateHertz (LINEAR16 at 22050, MULAW at 16000); §4.9 lists the rates without stating that others are refused',
  'speech-voices-per-model':
    'tts-1 and tts-1-hd take the nine older voices (not ballad, verse, marin, cedar) and the newer speech model all but fable and onyx; §4.2 lists the voices of the endpoint, not of each model',
  'diarize-integer-speakers':
    'a diarized transcription stream numbers its speakers and segment ids (integers); §4.3 names speaker, start, end, text and segment_id without their types',
  'transcript-stream-ndjson':
    'a transcription stream is newline-delimited JSON (application/x-ndjson), one event object a line, not server-sent events; §4.3 names the events, not their framing',
  'range-refusals-422':
    'a value past a stated range whose refusal the words leave open is refused with 422 (unprocessable), as a validating web framework answers (speech speed and input length, transcription temperature, native temperature, the ranges of Part 1 §4.2 and §4.5, ...); the parameter tables give the ranges without the refusal or its status',
  'audio-file-415':
    'a transcription or translation file in no audio format is refused with 415 (unsupported media type), not 400; §4.3 and §4.4 list the formats without stating the refusal status',
  'native-no-alt':
    'the native interface keeps its one stream framing and refuses the alt query parameter with 400; Part 2 never names alt',
  'native-images-per-model':
    'the cheaper native generation model takes text only and refuses inline_data images, which the other model takes; §4.8 says how images are sent, not which models take them',
  'streaming-wav':
    'speech WAV (/v1/audio/speech and the native speech models) is written as a streaming encoder writes it, RIFF and data sizes 0xFFFFFFFF (unknown); §4.2 and §4.8 name WAV, not its header',
  'audio-upload-mib':
    'the 25 MB upload limit of transcription and translation is read as 25 MiB (26,214,400 bytes); §4.3, §4.4 and §8 write MB without saying which',
  'thinking-levels-per-model':
    'the cheaper native generation model takes thinkingLevel low and high but not medium, which the other model takes; §4.8 documents the values, not which model takes each',
  'native-thinking-first':
    'the native generation models spend 512 thinking tokens out of maxOutputTokens before any text (a cap spent on thinking alone answers a candidate without parts), and the cheaper one always thinks and refuses thinkingBudget 0 with 400; §4.8 gives thinkingBudget ("0 disables") without saying what thinking spends or which models may turn it off',
  'native-integer-strings':
    'the native interface takes an integer field written as a decimal string ("maxOutputTokens": "16"), as the provider schema\'s JSON mapping does; §4.8 types it integer without saying how a string is answered',
  'raw-synthesis-audio':
    'text:synthesize answers LINEAR16, MULAW and ALAW as raw samples, without a WAV header; §2.6 says Base64 audio, not its container',
  'synthesis-ceiling-5000':
    'text:synthesize takes input.text up to 5000 bytes; §4.9 says about 4000 bytes and §7 that the enforced ceiling is not specified',
  // search, ocr
  'search-ocr-min-tier-3':
    'p7-search, p5-search-advanced and the OCR model refuse a key below tier 3 (the main key is tier 2) with 403; Part 1 §1.5: "The tier sets rate limits and which models can be used (a model has min_tier)", §7: "403 no permission"',
  'ocr-alias-echoed':
    'the answer to the latest OCR alias names the alias as its model; §4.6: "a latest alias resolves to it", and what the answer\'s model echoes is not shown',
  'search-arrays-some-tools':
    'only the p3 and p5 tools search an array of queries; the others refuse one with 400; §4.5: "an array searches several queries on tools that support it"',
  'search-result-shape':
    'a search answers fewer results than max_results (at most 5), no dates, and extra fields on the answer and its items; §4.5 gives max_results as a maximum, §2.2 date as optional, Part 1 §9.2 allows new response fields',
  'search-unknown-tool-404':
    'an unknown search_tool_name in the body is a missing resource (404 model_not_found), as in the URL; §7 lists 400 for invalid parameters, Part 1 §7 404 for a resource missing',
  'search-limits-clamped':
    'max_results past 1 to 20 is clamped into the range, and a search_domain_filter past 20 domains searches the first 20; §4.5 gives "1 to 20" and "at most 20 domains" without saying what happens past them',
  'ocr-provider-shape':
    'OCR answers carry bounding boxes, block classes and confidence per page, and no document_annotation without a format; §2.3: "Other response fields (bounding boxes, block classes, confidence data) are not shown", document_annotation "present when document_annotation_format is used"',
  'ocr-tables-apart':
    'with table_format html, a page links its table from the markdown and carries the HTML in a tables array; §4.6 lists markdown and html without showing where a table goes',
} as const satisfies Record<string, string>

export type VariationName = keyof typeof VARIATIONS

/**
 * Requirements whose request-schema constraints a variation accepts past (gateway/request-validation.ts leaves them
 * out): only constraints whose refusal the words leave open, which test/unit/gateway/request-validation.test.ts keeps.
 */
export const VARIATION_RELAXES: Partial<Record<VariationName, readonly string[]>> = {
  'lenient-audio-fields': [
    'P2-4.2-speech-instructions-refused',
    'P2-4.2-speech-sse-refused',
    'P2-4.3-timestamps-refused',
  ],
  'lenient-enums': [
    'P2-4.2-speech-enums',
    'P2-4.3-format-unknown',
    'P2-4.8-thinking-config-refused',
    'P2-4.9-encodings-refused',
  ],
  'synthesis-any-rate': ['P2-4.9-sample-rates-refused'],
  'conversations-not-found': ['P1-4.5-conversation-exclusive'],
  'native-integer-strings': ['P2-4.8-max-output-tokens-refused'],
  'search-limits-clamped': ['P2-4.5-search-max-results-refused', 'P2-4.5-search-domain-filter-refused'],
}

export const VARIATION_NAMES = Object.keys(VARIATIONS) as VariationName[]

/**
 * The names real providers give the ids the reference writes with a neutral word, as the gateway answers them under
 * the `real-names` variation: reference name -> target name. The suite is told them through GATEWAY_NAMES.
 */
export const REAL_NAMES: Readonly<Record<string, string>> = {
  // videos
  'vidA-2': 'vela-motion-2',
  'vidA-2-pro': 'vela-motion-2-pro',
  'gen4.5': 'strata-gen-4.5',
  gen4_turbo: 'strata-gen-4-turbo',
  'vidB-3.1-generate-001': 'lumen-3.1-generate-001',
  'vidB-3.1-fast-generate-001': 'lumen-3.1-fast-generate-001',
  'vidB-3.1-generate-preview': 'lumen-3.1-generate-preview',
  'vidB-3.1-fast-generate-preview': 'lumen-3.1-fast-generate-preview',
  // audio, synthesize, native
  '<tts_flash_model>': 'nimbus-2.5-flash-tts',
  '<tts_pro_model>': 'nimbus-2.5-pro-tts',
  // search, ocr
  'p1-search': 'hawkeye-serp',
  'p2-search': 'lumen-web',
  'p3-search': 'parallax-search',
  'p4-search': 'brisk-search',
  'p5-search': 'quarry-search',
  'p6-search': 'delve-search',
  'p3-search-pro': 'parallax-search-pro',
  'p5-search-advanced': 'quarry-search-advanced',
  'p7-search': 'orbit-deep-search',
  '<ocr_model>': 'docuscan-ocr-2505',
  '<ocr_model>-latest': 'docuscan-ocr-latest',
}

export function toVariationSet(names: readonly string[]): ReadonlySet<VariationName> {
  const unknown = names.filter((n) => !(n in VARIATIONS))
  if (unknown.length > 0)
    throw new Error(
      `unknown variation ${unknown.join(', ')}; known: ${VARIATION_NAMES.join(', ') || '(none)'} (--variation list)`,
    )
  return new Set(names as VariationName[])
}

/** `--variation list`: one line per variation. */
export function describeVariations(): string {
  const width = Math.max(0, ...VARIATION_NAMES.map((n) => n.length))
  return VARIATION_NAMES.map((name) => `${name.padEnd(width)}  ${VARIATIONS[name]}`).join('\n')
}
