/** Every profile by name: `npm run load -- --list` prints this; a --profile that names a file is read from it. */
import { TIERS, type Profile } from './profile.ts'
import { isProfileFile } from '../workload.ts'
import { workloadProfile } from '../workload-plan.ts'
import { backoffProfile } from './backoff.ts'
import { capacityProfile } from './capacity.ts'
import { BUILT_IN_FILES, builtInWorkload, profileFromFile } from './workload-files.ts'
import { statedLimitsProfile } from './stated-limits.ts'
import { tierFilesProfile } from './tier-files.ts'
import { tierModelProfile } from './tier-model.ts'
import { tierUsageProfile } from './tier-usage.ts'

export function allProfiles(): Profile[] {
  const files = BUILT_IN_FILES.map((name) => workloadProfile(builtInWorkload(name)))
  return [
    ...TIERS.map(tierUsageProfile),
    ...TIERS.map(tierModelProfile),
    ...TIERS.map(tierFilesProfile),
    ...files.filter((p) => p.name !== 'mixed'),
    backoffProfile(),
    capacityProfile(),
    statedLimitsProfile(),
    ...files.filter((p) => p.name === 'mixed'),
  ]
}

/** A built-in profile by name, or a workload file (a value with a slash, or ending in .json, .yaml or .yml). */
export function profileNamed(name: string): Profile | undefined {
  if (isProfileFile(name)) return profileFromFile(name)
  return allProfiles().find((p) => p.name === name)
}
