/**
 * The HTTP Date header from the gateway clock. Node stamps responses with the host's time; under
 * --now that would disagree with the svc-request-id timestamps and the transaction times, so a client
 * that checks one against the other (a UUID v7 carries its creation time) reads the same clock.
 */
import type { FastifyReply } from 'fastify'
import type { GatewayState } from '../state.ts'

export function dateHeader(state: GatewayState) {
  return (_request: unknown, reply: FastifyReply): void => {
    reply.header('date', new Date(state.clock.now()).toUTCString())
  }
}
