/**
 * Which model a generation call may use (Part 1 sections 1.5, 2.3, 7). Shared by the chat and the other
 * compatible endpoints; each names the mode its models must have.
 *
 * - no `model`, or not a string: 400 naming the parameter (a gateway of many providers cannot route a call
 *   that names no model);
 * - an id the catalogue does not know: 404 model_not_found, as GET /v1/models/{model_id} answers;
 * - a model of another mode (an embedding model on chat): 400;
 * - a model whose min_tier is above the caller's tier: 403 (section 1.5: the tier sets which models can be
 *   used; section 7: 403 is "no permission").
 *
 * The call concerns the named model from the moment it names one, so its transaction records it even when
 * the call is refused.
 */
import type { TierRules } from '../hooks/rules.ts'
import { findModel, type CatalogueModel, type Mode } from './catalogue.ts'
import type { Caller, RequestContext } from '../context.ts'
import { GatewayError, invalidParameter } from '../errors.ts'

export interface ModelRules {
  /** The modes this endpoint serves; the first one names the kind in messages. */
  readonly modes: readonly Mode[]
  /** Words for messages, e.g. "chat completions". */
  readonly endpoint: string
}

export function requireModelId(body: Record<string, unknown>, param = 'model'): string {
  const id = body[param]
  if (id === undefined || id === null || id === '')
    throw invalidParameter(param, `${param} is required: the id of a model from GET /v1/models.`)
  if (typeof id !== 'string') throw invalidParameter(param, `${param} must be a string model id.`)
  return id
}

export function resolveModel(id: string, context: RequestContext, rules: ModelRules): CatalogueModel {
  context.model = id
  const model = findModel(id)
  if (!model)
    throw new GatewayError(404, `The model '${id}' does not exist.`, { code: 'model_not_found', param: 'model' })
  if (!rules.modes.includes(model.mode)) {
    throw new GatewayError(
      400,
      `The model '${id}' is a ${model.mode} model; ${rules.endpoint} need a ${rules.modes.join(' or ')} model.`,
      {
        code: 'model_not_supported',
        param: 'model',
      },
    )
  }
  // The model's own rate limits (section 8.3), installed by the rate-limit hook; may throw 429.
  context.admitModel?.(model)
  return model
}

/** Section 1.5: a model is usable from its min_tier up. Separate from resolveModel so that a rule can skip it. */
export function requireTier(model: CatalogueModel, caller: Caller, tiers?: TierRules): void {
  if (tiers?.checkMinTier === false) return
  if (caller.account.tier < model.minTier) {
    throw new GatewayError(
      403,
      `The model '${model.id}' needs account tier ${model.minTier}; this account is tier ${caller.account.tier}.`,
      {
        code: 'model_not_available',
        param: 'model',
      },
    )
  }
}

/** A JSON object body, or 400: every compatible endpoint takes a JSON object (Conventions of Part 1). */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError(400, 'The request body must be a JSON object.', { code: 'invalid_request' })
  }
  return body as Record<string, unknown>
}
