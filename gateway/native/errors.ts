/**
 * The native error dialect of /v1beta and /v1/text:synthesize: `{ error: { code, message, status } }`, code the
 * HTTP status as an integer and status a word such as INVALID_ARGUMENT (Part 2 section 7 gives it for speech
 * synthesis; the reference shows no /v1beta error body, so the native interface uses the same dialect, that of the
 * provider whose schema it carries).
 *
 * The shared hooks (authentication, rate limits) and the error handler answer in the compatible dialect of /v1;
 * rather than teach each of them a third dialect, these routes translate error bodies on the way out
 * (route-level preSerialization runs for every object payload of the route, whoever sent it).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'

export interface NativeErrorBody {
  error: { code: number; message: string; status: string }
}

const STATUS_WORDS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  // Text too large (section 7): the caller's argument is at fault, as with 400.
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
}

export function nativeError(status: number, message: string): NativeErrorBody {
  return { error: { code: status, message, status: STATUS_WORDS[status] ?? 'INTERNAL' } }
}

function compatibleMessage(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined
  const error = (payload as { error?: unknown }).error
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code !== 'number') {
    const message = (error as { message?: unknown }).message
    return typeof message === 'string' ? message : 'The request failed.'
  }
  return undefined
}

/** Route-level preSerialization: any error body of another dialect becomes the native one. */
export async function nativeErrorDialect(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (reply.statusCode < 400) return payload
  const message = compatibleMessage(payload)
  return message === undefined ? payload : nativeError(reply.statusCode, message)
}
