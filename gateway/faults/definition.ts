/**
 * What every family's faults are made of, below them all: the shape of a fault, the set switched on, and `bentBy`.
 * It imports no family, so a family's faults.ts and rules.ts import it and the registry above imports them.
 */

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
  /**
   * Requirements (a subset of `breaks`) whose request-schema constraints the fault no longer refuses past: the
   * gateway's validator leaves them out (gateway/request-validation.ts), so the fault is a patch of the schema.
   */
  readonly relaxes?: readonly string[]
}

/**
 * The faults switched on for one gateway, by name. Below the families, so it knows no family's names: a rule reads
 * it through `bentBy`, typed by its family's names, and the registry checks names when the set is made.
 */
export type FaultSet = ReadonlySet<string>

/**
 * Whether a fault is on, for a rules module: typed by the names it is given (its family's, from its faults.ts), so a
 * rule names no other family's fault and a typo fails to compile. With no names given it takes none.
 */
export function bentBy<Name extends string = never>(faults: FaultSet): (fault: Name) => boolean {
  return (fault) => faults.has(fault)
}
