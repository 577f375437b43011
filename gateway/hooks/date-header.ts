/**
 * The HTTP Date header from the gateway clock. Node stamps responses with the host's time; under
 * --now that would disagree with the svc-request-id timestamps and the transaction times, so a client
 * that checks one against the other (a UUID v7 carries its creation time) reads the same clock.
 */
import type { FastifyReply } from 'fastify'

/** The onSend step; `now` is the gateway clock's time. */
export function dateHeader() {
  // The header has whole-second resolution, so the text is formatted once per second, not per call.
  let second = Number.NaN
  let text = ''
  return (_request: unknown, reply: FastifyReply, now: number): void => {
    const at = Math.floor(Math.trunc(now) / 1000) // truncated first, as Date does
    if (at !== second) {
      second = at
      text = new Date(at * 1000).toUTCString()
    }
    reply.header('date', text)
  }
}
