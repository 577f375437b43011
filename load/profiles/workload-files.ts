/**
 * The profiles that are workload files (load/workload.ts): the ones written as data in this folder, and any file
 * a user names with --profile. The tier profiles and backoff stay code: they derive their phases from the limits
 * the target announces, or drive a retry policy.
 */
import { readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Profile, ProfileListing } from './profile.ts'
import { readWorkload, type Workload } from '../workload.ts'
import { workloadProfile } from '../workload-plan.ts'

const HERE = fileURLToPath(new URL('.', import.meta.url))

/** The sample a user copies (its header says so): --list ends with it, after the profiles that are code. */
const SAMPLE = 'mixed'

/** Every workload file of this folder is a built-in profile, named as the file: a new one is a file, nothing else. */
function builtInNames(): string[] {
  return readdirSync(HERE)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => file.slice(0, -'.yaml'.length))
    .sort()
}

export const PROFILES: ProfileListing[] = [
  {
    order: 40,
    make: () =>
      builtInNames()
        .filter((name) => name !== SAMPLE)
        .map(builtInProfile),
  },
  { order: 80, make: () => [builtInProfile(SAMPLE)] },
]

export function builtInWorkload(name: string): Workload {
  return readWorkload(resolve(HERE, `${name}.yaml`))
}

function builtInProfile(name: string): Profile {
  return workloadProfile(builtInWorkload(name))
}

/** A profile from a file a user names (relative to the working folder). */
export function profileFromFile(path: string): Profile {
  return workloadProfile(readWorkload(resolve(path)))
}
