/** The models faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { toIso } from '../clock.ts'
import { isObject } from '../../common/json.ts'
import { onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import type { ModelsFault } from './faults.ts'

const RETRIEVE = 'GET /v1/models/:model_id'

type Body = Record<string, unknown>

/** A reshape of the extra object of a retrieve, the Bearer one or the x-api-key one. */
function withExtra(bend: (extra: Body) => Body) {
  return onRoutes([RETRIEVE], (model) => (isObject(model.extra) ? { ...model, extra: bend(model.extra) } : model))
}

/** A reshape of extra.rate_limits.tiers of a retrieve. */
function withTiers(bend: (tiers: Body) => Body) {
  return withExtra((extra) => {
    const limits = extra.rate_limits
    return isObject(limits) && isObject(limits.tiers)
      ? { ...extra, rate_limits: { ...limits, tiers: bend(limits.tiers) } }
      : extra
  })
}

/**
 * The model faults that only reshape an answer (../faults/answers.ts). The lists are serialized once and cached, so the
 * faults of list items stay in the views they are built from; the faults of extra bend the retrieve's.
 */
export const MODELS_ANSWER_RESHAPES: AnswerReshapes<ModelsFault> = {
  'list-retrieve-disagree': withExtra((extra) =>
    isObject(extra.pricing) && typeof extra.pricing.input === 'number'
      ? { ...extra, pricing: { ...extra.pricing, input: extra.pricing.input * 2 } }
      : extra,
  ),
  'allowed-tier-missing': withTiers(({ 5: _five, ...tiers }) => tiers),
  'rate-limit-tiers-named': withTiers((tiers) =>
    Object.fromEntries(Object.entries(tiers).map(([tier, limits]) => [`tier_${tier}`, limits])),
  ),
  // The Bearer record, which has extra; the x-api-key record and --bare-models' keep their own created.
  'retrieve-created-iso': onRoutes([RETRIEVE], (model) =>
    model.object === 'model' && 'extra' in model ? { ...model, created: toIso(Number(model.created) * 1000) } : model,
  ),
  // The x-api-key record alone: its type tells it from the Bearer one.
  'alternate-retrieve-no-extra': onRoutes([RETRIEVE], (model) => {
    if (model.type !== 'model') return model
    const { extra: _extra, ...record } = model
    return record
  }),
}
