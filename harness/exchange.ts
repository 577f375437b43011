/**
 * The exchange excerpt: one HTTP exchange as kept for reports, audits and failure messages. Plain JSON (it travels
 * from the test worker to the reporter), already redacted, bodies cut to EXCERPT_CHARS.
 */
import type { KeySlot } from './keys.ts'

export type AuthMode = 'bearer' | 'x-api-key' | 'none'

/** Which key a request carried: a configured slot, a deliberately invalid key, or none. */
export type KeyUse = KeySlot | 'invalid' | null

export interface ExchangeExcerpt {
  seq: number
  method: string
  url: string
  path: string
  key: KeyUse
  auth: AuthMode
  requestHeaders: Record<string, string>
  requestBody?: string
  /** True when requestBody describes the body (a large or streamed one) rather than holding it. */
  requestBodyIsNote?: boolean
  clientRequestId?: string
  startedAt: number
  durationMs: number
  attempt: number
  /** Milliseconds the client held this call back because the last rate-limit headers said the bucket was empty. */
  pacedMs?: number
  /** Absent when no response arrived (see `error`). */
  status?: number
  responseHeaders?: Record<string, string>
  body?: string
  bodyBytes?: number
  bodyTruncated?: boolean
  error?: string
  /** The records the answer showed and the echoes it carried, for the record ledger (harness/report/ledger.ts). */
  notes?: RecordNotes
  /** Sent to an origin other than the target's (a storage host a redirect led to): its answer is not the service's. */
  crossOrigin?: true
}

export const EXCERPT_CHARS = 2000

export function bodyExcerpt(text: string, max: number = EXCERPT_CHARS): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false }
  return { text: `${text.slice(0, max)}… [${text.length - max} more characters]`, truncated: true }
}

export function header(excerpt: Pick<ExchangeExcerpt, 'responseHeaders'>, name: string): string | undefined {
  return excerpt.responseHeaders?.[name.toLowerCase()]
}

/** The records an excerpt's notes follow (worker/records.ts computes the notes from the full answer). */
export type RecordKind = 'file' | 'video' | 'response' | 'transaction'

/** One appearance of a record in an answer. */
export interface Sighting {
  kind: RecordKind
  id: string
  /** Where in the answer: "upload", "retrieve", "list /data/3", "stream response.completed". */
  where: string
  /**
   * The fields that stay the same, and those carried to be judged on their own, as JSON text; absent when not given.
   */
  fixed: Record<string, string>
  /** The record's state where it has one (a video's or a response's status), as JSON text. */
  state?: string
}

/** A field the reference says equals something of the call: the asked or stated value, and the answered one. */
export interface Echo {
  requirement: string
  field: string
  expected: string
  seen: string
}

/** What the ledger keeps of one exchange. */
export interface RecordNotes {
  sightings?: Sighting[]
  echoes?: Echo[]
  /**
   * The request may have asked for a stream: stream true, any stream_format, a streaming method, or a body that is
   * not JSON (a multipart form's fields are not read here).
   */
  streamAsked?: true
  /** The safety_identifier a JSON body gave, which the call's transaction records (Part 1 §2.2). */
  safetyIdentifier?: string
}
