/**
 * The fault runs' defaults, apart from fault-runs.ts so that `faults --help`, which names them, loads no vitest.
 */
import type { KeySlot } from '../harness/keys.ts'
import { DEFAULTS } from '../harness/setup/config.ts'

export const FAULT_RUN_DEFAULTS = {
  // The rate-limit minute of the faulty gateways: the conformance run's. Shorter ones leave too few calls per window
  // when many runs share two cores; the tiers runs' waits are covered by their own lanes instead.
  minuteMs: DEFAULTS.embeddedMinuteMs,
  workers: 3, // runs side by side that use the CPU
  // Suite files of one run share one thread, which its lane keeps from run to run (harness/setup/kept-threads.ts): each
  // more thread loads the harness and its modules once more, for the few files of a fault's run that wait side by side.
  threadsPerRun: 1,
  waitingLanes: 12, // more runs side by side for the faults of the tiers family, which mostly wait for windows
  tierKeys: ['tier0', 'tier1'] as readonly KeySlot[], // a tiers fault's keys in scope files (keysFor)
}
