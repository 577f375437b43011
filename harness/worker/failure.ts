/**
 * The failure message contract (ARCHITECTURE.md): the requirement id and section, the rule, what was expected and
 * what was seen, the exchange (method, path, status, redacted headers, svc-request-id, a body excerpt) and a
 * curl line that reproduces it with the key's environment variable in place of the key.
 */
import { citation, type Requirement } from '../requirements.ts'
import { curlLine } from './curl.ts'
import type { FailureDetails } from '../errors.ts'
import { bodyExcerpt, type ExchangeExcerpt } from '../exchange.ts'

const BODY_IN_MESSAGE = 600 // characters: enough to see the shape; the full excerpt is in summary.json
const SHOWN_RESPONSE_HEADERS = /^(content-type|svc-request-id|x-request-id|x-ratelimit-|retry-after|location)/

function headerLine(headers: Record<string, string> | undefined, filter?: RegExp): string {
  return Object.entries(headers ?? {})
    .filter(([name]) => filter === undefined || filter.test(name))
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ')
}

export function describeExchange(ex: ExchangeExcerpt): string[] {
  const outcome = ex.status !== undefined ? String(ex.status) : `no response (${ex.error ?? 'unknown'})`
  const id = ex.responseHeaders?.['svc-request-id']
  const lines = [
    `${ex.method} ${ex.path} -> ${outcome} · svc-request-id ${id ?? '(none)'} · ${ex.durationMs} ms${ex.attempt > 1 ? ` · attempt ${ex.attempt}` : ''}`,
  ]
  lines.push(`  request headers: ${headerLine(ex.requestHeaders)}`)
  if (ex.requestBody !== undefined) lines.push(`  request body: ${bodyExcerpt(ex.requestBody, BODY_IN_MESSAGE).text}`)
  if (ex.responseHeaders !== undefined)
    lines.push(`  response headers: ${headerLine(ex.responseHeaders, SHOWN_RESPONSE_HEADERS)}`)
  if (ex.body !== undefined)
    lines.push(`  body (${ex.bodyBytes ?? ex.body.length} bytes): ${bodyExcerpt(ex.body, BODY_IN_MESSAGE).text}`)
  // An answer that came but went wrong on the way (a body cut off, a stream stopped by a cap): say how.
  if (ex.status !== undefined && ex.error !== undefined) lines.push(`  transport: ${ex.error}`)
  return lines
}

export function renderFailure(req: Requirement | undefined, details: FailureDetails): string {
  const lines: string[] = []
  if (req !== undefined) {
    lines.push(`${req.id} · ${req.level} · ${citation(req)}`)
    lines.push(`Rule: ${req.rule}`)
    if (req.quote !== undefined) lines.push(`Reference: "${req.quote}"`)
  }
  lines.push(`Expected: ${details.expected}`)
  const seen = Array.isArray(details.seen) ? details.seen : [details.seen]
  if (seen.length === 1) lines.push(`Seen: ${seen[0]}`)
  else
    lines.push(
      'Seen:',
      ...seen.slice(0, 20).map((s) => `  ${s}`),
      ...(seen.length > 20 ? [`  … ${seen.length - 20} more`] : []),
    )
  if (details.exchange !== undefined) {
    lines.push(`Exchange: ${describeExchange(details.exchange).join('\n')}`)
    lines.push(`Reproduce: ${curlLine(details.exchange)}`)
  }
  return lines.join('\n')
}
