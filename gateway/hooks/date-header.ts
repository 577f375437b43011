/**
 * The HTTP Date header from the gateway clock. Node stamps responses with the host's time; under
 * --now that would disagree with the svc-request-id timestamps and the transaction times, so a client
 * that checks one against the other (a UUID v7 carries its creation time) reads the same clock.
 */
import type { FastifyReply } from 'fastify'
import type { GatewayState } from '../state.ts'

export function dateHeader(state: GatewayState) {
  // The header has whole-second resolution, so the text is formatted once per second, not per call.
  let second = Number.NaN
  let text = ''
  return (_request: unknown, reply: FastifyReply): void => {
    const now = Math.floor(Math.trunc(state.clock.now()) / 1000) // truncated first, as Date does
    if (now !== second) {
      second = now
      text = new Date(now * 1000).toUTCString()
    }
    reply.header('date', text)
  }
}
