/**
 * Moderation (Part 2 §2.4, §4.7, §7, §8): POST /v1/moderations answers { id, model, results }, one result per
 * input, each with flagged, the thirteen categories, their scores and the input types each category was applied
 * to (image only for the six categories that take images).
 *
 * Faithful where the reference is explicit: input required (string, array of strings, content items); model
 * optional and one of the four named models or the hosted guard model; images only with the omni models (a
 * text-only model given an image: 400, §7's invalid request); a key required (401, or 403 for a suspended
 * account, from the auth hook); the four named models free, the guard model charged at its catalogue price.
 *
 * Reasonable where it is silent: the default model is omni-moderation-latest and the result's model is the id
 * the caller named (or that default); an unknown model is 404 model_not_found as elsewhere on /v1; the model's
 * own rate limits (Part 1 §8.3) are counted by resolveModel, and a call over them gets the compatible 429 of
 * Part 1 §7. Image size (20 MB upstream, "not confirmed for the service", §8) is not checked.
 */
import { randomBytes } from 'node:crypto'
import { isObject } from '../../common/json.ts'
import type { FastifyInstance } from 'fastify'
import { findModel, type CatalogueModel } from '../models/catalogue.ts'
import { chargeUsd } from '../account/billing.ts'
import type { AuthPolicy, RequestContext } from '../context.ts'
import { GatewayError, invalidParameter, usageError } from '../errors.ts'
import { objectBody, requireTier, resolveModel } from '../models/access.ts'
import { countTokens } from '../simulate/tokenizer.ts'
import type { GatewayState } from '../state.ts'
import { reshapeAnswers } from '../faults/answers.ts'
import { MODERATION_ANSWER_RESHAPES } from './reshapes.ts'
import { classify, type ModerationResult } from './classifier.ts'
import { DEFAULT_MODERATION_MODEL, parseModerationRequest, type ModerationRequest } from './request.ts'
import { moderationRules, type ModerationRules } from './rules.ts'

const MODERATION_RULES = { modes: ['moderation'], endpoint: 'moderations' } as const

/** Part 2 §4.7: these four are free; any other moderation model (the hosted guard model) has its own price. */
export const FREE_MODERATION_MODELS: ReadonlySet<string> = new Set([
  'omni-moderation-latest',
  'omni-moderation-2024-09-26',
  'text-moderation-latest',
  'text-moderation-stable',
])

export function registerModerationRoutes(app: FastifyInstance, state: GatewayState): void {
  // A scope of the family's own, so that its answer-reshaping faults apply to its routes alone.
  void app.register(async (scope) => {
    reshapeAnswers(scope, state.faults, MODERATION_ANSWER_RESHAPES)
    registerRoutes(scope, state, moderationRules(state.faults))
  })
}

function registerRoutes(app: FastifyInstance, state: GatewayState, rules: ModerationRules): void {
  const moreCategories = state.variations.has('moderation-more-categories')
  const imageUrlsOnly = state.variations.has('moderation-image-urls-only')
  // Without the key rule, calls without a valid key get through, served as the main account: the auth hook's own
  // 'optional' policy (that of unknown routes) still identifies a valid key, so those calls keep their limits.
  const auth = (rules.requireKey ? 'required' : 'optional') as AuthPolicy

  app.post('/v1/moderations', { config: { auth } }, async (request, reply) => {
    const context = state.contexts.of(request)
    const account = context.caller?.account ?? state.accounts.main()
    const given = objectBody(request.body)
    const odd = given.input != null && typeof given.input !== 'string' && !Array.isArray(given.input)
    const body = !rules.checkInputType && odd ? { ...given, input: JSON.stringify(given.input) } : given
    if (!rules.requireInput && body.input === undefined)
      return { id: newId(), model: DEFAULT_MODERATION_MODEL, results: [] }
    if (!rules.modelOptional && (body.model === undefined || body.model === null))
      throw invalidParameter('model', 'model is required.')
    const parsed = parseModerationRequest(body)
    if (imageUrlsOnly && parsed.inputs.some((input) => input.images.some((url) => url.startsWith('data:'))))
      throw invalidParameter('input', 'An image is taken by its http(s) URL, not as a data URL.')
    if (!rules.takesTextItems && textItemsOnly(body.input))
      throw invalidParameter('input', 'An array of content items needs an image_url item.')
    let model: CatalogueModel
    try {
      // resolveModel also counts the call against the model's own limits (Part 1 §8.3) and may refuse it with 429.
      model = pickModel(parsed.model ?? DEFAULT_MODERATION_MODEL, context, rules)
    } catch (error) {
      if (!(error instanceof GatewayError && error.status === 429 && !rules.compatible429)) throw error
      return reply.code(429).send(usageError(429, error.message))
    }
    requireTier(gatedModel(model, state), { account, keyForm: 'bearer' }, state.tiers)
    refuseModelOrInput(model, parsed, rules)

    const texts = parsed.inputs.flatMap((input) => input.texts)
    const tokens = texts.reduce((sum, text) => sum + countTokens(text), 0)
    context.tokens = { total: tokens, prompt: tokens, completion: 0, reasoning: 0, cached: 0 }
    // Charged when the work starts; the named models are free (§4.7).
    if (!FREE_MODERATION_MODELS.has(model.id)) chargeUsd(account, (tokens * model.pricing.input) / 1_000_000)
    else if (rules.namedModelUsdPerCall > 0) chargeUsd(account, rules.namedModelUsdPerCall)

    const results = parsed.inputs.map(classify)
    return { id: newId(), model: model.id, results: moreCategories ? results.map(withFurtherCategory) : results }
  })
}

/** An array of content items that are all text items. */
function textItemsOnly(input: unknown): boolean {
  return Array.isArray(input) && input.length > 0 && input.every((item) => isObject(item) && item.type === 'text')
}

/** A model the rules do not serve, or an image the model does not take: 400. */
function refuseModelOrInput(model: CatalogueModel, parsed: ModerationRequest, rules: ModerationRules): void {
  if (rules.refusedNamedModels.includes(model.id) || (!rules.servesGuardModel && !FREE_MODERATION_MODELS.has(model.id)))
    throw invalidParameter('model', `The model '${model.id}' is not available.`)
  const takesImages = model.supports.supports_vision === true && !rules.omniRefusingImages.includes(model.id)
  if (parsed.hasImage && !takesImages && rules.textModelsRefuseImages) {
    throw new GatewayError(400, `The model '${model.id}' takes text only; images need an omni moderation model.`, {
      code: 'image_input_not_supported',
      param: 'input',
    })
  }
}

/** Under `moderation-min-tier-3`: the models a provider may keep from lower tiers (Part 1 §1.5: "a model has min_tier"). */
const GATED_MODELS: ReadonlySet<string> = new Set(['text-moderation-stable', 'gw-guard-1'])

function gatedModel(model: CatalogueModel, state: GatewayState): CatalogueModel {
  return state.variations.has('moderation-min-tier-3') && GATED_MODELS.has(model.id)
    ? { ...model, minTier: Math.max(model.minTier, 3) as CatalogueModel['minTier'] }
    : model
}

function newId(): string {
  return `modr-${randomBytes(12).toString('hex')}`
}

function pickModel(id: string, context: RequestContext, rules: ModerationRules): CatalogueModel {
  if (!rules.refuseUnknownModel && !findModel(id)) return findModel(DEFAULT_MODERATION_MODEL) as CatalogueModel
  return resolveModel(id, context, MODERATION_RULES)
}

/** A category beyond the thirteen of §2.4, as a provider's own classifier may add one (§9.2: new fields may appear). */
const FURTHER_CATEGORY = 'profanity'

function withFurtherCategory(result: ModerationResult): Record<string, unknown> {
  return {
    ...result,
    categories: { ...result.categories, [FURTHER_CATEGORY]: false },
    category_scores: { ...result.category_scores, [FURTHER_CATEGORY]: 0.0001 },
    category_applied_input_types: { ...result.category_applied_input_types, [FURTHER_CATEGORY]: ['text'] },
  }
}
