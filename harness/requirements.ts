/** The requirement catalogue (`schemas/requirements.json`): one entry per testable rule of the reference. */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { HarnessError } from './errors.ts'

export type Level = 'MUST' | 'SHOULD'

/**
 * What a requirement judges: a stated input served (acceptance), a call refused (refusal), the fields of an answer
 * (shape), response headers (header), server-sent events (stream), what later calls see (state), the account's
 * records of calls (record), a rate, usage or quota limit (limit), a time bound (timing), a charge (cost), or the
 * target's choice, recorded and never judged (observation). test/unit/harness/levels.test.ts holds MUST refusals
 * and timings to their words.
 */
export const KINDS = [
  'acceptance',
  'refusal',
  'shape',
  'header',
  'stream',
  'state',
  'record',
  'limit',
  'timing',
  'cost',
  'observation',
] as const
export type Kind = (typeof KINDS)[number]

export interface Requirement {
  id: string
  part: 1 | 2
  section: string
  see?: string[]
  family: string
  level: Level
  kind: Kind
  rule: string
  /**
   * The reference's own words the rule rests on, verbatim: one excerpt, or several joined by " … ". Shown beside
   * every failure, so a reader can judge the verdict against the text without looking it up.
   */
  quote?: string
  /** For SHOULD: what is inferred, and why it is not a MUST. */
  why?: string
  /**
   * Why no test can check this rule (say, a shape the reference does not show). Such a requirement may have no
   * test without failing the coverage self-test, and a run reports it as untestable rather than as unchecked.
   */
  untestable?: string
  /**
   * On a MUST the level test would misjudge: why the words state it although the quote lacks the word the test
   * looks for (a refusal deduced from "Required: yes" and §7's "400 invalid request", say).
   */
  levelNote?: string
}

const REQUIREMENTS_PATH = fileURLToPath(new URL('../schemas/requirements.json', import.meta.url))

let cache: Map<string, Requirement> | undefined

export function loadRequirements(path: string = REQUIREMENTS_PATH): Map<string, Requirement> {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { requirements: Requirement[] }
  const map = new Map<string, Requirement>()
  for (const requirement of raw.requirements) {
    if (map.has(requirement.id))
      throw new HarnessError('INTERNAL', `duplicate requirement id ${requirement.id} in the catalogue`)
    // An empty reason would let a rule drop out of coverage without anyone saying why.
    if (
      requirement.untestable !== undefined &&
      (typeof requirement.untestable !== 'string' || requirement.untestable.trim().length < 10)
    ) {
      throw new HarnessError('INTERNAL', `requirement ${requirement.id}: "untestable" must give the reason in words`)
    }
    if (!KINDS.includes(requirement.kind))
      throw new HarnessError('INTERNAL', `requirement ${requirement.id}: "kind" must be one of ${KINDS.join(', ')}`)
    map.set(requirement.id, requirement)
  }
  return map
}

/**
 * MUST requirements that nothing checks and that the catalogue does not mark untestable: what the coverage
 * self-test and `--list-requirements` call out. `checked` says whether a test or an audit checks an id.
 */
export function uncheckedMust(requirements: Iterable<Requirement>, checked: (id: string) => boolean): Requirement[] {
  return [...requirements].filter((r) => r.level === 'MUST' && r.untestable === undefined && !checked(r.id))
}

export function requirements(): Map<string, Requirement> {
  cache ??= loadRequirements()
  return cache
}

export function requirement(id: string): Requirement {
  const found = requirements().get(id)
  if (found === undefined)
    throw new HarnessError('REQUIREMENT_UNKNOWN', `requirement ${id} is not in schemas/requirements.json`)
  return found
}

/** "Part 1 §4.1" with the other sections it leans on. */
export function citation(req: Requirement): string {
  const see = req.see?.length ? ` (see also §${req.see.join(', §')})` : ''
  return `Part ${req.part} §${req.section}${see}`
}

export function families(): string[] {
  return [...new Set([...requirements().values()].map((r) => r.family))].sort()
}
