/** Tools and inline moderation on chat completions (Part 1 §4.7; Part 2 §4.7). */
import { describe } from 'vitest'
import { expectSuccess, expectThat, is2xx, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target } from '../../harness/worker/suite.ts'
import {
  CAPS,
  catalogueFixture,
  chat,
  completionOf,
  firstChoice,
  modelFor,
  SHORT_PROMPT,
  userMessage,
  WEATHER_PROMPT,
  WEATHER_TOOL,
} from './fixtures.ts'

const api = target()
const catalogue = catalogueFixture(api)
const toolModel = () => modelFor(catalogue, 'chat', (m) => m.functionCalling)

const withTools = memo(async () => {
  const model = await toolModel()
  return chat(api, {
    model: model.id,
    messages: [userMessage(WEATHER_PROMPT)],
    tools: [WEATHER_TOOL],
    max_completion_tokens: CAPS.toolCall,
  })
})

const toolRequired = memo(async () => {
  const model = await toolModel()
  return chat(api, {
    model: model.id,
    messages: [userMessage(WEATHER_PROMPT)],
    tools: [WEATHER_TOOL],
    tool_choice: 'required',
    max_completion_tokens: CAPS.toolCall,
  })
})

function parsesToObject(text: unknown): boolean {
  if (typeof text !== 'string') return false
  try {
    return isObject(JSON.parse(text))
  } catch {
    return false
  }
}

describe('tools (Part 1 §4.7)', () => {
  check('P1-4.7-chat-tools', 'a request with a function tool is accepted with the §2.6 shape', async () => {
    const ex = await withTools()
    // The shape itself is P1-2.6-chat-completion's to judge: here a completion of any shape is an acceptance.
    expectSuccess(ex)
    const choice = firstChoice(completionOf(ex))
    const message = choice.message as Record<string, unknown>
    observe(
      'chat tools (tool_choice unset)',
      `finish_reason ${String(choice.finish_reason)}; ${Array.isArray(message.tool_calls) ? `${message.tool_calls.length} tool call(s)` : 'no tool_calls'}`,
    )
  })

  check(
    'P1-4.7-chat-tool-calls',
    'tool_choice required answers a call of the tool with JSON arguments and finish_reason tool_calls',
    async () => {
      const plain = await withTools()
      precondition(is2xx(plain), 'P1-4.7-chat-tools', `a request with tools answered ${plain.status}`)
      const ex = await toolRequired()
      // tool_choice is not shown by §4.7: a refusal of it is this reading's failure, a warning.
      expectSuccess(ex)
      const choice = firstChoice(completionOf(ex))
      const message = choice.message as Record<string, unknown>
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []
      // A reasoning model can spend the budget thinking (§4.5 rule 7): a cut answer says nothing of tool choice.
      if (calls.length === 0 && choice.finish_reason === 'length')
        skipTest(
          `the answer ran out of max_completion_tokens ${CAPS.toolCall} before any tool call (finish_reason length)`,
        )
      const fn = isObject(calls[0]?.function) ? (calls[0].function as Record<string, unknown>) : undefined
      expectThat(
        calls.length > 0,
        'message.tool_calls with at least one call',
        `message ${JSON.stringify(message).slice(0, 300)}`,
        ex,
      )
      expectThat(
        fn?.name === WEATHER_TOOL.function.name,
        `a call of ${WEATHER_TOOL.function.name}`,
        `function ${JSON.stringify(fn).slice(0, 200)}`,
        ex,
      )
      expectThat(
        parsesToObject(fn?.arguments),
        'arguments: the text of a JSON object',
        `arguments ${JSON.stringify(fn?.arguments)}`,
        ex,
      )
      expectThat(
        choice.finish_reason === 'tool_calls',
        'finish_reason tool_calls',
        `finish_reason ${JSON.stringify(choice.finish_reason)}`,
        ex,
      )
    },
  )
})

describe('inline moderation (Part 1 §4.7; Part 2 §4.7)', () => {
  check(
    'P1-4.7-chat-moderation',
    'a request with moderation { model } is accepted; where the result appears is recorded',
    async () => {
      const [model, moderation] = await Promise.all([modelFor(catalogue, 'chat'), modelFor(catalogue, 'moderation')])
      const ex = await chat(api, {
        model: model.id,
        messages: [userMessage(SHORT_PROMPT)],
        moderation: { model: moderation.id },
        max_completion_tokens: CAPS.answer,
      })
      expectSuccess(ex)
      const body = completionOf(ex)
      const result = body.moderation
      observe(
        'chat inline moderation',
        result === undefined
          ? 'no moderation field on the completion'
          : `moderation: ${JSON.stringify(result).slice(0, 300)}`,
      )
    },
  )
})
