/**
 * The exchange excerpt: one HTTP exchange as kept for reports, audits and failure messages. Plain JSON (it travels
 * from the test worker to the reporter), already redacted, bodies cut to EXCERPT_CHARS.
 */
import type { KeySlot } from './setup/config.ts'
import type { RecordNotes } from './worker/records.ts'

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
