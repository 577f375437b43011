/**
 * Inline moderation on responses and chat completions (Part 2 §4.7; Part 1 §2.7, §4.5, §4.7): the request's
 * moderation object {model} asks for results covering input and output, and a result can be an error object
 * instead of scores, so a client checks each result's type. Stated: a response object carries them in
 * moderation.input and moderation.output (§2.7); each result is a result with flagged or an error. Not shown:
 * where a chat completion carries them (SHOULD: the same moderation member), the inline result's full shape
 * (SHOULD: §2.4's categories and scores), and whether an image given to a text-only moderation model gets an
 * error result or a refused request (recorded). Inline moderation is offered "where enabled" (§4.5): a 400 to a
 * moderated request, or an answer without the moderation member, shows it not enabled, which is not observed,
 * never a failure; the results, where present, are judged.
 */
import { describe } from 'vitest'
import { expectThat, notObserved, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { withRoomForReasoning } from '../responses/fixtures.ts'
import { BENIGN_TEXT, catalogueFixture, chatModel, IMAGE_DATA_URL, OMNI_MODELS, TEXT_MODELS } from './fixtures.ts'

const api = target()
const catalogue = catalogueFixture(api)
const CAP = 48 // output tokens: a short answer is all moderation needs

const PROMPT = 'In two sentences, describe a quiet morning at a lighthouse.'

/** Tool text a moderation model would flag if it read it (§4.7: it must not). */
const VIOLENT_TOOL = {
  type: 'function',
  name: 'attack_and_kill_target',
  description: 'Attack the target with a bomb and kill everyone nearby; shoot anyone who runs.',
  parameters: {
    type: 'object',
    properties: { weapon: { type: 'string', description: 'the gun or bomb used to kill the target' } },
    required: ['weapon'],
    additionalProperties: false,
  },
  strict: true,
}

interface Case {
  what: string
  ex: Exchange
}

const responseText = memo(async () => {
  const model = await chatModel(catalogue)
  // The output result needs output: a reasoning model is given room for its reasoning first (Part 1 §4.5 rule 7).
  return withRoomForReasoning((budget) =>
    api.post('/v1/responses', {
      model: model.id,
      input: PROMPT,
      moderation: { model: OMNI_MODELS[0] },
      max_output_tokens: budget,
      store: false,
    }),
  )
})

/** Undefined when no chat model of the caller takes images. */
const responseImage = memo(async () => {
  const model = (await catalogue()).chat.find((m) => m.vision)
  if (model === undefined) return undefined
  const input = [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: BENIGN_TEXT },
        { type: 'input_image', image_url: IMAGE_DATA_URL },
      ],
    },
  ]
  return api.post('/v1/responses', {
    model: model.id,
    input,
    moderation: { model: TEXT_MODELS[0] },
    max_output_tokens: CAP,
    store: false,
  })
})

const chatText = memo(async () => {
  const model = await chatModel(catalogue)
  return api.post('/v1/chat/completions', {
    model: model.id,
    messages: [{ role: 'user', content: PROMPT }],
    moderation: { model: OMNI_MODELS[0] },
    max_completion_tokens: CAP,
  })
})

const chatImage = memo(async () => {
  const model = (await catalogue()).chat.find((m) => m.vision)
  if (model === undefined) return undefined
  const content = [
    { type: 'text', text: BENIGN_TEXT },
    { type: 'image_url', image_url: { url: IMAGE_DATA_URL } },
  ]
  return api.post('/v1/chat/completions', {
    model: model.id,
    messages: [{ role: 'user', content }],
    moderation: { model: TEXT_MODELS[0] },
    max_completion_tokens: CAP,
  })
})

/** The moderation member of a 200 answer; undefined (recorded) for a refusal, which "where enabled" allows. */
function moderationOf(c: Case): Record<string, unknown> | undefined {
  if (c.ex.status !== 200) {
    observe('inline moderation refused', `${c.what}: ${c.ex.status} ${c.ex.text.slice(0, 200)}`)
    return undefined
  }
  const body = c.ex.json
  const moderation = isObject(body) ? body.moderation : undefined
  observe(
    'inline moderation',
    `${c.what}: ${moderation === undefined ? 'no moderation member' : JSON.stringify(moderation).slice(0, 300)}`,
  )
  return isObject(moderation) ? moderation : undefined
}

function isError(result: unknown): boolean {
  return isObject(result) && 'error' in result && result.flagged === undefined
}

/** The results of one side: one result, or those wrapped in a results array (the shape is not shown beyond flagged). */
function unwrapped(result: unknown): unknown[] {
  return isObject(result) && Array.isArray(result.results) && result.flagged === undefined ? result.results : [result]
}

describe('inline moderation results (Part 2 §4.7)', () => {
  check(
    'P2-4.7-inline-result-type',
    'each inline result on responses and chat completions is a result with flagged or an error object',
    async () => {
      const [rText, rImage, cText, cImage] = await Promise.all([
        responseText(),
        responseImage(),
        chatText(),
        chatImage(),
      ])
      if (rImage === undefined)
        observe('inline moderation of an image', 'no chat model of this key takes images: the image cases are left out')
      const cases: Case[] = [
        { what: `a response moderated by ${OMNI_MODELS[0]}`, ex: rText },
        ...(rImage ? [{ what: `a response with an image moderated by ${TEXT_MODELS[0]}`, ex: rImage }] : []),
        { what: `a chat completion moderated by ${OMNI_MODELS[0]}`, ex: cText },
        ...(cImage ? [{ what: `a chat completion with an image moderated by ${TEXT_MODELS[0]}`, ex: cImage }] : []),
      ]
      let judged = 0
      for (const c of cases) {
        const moderation = moderationOf(c)
        if (moderation === undefined) continue
        for (const side of ['input', 'output'] as const) {
          // Which sides are present is P1-2.7-moderation's and P2-4.7-inline-chat's to judge; a null output result
          // stands for no output to moderate (a reasoning model may give none).
          if (moderation[side] === undefined || moderation[side] === null) continue
          judged += 1
          const outcome = schemas().validate('moderation/inline-result.json', moderation[side])
          expectThat(
            outcome.ok,
            `${c.what}: moderation.${side} is an error object or a result with a boolean flagged`,
            `${JSON.stringify(moderation[side]).slice(0, 300)}`,
            c.ex,
          )
          if (isError(moderation[side]))
            observe(
              'inline moderation error result',
              `${c.what}: moderation.${side} ${JSON.stringify(moderation[side]).slice(0, 200)}`,
            )
        }
      }
      if (judged === 0)
        notObserved(
          'no moderated request was answered with inline results (inline moderation is offered where enabled, Part 1 §4.5)',
        )
    },
  )

  check(
    'P2-4.7-inline-chat',
    'a moderated chat completion carries moderation with input and output results',
    async () => {
      const c = { what: 'a chat completion moderated by omni-moderation-latest', ex: await chatText() }
      if (c.ex.status === 400 || c.ex.status === 403)
        notObserved(
          `inline moderation was refused with ${c.ex.status} (offered where enabled): ${c.ex.text.slice(0, 200)}`,
        )
      expectThat(c.ex.status === 200, 'status 200', String(c.ex.status), c.ex)
      const moderation = moderationOf(c)
      if (moderation === undefined)
        notObserved('the moderated chat completion carries no moderation member: inline moderation is not enabled')
      expectThat(
        moderation.input !== undefined && moderation.output !== undefined,
        'a moderation member with input and output',
        JSON.stringify(isObject(c.ex.json) ? c.ex.json.moderation : undefined)?.slice(0, 300) ?? 'no moderation member',
        c.ex,
      )
    },
  )

  check(
    'P2-4.7-inline-scores',
    'a non-error inline result of a response carries the thirteen categories and scores from 0 to 1',
    async () => {
      const c = { what: 'a response moderated by omni-moderation-latest', ex: await responseText() }
      const moderation = moderationOf(c)
      if (moderation === undefined)
        notObserved(`no inline results to read (status ${c.ex.status}): inline moderation is offered where enabled`)
      for (const side of ['input', 'output'] as const) {
        for (const result of unwrapped(moderation[side])) {
          if (!isObject(result) || isError(result)) continue
          const problems = [
            ...schemas()
              .validate('moderation/category-map.json', result.categories)
              .errors.map((e) => `categories${e.slice(1)}`),
            ...schemas()
              .validate('moderation/category-map.json', result.category_scores)
              .errors.map((e) => `category_scores${e.slice(1)}`),
            ...schemas()
              .validate('moderation/scores.json', result.category_scores)
              .errors.map((e) => `category_scores${e.slice(1)}`),
          ]
          expectThat(
            problems.length === 0,
            `moderation.${side}: categories and category_scores over the thirteen categories of §2.4, scores 0 to 1`,
            problems,
            c.ex,
          )
        }
      }
    },
  )

  check(
    'P2-4.7-tools-not-inspected',
    'tools with violent names, descriptions and schemas leave the input result unchanged',
    async () => {
      const plain = { what: 'a moderated response without tools', ex: await responseText() }
      const base = moderationOf(plain)
      if (base === undefined) notObserved('no inline results to compare: inline moderation is offered where enabled')
      const baseInput = unwrapped(base.input)[0]
      if (!isObject(baseInput) || isError(baseInput)) skipTest('no inline input result with scores to compare against')
      const model = await chatModel(catalogue, (m) => m.functionCalling)
      const ex = await api.post('/v1/responses', {
        model: model.id,
        input: PROMPT,
        tools: [VIOLENT_TOOL],
        tool_choice: 'none',
        moderation: { model: OMNI_MODELS[0] },
        max_output_tokens: CAP,
        store: false,
      })
      const withTools = moderationOf({ what: 'the same response with a violent-sounding tool', ex })
      const toolsInput = withTools === undefined ? undefined : unwrapped(withTools.input)[0]
      precondition(
        isObject(toolsInput),
        'P2-4.7-inline-result-type',
        `the request with tools gave no inline input result (status ${ex.status})`,
      )
      const a = baseInput
      const b = toolsInput
      const differences: string[] = []
      if (a.flagged !== b.flagged)
        differences.push(`flagged ${String(a.flagged)} without tools, ${String(b.flagged)} with`)
      for (const [name, value] of Object.entries(isObject(a.categories) ? a.categories : {})) {
        const other = isObject(b.categories) ? b.categories[name] : undefined
        if (other !== value)
          differences.push(`categories/${name}: ${String(value)} without tools, ${String(other)} with`)
      }
      for (const [name, value] of Object.entries(isObject(a.category_scores) ? a.category_scores : {})) {
        const other = isObject(b.category_scores) ? b.category_scores[name] : undefined
        if (typeof value === 'number' && typeof other === 'number' && Math.abs(value - other) > 0.01)
          differences.push(`category_scores/${name}: ${value} without tools, ${other} with`)
      }
      expectThat(
        differences.length === 0,
        'the same input result with and without the tools (moderation does not inspect tools)',
        differences,
        ex,
      )
    },
  )
})
