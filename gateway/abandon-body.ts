/**
 * A multipart upload refused before its body was read to the end (a 429, a full quota, a bad field): what to do
 * with the rest of the body. Shared by every route that takes uploads (files, audio, videos).
 */
import type { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Bodies up to this size are read to their end and dropped rather than cut off. */
const SMALL_BODY_BYTES = 1024 * 1024
/** How long a refused upload's connection stays open after the answer, for the client to read it. */
export const LINGER_MS = 2_000

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
  // Node destroys the socket after a `connection: close` answer, so a client sending 128 MB learns of the refusal at
  // once and the gateway does not drain the rest; but not before the client could read the answer (below).
  request.raw.pause()
  reply.header('connection', 'close')
  lingerBeforeClosing(request.raw.socket)
}

/**
 * A lingering close (RFC 9112 §9.6). Closing a socket that still holds unread bytes makes the kernel send a reset
 * at once, which can destroy the answer before the client has read it: a client streaming a large upload then saw
 * EPIPE or ECONNRESET instead of the 400 (test/gateway/fuzz-uploads.test.ts, in one try out of two to four). So after the
 * answer, Node's close (`destroySoon`, called once a `connection: close` response has finished) only ends the
 * sending side, and the socket is destroyed LINGER_MS later: time for the client to read the answer and hang up.
 * Nothing more is read meanwhile; the client, its sending blocked, stops when it reads the answer.
 */
function lingerBeforeClosing(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end()
    const timer = setTimeout(() => this.destroy(), LINGER_MS)
    this.once('close', () => clearTimeout(timer))
  }
}
