/** The generation phase's size and seed: `--generate-runs` and `--generate-seed`, or the config file's `generate`. */
export interface GenerateSettings {
  /** Cases of each kind per route (positive, negative, boundary); 0 turns the phase off. */
  runs: number
  /** The same seed sends the same cases. */
  seed: number
}

export const GENERATE_DEFAULTS: GenerateSettings & { maxRuns: number; maxSeed: number } = {
  // A few cases of each kind per route: a default run adds a minute or two against a slow target, not an hour.
  runs: 3,
  // Fixed, so that two runs against one target compare; another seed explores other cases.
  seed: 1,
  maxRuns: 1000, // more is a typo: a thousand cases of each kind per route is a load test
  maxSeed: 2 ** 31 - 1,
}
