/**
 * Where a generated case's finding is filed: the requirement that judges it. A negative case goes under its
 * constraint's x-refused-by (x-required-refused-by for a missing member), whose level then makes an accepted request
 * a failure or a warning; a constraint no requirement judges goes under the phase's own entry of its part, and a body
 * that is not JSON under the MUST of its part (or of the compatible routes). A boundary
 * goes under x-accepted-by; the seed request under the requirement that states its route (schemas/routes.json), other
 * positive cases under the phase's entry; with neither, the case is not run.
 */
import { type GeneratedCase, SEED_TITLE } from './cases.ts'

/** The phase's own requirements: a request that breaks a stated constraint is refused (a SHOULD, §7 of each part). */
export const PHASE_REQUIREMENTS = {
  1: 'P1-7-request-constraint-refused',
  2: 'P2-7-request-constraint-refused',
} as const

/** The refusal of a body that is not JSON (a MUST: 400, §7), by part; the compatible routes have their own. */
export const NOT_JSON_REQUIREMENTS = {
  1: 'P1-7-malformed-json',
  2: 'P2-7-malformed-json',
} as const

const COMPATIBLE_NOT_JSON: Readonly<Record<string, string>> = Object.fromEntries(
  [
    'POST /v1/images/generations',
    'POST /v1/images/edits',
    'POST /v1/embeddings',
    'POST /v1/completions',
    'POST /v1/messages',
  ].map((route) => [route, 'P1-7-compatible-malformed-json']),
)

export interface FilingContext {
  part: 1 | 2
  /** Whether the catalogue has an id: an annotation naming none is filed under the phase's entry. */
  known: (id: string) => boolean
  /** The requirement that states the route served, if the route table has it. */
  routeRequirement?: string
}

function negative(c: GeneratedCase, context: FilingContext): string {
  const phase = PHASE_REQUIREMENTS[context.part]
  if (c.keyword === 'json') return COMPATIBLE_NOT_JSON[c.route] ?? NOT_JSON_REQUIREMENTS[context.part]
  const constraint = c.constraint
  // x-refused-by judges the limits a field states; its type alone only where the field states nothing else.
  const own =
    c.keyword !== 'type' || constraint?.keywords.every((k) => k === 'type') === true ? constraint?.refusedBy : undefined
  return own !== undefined && context.known(own) ? own : phase
}

/** The requirement a case is filed under, or undefined when none judges it (the case is then not run). */
export function requirementOf(c: GeneratedCase, context: FilingContext): string | undefined {
  if (c.kind === 'negative') return negative(c, context)
  if (c.kind === 'boundary') {
    const id = c.constraint?.acceptedBy
    return id !== undefined && context.known(id) ? id : undefined
  }
  // The seed is the route's own request; one padded with optional values the words say little of (a language code,
  // a conversation) is judged at the phase's SHOULD, not at the MUST that states the route.
  return c.title === SEED_TITLE ? context.routeRequirement : PHASE_REQUIREMENTS[context.part]
}
