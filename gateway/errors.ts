/**
 * Error bodies. The gateway speaks two error dialects (Part 1 section 7):
 *
 * - compatible endpoints (/v1, /public, unknown routes): `{ error: { message, type, param, code } }`,
 *   the shape the reference gives for 429 and that the compatible convention uses everywhere; the
 *   reference does not show the 400, 404 and 500 bodies, so those reuse it;
 * - usage endpoints (/user/v1): `{ error: "<word>", message }`, as section 7 gives for 401, 403 and 429.
 *
 * Route handlers throw GatewayError; the error handler picks the dialect from the path. What the gateway throws
 * that is no answer to a call (a bad option, a broken limit table, a bug) is a SetupError with a stable code.
 */

export type ErrorFamily = 'compatible' | 'usage'

export interface CompatibleErrorBody {
  error: { message: string; type: string; param: string | null; code: string }
}

export interface UsageErrorBody {
  error: string
  message: string
}

export interface GatewayErrorDetails {
  /** `code` of the compatible body; defaults by status. */
  code?: string
  /** `param` of the compatible body: the request parameter at fault. */
  param?: string | null
  /** `type` of the compatible body; defaults by status. */
  type?: string
}

export class GatewayError extends Error {
  override name = 'GatewayError'

  readonly status: number
  readonly details: GatewayErrorDetails

  constructor(status: number, message: string, details: GatewayErrorDetails = {}) {
    super(message)
    this.status = status
    this.details = details
  }
}

/** 422 naming the parameter: a value past its range, as a validating framework refuses it (variation range-refusals-422). */
export function unprocessable(param: string, message: string): GatewayError {
  return new GatewayError(422, message, { param })
}

/** 400 naming the parameter to fix. */
export function invalidParameter(param: string, message: string): GatewayError {
  return new GatewayError(400, message, { param })
}

const COMPATIBLE_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
}

const COMPATIBLE_CODES: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'invalid_api_key',
  403: 'permission_denied',
  404: 'not_found',
  422: 'invalid_request',
  429: 'rate_limit_exceeded',
}

const USAGE_ERRORS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  422: 'invalid_request',
  429: 'rate_limit_exceeded',
}

export function compatibleError(
  status: number,
  message: string,
  details: GatewayErrorDetails = {},
): CompatibleErrorBody {
  return {
    error: {
      message,
      type: details.type ?? COMPATIBLE_TYPES[status] ?? 'server_error',
      param: details.param ?? null,
      code: details.code ?? COMPATIBLE_CODES[status] ?? 'internal_error',
    },
  }
}

export function usageError(status: number, message: string): UsageErrorBody {
  return { error: USAGE_ERRORS[status] ?? 'internal_error', message }
}

export function errorBody(family: ErrorFamily, error: GatewayError): CompatibleErrorBody | UsageErrorBody {
  return family === 'usage'
    ? usageError(error.status, error.message)
    : compatibleError(error.status, error.message, error.details)
}

/** Stable: scripts and tests key on them, so a code is never renamed or reused. */
export type SetupErrorCode =
  | 'OPTION_INVALID' // an option the user gave cannot be used; the CLI exits 2 with the message
  | 'FAULT_UNKNOWN' // a fault name that is not in the registry
  | 'LIMIT_TABLE_INVALID' // a table of schemas/limits/ lacks what the gateway reads from it
  | 'CATALOGUE_INVALID' // an entry of gateway/models/catalogue.json is not a model the gateway can serve
  | 'STORE_CLOSED' // a call reached a store after the gateway closed
  | 'LISTEN_FAILED' // the embedded gateway got no TCP address
  | 'INTERNAL' // a bug in the gateway

/** An error of the gateway itself, never an answer to a call: the message is what a user reads, the code what code decides on. */
export class SetupError extends Error {
  override readonly name: string = 'SetupError'

  readonly code: SetupErrorCode

  constructor(code: SetupErrorCode, message: string) {
    super(message)
    this.code = code
  }
}

/** A bad option: the message is one line that says what to fix. */
export class OptionError extends SetupError {
  override readonly name = 'OptionError'

  constructor(message: string) {
    super('OPTION_INVALID', message)
  }
}
