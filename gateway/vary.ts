/**
 * Allowed variation (Part 1 §9.2): compatible changes that may appear without notice and that a correct client,
 * and so a correct conformance suite, must take in its stride. With `--vary` the reference gateway adds an
 * unknown property to every object of every JSON body and reverses the order of keys; its streams open with a BOM,
 * a comment and a retry: field, carry id: fields, unfamiliar event types and comments, CRLF and CR-only line ends,
 * events split across writes, and an unknown event and a keep-alive comment after their terminal event.
 *
 * Opaque ids (file-…, resp_…, chatcmpl-…) take another format on the way out and are turned back on the way in
 * (URL and JSON body), so a client that stores and sends them back, as it must, never notices; one that parses
 * them does (§9.2: do not rely on opaque id formats).
 *
 * Headers vary too: past the x-request-id cut-off (§9.4) an unrelated x-request-id appears, as an intermediary
 * may add one, and a 429 comes without Retry-After, which only "may accompany" it (§4.1, §7). Every call is
 * routed `latencyMs` later, as through a slow network or a busy upstream, so that a client's timing assumptions show.
 *
 * Maps are left alone: their keys are data, not properties (a new key in extra.rate_limits.tiers would claim a
 * tier that does not exist), and so are opaque values that a client sent and gets back (metadata, JSON Schemas).
 */

import { randomBytes } from 'node:crypto'
import type { FastifyReply } from 'fastify'

export const VARY_DEFAULTS = {
  latencyMs: 300, // before a routed call's route runs: a slow network or a busy upstream
}

/** Keys whose value is a map or an echoed opaque document, not an object with properties. */
const LEAVE_ALONE = new Set([
  'tiers',
  'scope_details',
  'metadata',
  'schema',
  'parameters',
  'properties',
  'json_schema',
  'arguments',
  'input_schema',
  'category_scores',
  'categories',
  'category_applied_input_types',
])

export const VARY_PROPERTY = 'gc_unknown_property' // the added property; its value is an object, to test nesting too

/** The gateway's own opaque ids: a known prefix, a separator and hex. UUIDs (svc-request-id) are not among them. */
const OWN_ID = /^([a-z]+)([-_])([0-9a-f]{16,64})$/
const VARIED_ID = /^gcv2\.([a-z]+)\.([-_])\.([A-Za-z0-9_-]+)$/
const ID_KEY = /(^|_)id$|^(first|last|after|before)(_id)?$/

/** An opaque id in the other format: same information, different shape. */
export function varyId(id: string): string {
  const m = OWN_ID.exec(id)
  if (m === null) return id
  return `gcv2.${m[1]}.${m[2]}.${Buffer.from(m[3] as string, 'hex').toString('base64url')}`
}

/** Back to the gateway's own format; anything else is returned as it is. */
export function unvaryId(text: string): string {
  const m = VARIED_ID.exec(text)
  if (m === null) return text
  return `${m[1]}${m[2]}${Buffer.from(m[3] as string, 'base64url').toString('hex')}`
}

/** Every varied id inside a URL's path segments and query values, turned back. */
export function unvaryUrl(url: string): string {
  return url.replace(/gcv2\.[a-z]+\.[-_]\.[A-Za-z0-9_-]+/g, (id) => unvaryId(id))
}

/** Every varied id inside a parsed JSON request body, turned back. */
export function unvaryJson(value: unknown): unknown {
  if (typeof value === 'string') return unvaryId(value)
  if (Array.isArray(value)) return value.map(unvaryJson)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, unvaryJson(v)]))
}

export function varyJson(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => varyJson(item, key))
  if (typeof value === 'string') return key !== undefined && ID_KEY.test(key) ? varyId(value) : value
  if (value === null || typeof value !== 'object') return value
  if (key !== undefined && LEAVE_ALONE.has(key)) return value
  const entries = Object.entries(value as Record<string, unknown>)
    .reverse()
    .map(([k, v]): [string, unknown] => [k, varyJson(v, k)])
  return Object.fromEntries([[VARY_PROPERTY, { added: 'by --vary', nested: [1, 'two'] }], ...entries])
}

/** A JSON body varied, or the text unchanged when it is not JSON. */
export function varyJsonText(text: string): string {
  try {
    return JSON.stringify(varyJson(JSON.parse(text)))
  } catch {
    return text
  }
}

/** The unfamiliar event a varied stream interleaves (§9.2: new stream event types may appear). */
export const VARY_EVENT = { name: 'gc.unknown_event', data: { type: 'gc.unknown_event', note: 'added by --vary' } }

/** What a varied stream opens with: a BOM, a comment and a retry: field, before any event (the SSE format allows each). */
export const VARY_OPENING = '\uFEFF: gc stream opened by --vary\nretry: 3000\n\n'

/** What a varied stream ends with, after its terminal event: an event of an unknown type and a keep-alive comment. */
export const VARY_CLOSING = `event: ${VARY_EVENT.name}\ndata: ${JSON.stringify(VARY_EVENT.data)}\n\n: ping\n\n`

/** SSE text with CRLF line ends, or CR-only ones, by turns (the SSE format allows LF, CRLF and CR). */
export function lineEnds(text: string, turn: number): string {
  return text.replace(/\r?\n/g, turn % 2 === 0 ? '\r\n' : '\r')
}

/** Cuts text at awkward places (inside a field name, between CR and LF) so that an event spans several writes. */
export function awkwardPieces(text: string): string[] {
  if (text.length < 4) return [text]
  const cuts = [1, Math.floor(text.length / 2), text.indexOf('\n') > 0 ? text.indexOf('\n') : text.length - 1]
  const sorted = [...new Set(cuts)].filter((c) => c > 0 && c < text.length).sort((a, b) => a - b)
  const pieces: string[] = []
  let from = 0
  for (const cut of sorted) {
    pieces.push(text.slice(from, cut))
    from = cut
  }
  pieces.push(text.slice(from))
  return pieces
}

/** The x-request-id an intermediary adds past the cut-off (request-id.ts): unrelated to svc-request-id. */
export function proxyRequestId(): string {
  return `gc-proxy-${randomBytes(8).toString('hex')}`
}

/** A 429 without Retry-After, which only "may accompany" it (§4.1, §7). */
export function varyHeaders(reply: FastifyReply): void {
  if (reply.statusCode === 429) reply.removeHeader('retry-after')
}
