/**
 * Faults of chat completions (Part 1 §1.5, §2.2, §2.5, §2.6, §4.7, §6, §7). See ../faults/registry.ts for what a fault
 * is.
 */
import type { FaultDefinition } from '../faults/definition.ts'

export const CHAT_FAULTS = [
  {
    name: 'chat-malformed-json-500',
    breaks: ['P1-7-malformed-json'],
    description: 'POST /v1/chat/completions answers 500 instead of 400 to a body that is not valid JSON.',
  },
  {
    name: 'chat-created-iso',
    breaks: ['P1-2.6-chat-completion'],
    description: 'A (non-streamed) chat completion gives created as an ISO 8601 string instead of Unix seconds.',
  },
  {
    name: 'chat-usage-no-cached-tokens',
    breaks: ['P1-2.5-chat-usage'],
    description: 'The usage of a (non-streamed) chat completion has no prompt_tokens_details.',
  },
  {
    name: 'chat-length-reported-as-stop',
    breaks: ['P1-2.6-chat-finish-length'],
    description: 'A chat completion cut by max_completion_tokens reports finish_reason stop instead of length.',
  },
  {
    name: 'chat-developer-role-refused',
    breaks: ['P1-4.7-chat-instruction-roles'],
    description: 'Chat completions refuse any message with role developer (400).',
  },
  {
    name: 'chat-tools-refused',
    breaks: ['P1-4.7-chat-tools'],
    description: 'Chat completions refuse a request with a non-empty tools array (400).',
  },
  {
    name: 'chat-audio-refused',
    breaks: ['P1-4.7-chat-audio-fields'],
    description: 'The audio chat model refuses input_audio content with 400, as a text model does.',
  },
  {
    name: 'chat-audio-output-refused',
    breaks: ['P1-4.7-chat-audio-output'],
    description:
      "The audio chat model refuses modalities with audio and an assistant message's audio with 400, as a text model does.",
  },
  {
    name: 'chat-stream-cut',
    breaks: ['P1-6.4-chat-stream'],
    description: 'A streamed chat completion sends its first chunk, then ends in the middle of the second event.',
  },
  {
    name: 'chat-min-tier-ignored',
    breaks: ['P1-1.5-chat-min-tier'],
    description: "Chat completions serve models whose min_tier is above the caller's tier.",
  },
  {
    name: 'chat-total-tokens-off',
    breaks: ['P1-2.5-chat-total-tokens'],
    description: 'usage.total_tokens of a chat completion is one more than prompt_tokens plus completion_tokens.',
  },
  {
    name: 'chat-completion-over-budget',
    breaks: ['P1-4.7-chat-max-completion-tokens'],
    description: 'When max_completion_tokens runs out, usage.completion_tokens reports one token more than the budget.',
  },
  {
    name: 'chat-system-not-counted',
    breaks: ['P1-4.7-chat-instructions-counted'],
    description: 'The first system or developer message is not counted in prompt_tokens.',
  },
  {
    name: 'chat-tool-choice-ignored',
    breaks: ['P1-4.7-chat-tool-calls'],
    description: 'tool_choice is ignored: a request with tools is always answered in text.',
  },
  {
    name: 'chat-empty-messages-accepted',
    breaks: ['P1-7-chat-invalid-request'],
    description: 'A chat request with an empty messages array is served instead of refused.',
  },
  {
    name: 'chat-unknown-model-served',
    breaks: ['P1-7-chat-unknown-model'],
    description: 'A chat request naming a model that does not exist is served by the first chat model.',
  },
  {
    name: 'chat-transaction-stream-false',
    breaks: ['P1-2.2-chat-transaction-stream'],
    description: "A streamed chat call's transaction records stream false.",
  },
  {
    name: 'chat-transaction-tokens-off',
    breaks: ['P1-2.2-chat-transaction'],
    description: "A chat call's transaction records one prompt token more than the response's usage.",
  },
  {
    name: 'chat-moderation-refused',
    breaks: ['P1-4.7-chat-moderation'],
    description: 'A chat request with an inline moderation object is refused (400).',
  },
  {
    name: 'chat-stream-chunk-no-object',
    breaks: ['P1-6.4-chat-stream-chunks'],
    description: 'The chunks of a chat stream carry no object field.',
  },
  {
    name: 'chat-stream-finish-twice',
    breaks: ['P1-6.4-chat-stream-finish'],
    description: 'The chunk carrying finish_reason is sent twice.',
  },
  {
    name: 'chat-stream-no-done',
    breaks: ['P1-6.4-chat-stream-done'],
    description: 'A chat stream ends after its last chunk, without data: [DONE].',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the chat faults: what its rules and reshapes are typed by. */
export type ChatFault = (typeof CHAT_FAULTS)[number]['name']
