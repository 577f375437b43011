/** Faults of chat completions (Part 1 §1.5, §2.2, §2.5, §2.6, §4.7, §6, §7). See ../faults.ts for what a fault is. */
import { isObject } from '../../common/json.ts'
import { onRoutes, type AnswerReshapes } from './answers.ts'
import type { FaultDefinition } from './definition.ts'
import { eachEvent, type EventReshapes } from './events.ts'

export const CHAT_FAULTS = [
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

const COMPLETIONS = 'POST /v1/chat/completions'

/**
 * The chat faults that only reshape an answer (./answers.ts). A stream never passes through here: a fault that bends
 * the stream too has an event reshape as well (CHAT_STREAM_RESHAPES).
 */
/** A completion or chunk with its usage bent; a chunk's null usage is left alone. */
function withUsage(body: Record<string, unknown>, bend: (usage: Record<string, unknown>) => Record<string, unknown>) {
  return isObject(body.usage) ? { ...body, usage: bend(body.usage) } : body
}

/** A completion or chunk whose choices report a cut answer as stopped. */
function lengthAsStop(body: Record<string, unknown>) {
  const choices = body.choices
  if (!Array.isArray(choices)) return body
  const bent = choices.map((choice: unknown) =>
    isObject(choice) && choice.finish_reason === 'length' ? { ...choice, finish_reason: 'stop' } : choice,
  )
  return { ...body, choices: bent }
}

/** One more total_tokens than prompt_tokens plus completion_tokens. */
const totalOff = (usage: Record<string, unknown>) => ({ ...usage, total_tokens: Number(usage.total_tokens) + 1 })

export const CHAT_ANSWER_RESHAPES: AnswerReshapes = {
  'chat-length-reported-as-stop': onRoutes([COMPLETIONS], lengthAsStop),
  'chat-total-tokens-off': onRoutes([COMPLETIONS], (answer) => withUsage(answer, totalOff)),
  'chat-created-iso': onRoutes([COMPLETIONS], (answer) => ({
    ...answer,
    created: new Date(Number(answer.created) * 1000).toISOString(),
  })),
  'chat-usage-no-cached-tokens': onRoutes([COMPLETIONS], (answer) => {
    if (!isObject(answer.usage)) return answer
    const { prompt_tokens_details: _cached, ...usage } = answer.usage
    return { ...answer, usage }
  }),
}

/** The chat faults that only bend a stream's events (./events.ts); a cut stream acts in the writer. */
/** Whether a chunk carries a non-null finish_reason. */
function finishes(body: Record<string, unknown>): boolean {
  return (
    Array.isArray(body.choices) && body.choices.some((c: unknown) => isObject(c) && typeof c.finish_reason === 'string')
  )
}

export const CHAT_STREAM_RESHAPES: EventReshapes = {
  'chat-stream-chunk-no-object': eachEvent(({ data: { object: _object, ...data }, ...event }) => ({ ...event, data })),
  'chat-stream-finish-twice': eachEvent((event) => (finishes(event.data) ? [event, event] : event)),
  'chat-stream-no-done': (events) => events.filter((event) => event.data !== '[DONE]'),
  'chat-length-reported-as-stop': eachEvent((event) => ({ ...event, data: lengthAsStop(event.data) })),
  'chat-total-tokens-off': eachEvent((event) => ({ ...event, data: withUsage(event.data, totalOff) })),
}
