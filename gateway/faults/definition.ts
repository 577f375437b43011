/** The shape of one named fault of the reference gateway. */
export interface FaultDefinition<Name extends string = string> {
  readonly name: Name
  /** One line: what the fault does to the gateway. */
  readonly description: string
  /** Requirement ids the fault breaks (empty for a fault only the load harness can see). */
  readonly breaks: readonly string[]
  /**
   * Load verdicts (load/types.ts VerdictId) the fault makes fail; test/load proves each against its profile.
   * A fault with no `breaks` must have these: it bends what only a sustained load shows.
   */
  readonly loadVerdicts?: readonly string[]
  /** For date-dependent rules: the as-of date (YYYY-MM-DD) the suite must judge the fault at. */
  readonly asOf?: string
  /**
   * A fault of the rate limiter: the suite must catch it whatever algorithm the buckets use, so it is proven against
   * the gateway under every --limiter, not only the default.
   */
  readonly limiter?: true
}
