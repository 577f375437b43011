/**
 * saturation is a workload file (saturation.yaml): closed-loop GET /v1/models and a non-streamed POST
 * /v1/responses with the highest tier's key. This names it for code that runs it directly (npm run bench).
 */
import type { Profile } from './profile.ts'
import { workloadProfile } from '../workload-plan.ts'
import { builtInWorkload } from './workload-files.ts'

export function saturationProfile(): Profile {
  return workloadProfile(builtInWorkload('saturation'))
}

export const SATURATION = {
  /** The connections of its phases, as the file says. */
  connections: builtInWorkload('saturation').phases[0]?.connections as number,
}
