/**
 * The models the user named per capability (GATEWAY_MODELS or --models). The catalogue's own fields (mode,
 * min_tier, pricing) find models by default; a target whose list lacks them, or a user who wants one model
 * tested, names it here, and the suites that need the capability use that model first. A capability that has
 * neither skips its tests, saying which key to set.
 */
import type { Capability } from '../../harness/setup/config.ts'
import { runConfig } from '../../harness/worker/suite.ts'

const MODELS_ENV = 'GATEWAY_MODELS'

export function namedModel(capability: Capability): string | undefined {
  return runConfig().models[capability]
}

/** Orders a list by whether a model is one of `named`, named first; otherwise keeps `then`'s order. */
export function namedFirst<T extends { id: string }>(
  byMode: Record<string, string | undefined>,
  then: (a: T, b: T) => number,
): (a: T, b: T) => number {
  const ids = new Set(Object.values(byMode))
  return (a, b) => Number(ids.has(b.id)) - Number(ids.has(a.id)) || then(a, b)
}

/** The end of a skip reason: what makes the test run. */
export function howToName(capability: Capability): string {
  return `set ${MODELS_ENV} (or --models) with ${capability}=<model id>`
}

/**
 * A model list with each named model first, carrying the mode its capability stands for, whether the target
 * lists it with another mode, without one, or not at all; the fields it lists otherwise stay.
 */
export function withNamedModels(
  items: Record<string, unknown>[],
  byMode: Record<string, string | undefined>,
): Record<string, unknown>[] {
  const named = Object.entries(byMode).filter((entry): entry is [string, string] => entry[1] !== undefined)
  const front = named.map(([mode, id]) => ({ ...items.find((item) => item.id === id), id, mode }))
  const ids = new Set(named.map(([, id]) => id))
  return [...front, ...items.filter((item) => !ids.has(String(item.id)))]
}
