/**
 * The harness's own errors. A harness error means our tool (or its configuration, or the network path to the
 * target) broke; it is never reported as a conformance failure of the target. Codes are stable: scripts and
 * reports key on them.
 */
export type HarnessErrorCode =
  | 'CONFIG_INVALID' // a setting the user gave cannot be used; exit 2 with one line
  | 'TARGET_UNREACHABLE' // no TCP/TLS connection to the target at all
  | 'TARGET_UNHEALTHY' // the run stopped calling after a run of transport failures (harness/run-stop.ts)
  | 'RUN_DEADLINE' // the run's deadline passed before this call (harness/run-stop.ts)
  | 'SCHEMA_MISSING' // a test asked for a schema id that is not registered
  | 'REQUIREMENT_UNKNOWN' // a test names a requirement id that is not in the catalogue
  | 'KEY_MISSING_IN_CONFIG' // internal: a key slot was used that the run config does not hold
  | 'INTERNAL' // a bug in the harness

export class HarnessError extends Error {
  override readonly name = 'HarnessError'
  readonly code: HarnessErrorCode

  constructor(code: HarnessErrorCode, message: string, options?: { cause?: unknown }) {
    super(`[${code}] ${message}`, options)
    this.code = code
  }
}

/** A bad setting: the message is one line that says what to fix. */
export class ConfigError extends HarnessError {
  constructor(message: string) {
    super('CONFIG_INVALID', message)
    // The bracketed code helps in logs but not in the one line a user reads.
    this.message = message
  }
}

export function isHarnessError(error: unknown): error is HarnessError {
  return error instanceof Error && error.name === 'HarnessError'
}
