/**
 * The profiles that are workload files (load/workload.ts): the ones written as data in this folder, and any file
 * a user names with --profile. The tier profiles and backoff stay code: they derive their phases from the limits
 * the target announces, or drive a retry policy.
 */
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Profile } from './profile.ts'
import { readWorkload, type Workload } from '../workload.ts'
import { workloadProfile } from '../workload-plan.ts'

const HERE = fileURLToPath(new URL('.', import.meta.url))

/** Built-in workload files, in the order --list shows them. */
export const BUILT_IN_FILES = ['saturation', 'streaming', 'mixed'] as const

export function builtInWorkload(name: (typeof BUILT_IN_FILES)[number]): Workload {
  return readWorkload(resolve(HERE, `${name}.yaml`))
}

/** A profile from a file a user names (relative to the working folder). */
export function profileFromFile(path: string): Profile {
  return workloadProfile(readWorkload(resolve(path)))
}
