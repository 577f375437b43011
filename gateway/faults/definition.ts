/** The shape of one named fault of the reference gateway. */
export interface FaultDefinition<Name extends string = string> {
  readonly name: Name
  /** One line: what the fault does to the gateway. */
  readonly description: string
  /** Requirement ids the fault breaks. */
  readonly breaks: readonly string[]
  /** For date-dependent rules: the as-of date (YYYY-MM-DD) the suite must judge the fault at. */
  readonly asOf?: string
}
