/** The chat faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { isObject } from '../../common/json.ts'
import { onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import { eachEvent, type EventReshapes } from '../faults/events.ts'
import type { ChatFault } from './faults.ts'

const COMPLETIONS = 'POST /v1/chat/completions'

/**
 * The chat faults that only reshape an answer (../faults/answers.ts). A stream never passes through here: a fault that bends
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

export const CHAT_ANSWER_RESHAPES: AnswerReshapes<ChatFault> = {
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

/** The chat faults that only bend a stream's events (../faults/events.ts); a cut stream acts in the writer. */
/** Whether a chunk carries a non-null finish_reason. */
function finishes(body: Record<string, unknown>): boolean {
  return (
    Array.isArray(body.choices) && body.choices.some((c: unknown) => isObject(c) && typeof c.finish_reason === 'string')
  )
}

export const CHAT_STREAM_RESHAPES: EventReshapes<ChatFault> = {
  'chat-stream-chunk-no-object': eachEvent(({ data: { object: _object, ...data }, ...event }) => ({ ...event, data })),
  'chat-stream-finish-twice': eachEvent((event) => (finishes(event.data) ? [event, event] : event)),
  'chat-stream-no-done': (events) => events.filter((event) => event.data !== '[DONE]'),
  'chat-length-reported-as-stop': eachEvent((event) => ({ ...event, data: lengthAsStop(event.data) })),
  'chat-total-tokens-off': eachEvent((event) => ({ ...event, data: withUsage(event.data, totalOff) })),
}
