/**
 * The choices the reference leaves open on the responses endpoint, made as real providers make them
 * (../variations.ts). The routes ask these once per request and otherwise read as the reference says.
 */
import { GatewayError } from '../errors.ts'
import type { VariationName } from '../variations.ts'

type Variations = ReadonlySet<VariationName>

/** More than a short answer's budget (the suites give 96 tokens), as a reasoning model may think. */
const LONG_REASONING_TOKENS = 128

/** The model that, under `logprobs-model-dependent` and `temperature-to-1`, takes less than the table's ranges. */
export const NARROW_MODEL = 'gw-chat-mini'

/** The gateway's own response ids: resp_ and 32 hex digits (generation.ts). */
const ISSUED_FORM = /^resp_[0-9a-f]{32}$/

/** Whether an id has the form of the ids this gateway issues; one of another form it never issued. */
export function hasIssuedForm(id: string): boolean {
  return ISSUED_FORM.test(id)
}

export interface ResponseChoices {
  /** §3, §4.5: background true runs as a background job "when supported"; without it, in the foreground. */
  background: boolean
  /** §4.5: truncation auto "drops oldest items": whole ones, refusing one item alone over the window. */
  wholeItemTruncation: boolean
  /** Rule 7: hidden reasoning tokens every model spends before any text, as reasoning models do. */
  thinkFirst: number
  /** §4.5: the moderation object is offered "where enabled"; without it, accepted and ignored. */
  inlineModeration: boolean
  /** Bends a rendered response object: §2.7 calls output_text a convenience, which a target may leave out. */
  shape: (response: Record<string, unknown>) => Record<string, unknown>
  /** The refusal of a retrieval by an id this gateway never issued (§9.2: ids are opaque). */
  unknownId: (id: string) => GatewayError | undefined
  /** Rule 1 states no status for n (`n-unknown-422`), and flex "may time out up to 900 seconds" (`flex-times-out`). */
  bodyRefusal: (body: Record<string, unknown>) => GatewayError | undefined
  /** A conversation given on a request: where persistent conversations are not enabled, it names nothing (§7: 404). */
  conversation: (body: Record<string, unknown>) => GatewayError | undefined
  /** §2.7 shows inline results only as "each with flagged": under `inline-results-wrapped`, in a results array. */
  inlineShape: (moderation: Record<string, unknown>) => Record<string, unknown>
  /** §4.5: features are model dependent; one model refusing logprobs, or a temperature above 1, as some do. */
  modelRefusal: (model: string, body: Record<string, unknown>) => GatewayError | undefined
}

function narrowModelRefusal(variations: Variations, body: Record<string, unknown>): GatewayError | undefined {
  const toolParameter = ['tool_choice', 'parallel_tool_calls'].find((name) => body[name] !== undefined)
  if (variations.has('tool-choice-flags') && toolParameter !== undefined)
    return new GatewayError(400, `The model '${NARROW_MODEL}' does not take ${toolParameter}.`, {
      code: 'unsupported_parameter',
      param: toolParameter,
    })
  const wantsLogprobs =
    (body.top_logprobs !== undefined && body.top_logprobs !== null) ||
    (Array.isArray(body.include) && body.include.includes('message.output_text.logprobs'))
  if (variations.has('logprobs-model-dependent') && wantsLogprobs)
    return new GatewayError(400, `The model '${NARROW_MODEL}' does not return logprobs.`, {
      code: 'unsupported_parameter',
      param: 'top_logprobs',
    })
  if (variations.has('temperature-to-1') && typeof body.temperature === 'number' && body.temperature > 1)
    return new GatewayError(400, `temperature for '${NARROW_MODEL}' is from 0 to 1; got ${body.temperature}.`, {
      code: 'invalid_value',
      param: 'temperature',
    })
  return undefined
}

export function responseChoices(variations: Variations): ResponseChoices {
  const noOutputText = variations.has('no-output-text')
  return {
    background: !variations.has('no-background'),
    wholeItemTruncation: variations.has('whole-item-truncation'),
    thinkFirst: variations.has('long-reasoning') ? LONG_REASONING_TOKENS : 0,
    inlineModeration: !variations.has('no-inline-moderation'),
    shape: noOutputText ? ({ output_text: _text, ...response }) => response : (response) => response,
    unknownId: (id) =>
      variations.has('opaque-response-ids') && !hasIssuedForm(id)
        ? new GatewayError(400, `Invalid response id '${id}': not an id this service issues.`, {
            code: 'invalid_response_id',
            param: 'response_id',
          })
        : undefined,
    bodyRefusal: (body) => {
      if (variations.has('n-unknown-422') && body.n !== undefined)
        return new GatewayError(422, 'Unknown parameter: n.', { code: 'unknown_parameter', param: 'n' })
      if (variations.has('flex-times-out') && body.service_tier === 'flex')
        return new GatewayError(504, 'The flex request timed out in the queue; try again later.', {
          code: 'timeout',
          param: 'service_tier',
        })
      return undefined
    },
    conversation: (body) =>
      variations.has('conversations-not-found') && typeof body.conversation === 'string'
        ? new GatewayError(404, `No conversation '${body.conversation}'.`, {
            code: 'conversation_not_found',
            param: 'conversation',
          })
        : undefined,
    inlineShape: variations.has('inline-results-wrapped')
      ? ({ input, output, ...rest }) => ({ ...rest, input: { results: [input] }, output: { results: [output] } })
      : (moderation) => moderation,
    modelRefusal: (model, body) => (model === NARROW_MODEL ? narrowModelRefusal(variations, body) : undefined),
  }
}
