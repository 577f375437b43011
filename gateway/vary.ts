/**
 * Allowed variation (Part 1 §9.2): compatible changes that may appear without notice and that a correct client,
 * and so a correct conformance suite, must take in its stride. With `--vary` the reference gateway adds an
 * unknown property to every object of every JSON body and reverses the order of keys; its streams carry
 * unfamiliar event types and comments, CRLF line ends, and events split across writes.
 *
 * Maps are left alone: their keys are data, not properties (a new key in extra.rate_limits.tiers would claim a
 * tier that does not exist), and so are opaque values that a client sent and gets back (metadata, JSON Schemas).
 */

/** Keys whose value is a map or an echoed opaque document, not an object with properties. */
const LEAVE_ALONE = new Set(['tiers', 'scope_details', 'metadata', 'schema', 'parameters', 'properties', 'json_schema', 'arguments', 'input_schema', 'category_scores', 'categories', 'category_applied_input_types'])

export const VARY_PROPERTY = 'gc_unknown_property' // the added property; its value is an object, to test nesting too

export function varyJson(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => varyJson(item))
  if (value === null || typeof value !== 'object') return value
  if (key !== undefined && LEAVE_ALONE.has(key)) return value
  const entries = Object.entries(value as Record<string, unknown>).reverse().map(([k, v]): [string, unknown] => [k, varyJson(v, k)])
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

/** SSE text with CRLF line ends instead of LF (both are allowed by the SSE format). */
export function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n')
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
