/**
 * Request bodies in JSON: Fastify's own parser (prototype poisoning refused, an empty body refused), behind a
 * bound on nesting. The reference sets no depth, but a body nested thousands deep is no request any endpoint
 * reads, and the gateway's own walks of a body (JSON.stringify of tools and schemas for token counts, the
 * schema-driven answers, String() in messages) recurse: past a few thousand levels they would exhaust the stack and
 * answer 500 to a malformed request. Refused up front with 400 instead, like any other invalid body.
 */
import type { FastifyInstance } from 'fastify'
import { GatewayError } from './errors.ts'

/** Deepest nesting of objects and arrays a JSON body may have; real requests (JSON schemas included) stay far below. */
export const MAX_JSON_DEPTH = 64

/** Whether a JSON text nests objects and arrays deeper than `max`; one pass, brackets inside strings skipped. */
export function jsonTooDeep(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i += 1 // backslash: the next character is escaped
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1
      if (depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1
    }
  }
  return false
}

export function tooDeep(param: string | null = null): GatewayError {
  return new GatewayError(400, `The JSON nests objects and arrays more than ${MAX_JSON_DEPTH} deep.`, { param })
}

/** Replaces the default application/json parser with the same parser behind the depth bound. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonTooDeep(body as string)) {
      done(tooDeep(), undefined)
      return
    }
    parse(request, body as string, done)
  })
}
