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
}
