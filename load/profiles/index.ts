/** Every profile by name: `npm run load -- --list` prints this. */
import { TIERS, type Profile } from '../profile.ts'
import { backoffProfile } from './backoff.ts'
import { capacityProfile } from './capacity.ts'
import { saturationProfile } from './saturation.ts'
import { streamingProfile } from './streaming.ts'
import { tierFilesProfile } from './tier-files.ts'
import { tierModelProfile } from './tier-model.ts'
import { tierUsageProfile } from './tier-usage.ts'

export function allProfiles(): Profile[] {
  return [
    ...TIERS.map(tierUsageProfile),
    ...TIERS.map(tierModelProfile),
    ...TIERS.map(tierFilesProfile),
    saturationProfile(),
    streamingProfile(),
    backoffProfile(),
    capacityProfile(),
  ]
}

export function profileNamed(name: string): Profile | undefined {
  return allProfiles().find((p) => p.name === name)
}
