/**
 * Reading multipart/form-data bodies (files, audio and video uploads): two guards around the parser (busboy,
 * under @fastify/multipart), so that a malformed body is a 400 rather than a hang or a crash.
 */
import { GatewayError } from './errors.ts'

/**
 * Options for every `request.parts()`. busboy hangs for good on a part it skips (a part whose headers name no
 * field) when more than the part stream's high-water mark of it arrives in one write together with the form's
 * end: the part ends with its buffer over the mark, busboy waits for a read that never comes, and the call never
 * answers. Socket reads hand the parser at most 64 KiB at a time, so a mark of 1 MiB keeps every write below it.
 */
export const PARSER_OPTIONS = { fileHwm: 1024 * 1024 } as const

/**
 * A malformed form (no boundary, a part cut short, the closing delimiter missing) is reported by busboy as a bare
 * Error with no status, which the error handler would take for the gateway's own failure: a 500 for the caller's
 * malformed request. Readers of forms pass what they catch through here: a 400 for a parser error; anything else
 * unchanged: GatewayErrors and Fastify's errors (which carry their status), system errors such as a full disk
 * (which carry a `code` and stay a 500), and errors of other classes (TypeError, RangeError: the gateway's own).
 */
export function formError(error: unknown): unknown {
  if (error instanceof GatewayError || !(error instanceof Error) || error.constructor !== Error) return error
  if ('statusCode' in error || 'code' in error) return error
  return new GatewayError(400, `The multipart/form-data body could not be read: ${error.message}.`)
}
