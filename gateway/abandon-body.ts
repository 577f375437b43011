/**
 * A multipart upload refused before its body was read to the end (a 429, a full quota, a bad field): what to do
 * with the rest of the body. Shared by every route that takes uploads (files, audio, videos).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Bodies up to this size are read to their end and dropped rather than cut off. */
const SMALL_BODY_BYTES = 1024 * 1024

export function abandonBody(request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.complete) return
  request.raw.unpipe()
  // A small body is read to its end and dropped, so that the connection stays usable and a client still
  // writing it gets the answer instead of a broken pipe (a burst of small uploads meeting its 429). A large one
  // is not worth reading: the connection is closed after the answer.
  const length = Number(request.headers['content-length'])
  if (Number.isFinite(length) && length <= SMALL_BODY_BYTES) {
    request.raw.resume()
    return
  }
  // Node destroys the socket after a `connection: close` answer, so a client sending 128 MB learns of the
  // refusal at once and the gateway does not drain the rest.
  request.raw.pause()
  reply.header('connection', 'close')
}
