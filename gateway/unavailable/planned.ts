/**
 * What the planned surfaces share (Part 1 sections 4.9 and 8.5): ids, body and metadata reading, list paging.
 * These surfaces are unavailable in the reference gateway (section 1.6); they are served only under the
 * `planned-*` faults, which prove that the suite judges a target that does offer them. See routes.ts.
 */
import { randomBytes } from 'node:crypto'
import { GatewayError, invalidParameter } from '../errors.ts'
import { isObject } from '../../common/json.ts'
import { mapEdgesOf } from '../../common/request-schemas.ts'

/**
 * Section 8.5: metadata holds 16 pairs, keys of at most 64 characters, values of at most 512. The planned surfaces
 * have no request schema of their own; the rule is the one the responses request schema states for its metadata.
 */
export const METADATA_EDGES = mapEdgesOf('POST /v1/responses', 'body', 'metadata')

export function plannedId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`
}

export function requestBody(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw new GatewayError(400, 'The request body must be a JSON object.')
  return body
}

/** Metadata checked against section 8.5, or (checkPairs false, for a fault) with any number of pairs. */
export function readMetadata(value: unknown, options: { checkPairs?: boolean } = {}): Record<string, string> {
  if (value === undefined || value === null) return {}
  if (!isObject(value)) throw invalidParameter('metadata', 'metadata must be an object of string values.')
  const entries = Object.entries(value)
  if ((options.checkPairs ?? true) && entries.length > METADATA_EDGES.pairs)
    throw invalidParameter('metadata', `metadata holds at most ${METADATA_EDGES.pairs} pairs; got ${entries.length}.`)
  for (const [key, v] of entries) {
    if (key.length > METADATA_EDGES.keyChars)
      throw invalidParameter(
        'metadata',
        `metadata keys are at most ${METADATA_EDGES.keyChars} characters; '${key.slice(0, 20)}…' has ${key.length}.`,
      )
    if (typeof v !== 'string' || v.length > METADATA_EDGES.valueChars)
      throw invalidParameter(
        'metadata',
        `metadata values are strings of at most ${METADATA_EDGES.valueChars} characters (key '${key}').`,
      )
  }
  return Object.fromEntries(entries) as Record<string, string>
}

export function requiredString(body: Record<string, unknown>, name: string): string {
  const value = body[name]
  if (typeof value !== 'string' || value === '')
    throw invalidParameter(name, `${name} is required: a non-empty string.`)
  return value
}

export function optionalString(
  body: Record<string, unknown>,
  name: string,
  maxChars: number | undefined,
): string | null {
  const value = body[name]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') throw invalidParameter(name, `${name} must be a string.`)
  if (maxChars !== undefined && value.length > maxChars)
    throw invalidParameter(name, `${name} is at most ${maxChars} characters; got ${value.length}.`)
  return value
}

/** A list limit from the query: plain digits within the range, else 400. */
export function listLimit(raw: unknown, range: { min: number; max: number; default: number }, check = true): number {
  if (raw === undefined) return range.default
  if (typeof raw !== 'string' || !/^\d+$/.test(raw))
    throw invalidParameter('limit', `limit must be an integer from ${range.min} to ${range.max}.`)
  const value = Number(raw)
  if (!check) return Math.max(1, value)
  if (value < range.min || value > range.max)
    throw invalidParameter('limit', `limit must be from ${range.min} to ${range.max}; got ${value}.`)
  return value
}

/** Newest-first paging after a cursor id, the envelope of the compatible list convention. */
export function pageAfter<T extends { id: string }>(
  items: readonly T[],
  after: unknown,
  limit: number,
): { object: 'list'; data: T[]; first_id: string | null; last_id: string | null; has_more: boolean } {
  let start = 0
  if (after !== undefined) {
    const index = items.findIndex((item) => item.id === after)
    if (index < 0) throw invalidParameter('after', `after names no item of this list: '${String(after)}'.`)
    start = index + 1
  }
  const data = items.slice(start, start + limit)
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: start + limit < items.length,
  }
}

export function notFound(what: string, id: string): GatewayError {
  return new GatewayError(404, `No ${what} with id '${id}'.`, { code: 'not_found' })
}
