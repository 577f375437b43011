/** Unavailable and planned-surface rules (Part 1 §1.6, §2.9, §3, §4.9, §8.5); a planned-* fault offers its surface. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { UnavailableFault } from './faults.ts'

export type UnavailableRules = Readonly<ReturnType<typeof unavailableRules>>

export function unavailableRules(faults: FaultSet) {
  const bent = bentBy<UnavailableFault>(faults)
  return {
    // Section 1.6: a planned route answers the JSON unsupported-route error; the fault answers a plain-text 404 page.
    unsupportedRouteJson: !bent('planned-route-plain-text'),
    // Section 4.9: a batch targets one of the listed endpoints; the fault takes any.
    checkBatchEndpoint: !bent('planned-batch-endpoint-unchecked'),
    // Part 2 section 4.1: batches of videos are not available, though §4.9 lists /v1/videos; the fault takes them.
    refuseVideoBatches: !bent('planned-batch-videos-accepted'),
    // Section 4.9: completion_window is 24h; the fault takes any number of hours.
    anyBatchWindow: bent('planned-batch-window-48h'),
    // Section 8.5: a batch's metadata holds at most 16 pairs; the fault takes more.
    checkBatchMetadataPairs: !bent('planned-batch-metadata-unchecked'),
    // Section 4.9: the batch list's limit is 1 to 100; the fault takes any.
    checkBatchListLimit: !bent('planned-batch-list-limit-unchecked'),
    // Section 4.9: an assistant's name, description, instructions and tools have limits; the fault takes any.
    checkAssistantLimits: !bent('planned-assistant-limits-unchecked'),
    // Section 4.9: a thread message has role user; the fault takes any role.
    threadMessagesUserOnly: !bent('planned-threads-any-role'),
    // Section 3: a new job is validating; the fault reports validating_files, which is not a planned status.
    newJobStatus: bent('planned-fine-tuning-job-malformed') ? 'validating_files' : 'validating',
    // Section 4.9: a suffix is at most 64 characters; the fault takes any length.
    checkSuffix: !bent('planned-fine-tuning-suffix-unchecked'),
  }
}
