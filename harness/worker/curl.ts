/** A curl line that reproduces an exchange, with `$GATEWAY_API_KEY` (or the tier's variable) in place of the key. */
import { KEY_ENV } from '../keys.ts'
import type { ExchangeExcerpt } from '../exchange.ts'

/** Headers the harness adds for itself; a reproduction does not need them. */
const OMIT = new Set(['x-client-request-id', 'content-length', 'host', 'connection', 'user-agent'])

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}

export function curlLine(ex: ExchangeExcerpt, fullBody?: string): string {
  const parts = ['curl', '-sS', '-i']
  if (ex.method !== 'GET') parts.push('-X', ex.method)
  parts.push(shellQuote(ex.url))
  for (const [name, value] of Object.entries(ex.requestHeaders)) {
    const lower = name.toLowerCase()
    if (OMIT.has(lower)) continue
    if ((lower === 'authorization' || lower === 'x-api-key') && ex.key !== null && ex.key !== 'invalid') {
      // Double quotes so the shell expands the variable; the key itself is never written out.
      const variable = `$${KEY_ENV[ex.key]}`
      parts.push('-H', lower === 'authorization' ? `"Authorization: Bearer ${variable}"` : `"x-api-key: ${variable}"`)
      continue
    }
    // A key in a header of its own (the native key header) was redacted to its variable's marker: expand it.
    const marker = /^<(GATEWAY_[A-Z0-9_]+)>$/.exec(value)
    const plainName = /^[A-Za-z0-9-]+$/.test(name) // nothing the shell reads inside double quotes
    parts.push('-H', marker && plainName ? `"${name}: $${marker[1] as string}"` : shellQuote(`${name}: ${value}`))
  }
  if (ex.requestBodyIsNote && fullBody === undefined)
    return `${parts.join(' ')}  # body not reproduced: ${ex.requestBody ?? ''}`
  const body = fullBody ?? ex.requestBody
  if (body !== undefined && body !== '') parts.push('--data-raw', shellQuote(body))
  return parts.join(' ')
}
