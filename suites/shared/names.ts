/**
 * The names the reference writes with a neutral word (video models such as vidA-2, the search tools p1-search …,
 * <ocr_model>, <tts_flash_model>, <tts_pro_model>) as the target spells them: GATEWAY_NAMES (or --names) maps each
 * reference name to the target's. Every place a suite sends or expects one of them goes through here, so a target
 * with its makers' names is judged by the same checks. A name the user did not give and the target lacks is a skip
 * that says which variable to set, never a failure.
 */
import { skipTest } from '../../harness/worker/recorder.ts'
import { runConfig } from '../../harness/worker/suite.ts'

const NAMES_ENV = 'GATEWAY_NAMES'

/** The target's name for a reference name: the one the user gave, or the reference's own. */
export function targetName(referenceName: string): string {
  return runConfig().names?.[referenceName] ?? referenceName
}

/** Whether the user named this id for the target. */
export function isNamed(referenceName: string): boolean {
  return runConfig().names?.[referenceName] !== undefined
}

/** The reference name a target name stands for (the name itself when the user mapped nothing onto it). */
export function referenceNameOf(name: string): string {
  const entry = Object.entries(runConfig().names ?? {}).find(([, to]) => to === name)
  return entry?.[0] ?? name
}

/** The end of a skip reason: what makes the test run. */
export function howToNameId(referenceName: string): string {
  return `set ${NAMES_ENV} (or --names) with ${referenceName}=<the target's name for it>`
}

/**
 * The target's name for `referenceName` when the target has it (`present` says whether it listed or answered that
 * name); otherwise the test is skipped, naming the variable that would make it run.
 */
export function requireName(referenceName: string, present: (name: string) => boolean): string {
  const name = targetName(referenceName)
  if (!present(name))
    skipTest(
      `the target has no ${isNamed(referenceName) ? `"${name}" (named for ${referenceName})` : referenceName}: ${howToNameId(referenceName)}`,
    )
  return name
}
