/**
 * Every error the harness throws on purpose. Two kinds, never confused: a conformance failure is the target
 * breaking a rule (ConformanceFailure, or TargetFailure at the transport level); a harness error means our tool,
 * its configuration or the network path to the target broke, and is never reported as the target's failure.
 */
import type { ExchangeExcerpt } from './exchange.ts'

/** Stable: scripts and reports key on them, so a code is never renamed or reused. */
type HarnessErrorCode =
  | 'CONFIG_INVALID' // a setting the user gave cannot be used; exit 2 with one line
  | 'TARGET_UNREACHABLE' // no TCP/TLS connection to the target at all
  | 'TARGET_UNHEALTHY' // the run stopped calling after a run of transport failures (harness/setup/run-stop.ts)
  | 'RUN_DEADLINE' // the run's deadline passed before this call (harness/setup/run-stop.ts)
  | 'SCHEMA_MISSING' // a test asked for a schema id that is not registered
  | 'REQUIREMENT_UNKNOWN' // a test names a requirement id that is not in the catalogue
  | 'INTERNAL' // a bug in the harness

/** The message is what a user reads; the code is for code that decides what to do. */
export class HarnessError extends Error {
  override readonly name = 'HarnessError'
  readonly code: HarnessErrorCode

  constructor(code: HarnessErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

/** A bad setting: the message is one line that says what to fix. */
export class ConfigError extends HarnessError {
  constructor(message: string) {
    super('CONFIG_INVALID', message)
  }
}

export function isHarnessError(error: unknown): error is HarnessError {
  return error instanceof Error && error.name === 'HarnessError'
}

/** A target that answered wrongly at the transport level: too slow, a broken connection, an oversized body. */
export class TargetFailure extends Error {
  override readonly name = 'TargetFailure'
  readonly excerpt: ExchangeExcerpt

  constructor(message: string, excerpt: ExchangeExcerpt) {
    super(message)
    this.excerpt = excerpt
  }
}

/** What a failed check expected and saw, and the exchange it saw it in: worker/failure.ts renders it. */
export interface FailureDetails {
  expected: string
  seen: string | string[]
  exchange?: ExchangeExcerpt
}

/** The target broke a rule; the message follows the failure contract (harness/worker/failure.ts renders it). */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure'
  readonly details: FailureDetails

  constructor(details: FailureDetails, message: string) {
    super(message)
    this.details = details
  }
}

/**
 * The names of errors that are the target's failure, as a reporter sees them once vitest has serialized them:
 * ours, and a plain vitest expect() in a suite. Any other error in a test is a harness error.
 */
export const FAILURE_NAMES: ReadonlySet<string> = new Set(['ConformanceFailure', 'AssertionError'])

/** An error as one line of a report; a harness error's code leads its message, so reports can be searched by it. */
export function errorLine(error: { name?: string; message: string; code?: unknown }): string {
  const message =
    error.name === 'HarnessError' && typeof error.code === 'string' ? `[${error.code}] ${error.message}` : error.message
  return `${error.name ?? 'Error'}: ${message}`
}
