/**
 * The fault registry. A fault is a small, named deviation from the reference that the self-tests
 * switch on (`--fault NAME`) to prove that the conformance suite notices it: each one breaks exactly
 * the requirements listed in `breaks` (ids of schemas/requirements.json; a test checks they exist).
 *
 * Each family names its faults in its own room (<family>/faults.ts; hooks/<family>-faults.ts for the families that
 * judge every route); this list sits above them, the shared types and `bentBy` below them (./definition.ts), so no
 * import runs in a circle. A fault that only reshapes a correct answer (its body, not what is stored, counted,
 * limited or timed) is a reshape in its family's reshapes.ts (hooks/<family>-reshapes.ts), applied after the route
 * has answered (faults/answers.ts, events.ts, reply-headers.ts), so the route reads as the reference says. Any
 * other fault bends a value of its family's rules (<family>/rules.ts; hooks/rules.ts for the families that judge
 * every route): plain values derived once from the fault set when the routes are registered or the hooks made, each
 * key named for the reference's rule beside a comment naming the fault that bends it. The code that reads them says
 * what the reference says, and no route tests a fault by name.
 */

import { ACCOUNT_FAULTS } from '../account/faults.ts'
import { AUDIO_FAULTS } from '../audio/faults.ts'
import { CHAT_FAULTS } from '../chat/faults.ts'
import { COMPATIBLE_FAULTS } from '../compatible/faults.ts'
import { SetupError } from '../errors.ts'
import { FILES_FAULTS } from '../files/faults.ts'
import { AUTH_FAULTS } from '../hooks/auth-faults.ts'
import { HEADERS_FAULTS } from '../hooks/headers-faults.ts'
import { TIERS_FAULTS } from '../hooks/tiers-faults.ts'
import { MODELS_FAULTS } from '../models/faults.ts'
import { MODERATION_FAULTS } from '../moderation/faults.ts'
import { NATIVE_FAULTS } from '../native/faults.ts'
import { OCR_FAULTS } from '../ocr/faults.ts'
import { RESPONSES_FAULTS } from '../responses/faults.ts'
import { SEARCH_FAULTS } from '../search/faults.ts'
import { SYNTHESIZE_FAULTS } from '../synthesize/faults.ts'
import { UNAVAILABLE_FAULTS } from '../unavailable/faults.ts'
import { VIDEOS_FAULTS } from '../videos/faults.ts'
import type { FaultDefinition } from './definition.ts'

export type { FaultDefinition, FaultSet } from './definition.ts'

/**
 * Every fault, by the family (of schemas/ and suites/) it belongs to; a new family adds its room's faults.ts and one
 * entry here.
 */
const FAULTS_BY_FAMILY = {
  headers: HEADERS_FAULTS,
  auth: AUTH_FAULTS,
  models: MODELS_FAULTS,
  account: ACCOUNT_FAULTS,
  files: FILES_FAULTS,
  responses: RESPONSES_FAULTS,
  chat: CHAT_FAULTS,
  unavailable: UNAVAILABLE_FAULTS,
  compatible: COMPATIBLE_FAULTS,
  tiers: TIERS_FAULTS,
  moderation: MODERATION_FAULTS,
  audio: AUDIO_FAULTS,
  native: NATIVE_FAULTS,
  synthesize: SYNTHESIZE_FAULTS,
  search: SEARCH_FAULTS,
  ocr: OCR_FAULTS,
  videos: VIDEOS_FAULTS,
} as const satisfies Readonly<Record<string, readonly FaultDefinition[]>>

export type FaultFamily = keyof typeof FAULTS_BY_FAMILY

/** The families that have faults: every family of the catalogue (test/ci/family-rooms.test.ts). */
export const FAULT_FAMILIES = Object.keys(FAULTS_BY_FAMILY) as readonly FaultFamily[]

const FAULT_TABLE = Object.values(FAULTS_BY_FAMILY).flat()

export type FaultName = (typeof FAULT_TABLE)[number]['name']

/** The registry, in a stable order. Typed loosely (breaks as strings, asOf optional on every entry) for readers. */
export const FAULTS: readonly FaultDefinition<FaultName>[] = FAULT_TABLE

/** The faults a conformance run can see: `npm run faults` and the fault proof run these. */
export const CONFORMANCE_FAULTS: readonly FaultDefinition<FaultName>[] = FAULTS.filter(
  (fault) => fault.breaks.length > 0,
)

/** The faults that load verdicts must see: test/load proves these. */
export const LOAD_FAULTS: readonly FaultDefinition<FaultName>[] = FAULTS.filter(
  (fault) => (fault.loadVerdicts?.length ?? 0) > 0,
)

export const FAULT_NAMES: readonly FaultName[] = FAULTS.map((fault) => fault.name)

const FAMILY_OF = new Map<string, FaultFamily>(
  Object.entries(FAULTS_BY_FAMILY).flatMap(([family, faults]) =>
    faults.map((fault) => [fault.name, family as FaultFamily] as const),
  ),
)

/** The family whose faults.ts defines the fault. */
export function familyOf(name: FaultName): FaultFamily {
  return FAMILY_OF.get(name)!
}

export function isFaultName(name: string): name is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(name)
}

/** Checks names against the registry; the error names every valid fault so the fix is in the message. */
export function toFaultSet(names: readonly string[]): ReadonlySet<FaultName> {
  const unknown = names.filter((name) => !isFaultName(name))
  if (unknown.length > 0) {
    throw new SetupError(
      'FAULT_UNKNOWN',
      `unknown fault ${unknown.map((name) => `'${name}'`).join(', ')}; valid faults: ${FAULT_NAMES.join(', ')}`,
    )
  }
  return new Set(names as readonly FaultName[])
}

/**
 * The registry as text, one fault per line, for `--fault list`: its name, family, what it breaks and what it does.
 * This is the one place the descriptions are read from, so the README points here instead of copying them.
 */
export function describeFaults(): string {
  const width = Math.max(...FAULT_NAMES.map((name) => name.length))
  const familyWidth = Math.max(...Object.keys(FAULTS_BY_FAMILY).map((family) => family.length))
  return FAULTS.map((fault) => {
    const asOf = fault.asOf === undefined ? '' : ` (judge as of ${fault.asOf})`
    const breaks =
      fault.breaks.length > 0
        ? `breaks ${fault.breaks.join(', ')}`
        : `load verdicts ${(fault.loadVerdicts ?? []).join(', ')}`
    return `${fault.name.padEnd(width)}  ${familyOf(fault.name).padEnd(familyWidth)}  ${breaks}${asOf}: ${fault.description}`
  }).join('\n')
}
