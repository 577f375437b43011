/**
 * The routes the reference says the service serves (`schemas/routes.json`), each with the requirement whose words
 * state it, and the signature of an answer that says the target does not serve a route at all. A missing route is
 * one cause: that requirement fails with the exchange, and every other check that meets it skips naming it.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ExchangeExcerpt } from './exchange.ts'
import { HarnessError } from './errors.ts'
import { requirements } from './requirements.ts'

export interface Route {
  /** "POST /v1/audio/speech", placeholders in braces as the reference writes them. */
  route: string
  requirement: string
  method: string
  /** A route with a placeholder: a 404 there may be an id or a model the target does not know. */
  templated: boolean
  pattern: RegExp
}

/** What shows a route absent: the route, the requirement that states it, and the answer in a few words. */
export interface RouteAbsence {
  route: string
  requirement: string
  answer: string
}

const ROUTES_PATH = fileURLToPath(new URL('../schemas/routes.json', import.meta.url))

let cache: Route[] | undefined

export function loadRoutes(path: string = ROUTES_PATH): Route[] {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { routes: Array<{ route: string; requirement: string }> }
  const known = requirements()
  return raw.routes.map(({ route, requirement }) => {
    if (!known.has(requirement))
      throw new HarnessError('INTERNAL', `schemas/routes.json: ${route} names ${requirement}, not in the catalogue`)
    const [method, template] = route.split(' ') as [string, string]
    // A placeholder is one path segment, up to a colon (the native interface's "{model}:generateContent").
    const source = template
      .split(/(\{[^}]+\})/)
      .map((piece) => (piece.startsWith('{') ? '[^/:]+' : piece.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('')
    return { route, requirement, method, templated: template.includes('{'), pattern: new RegExp(`^${source}/?$`) }
  })
}

export function routes(): Route[] {
  cache ??= loadRoutes()
  return cache
}

/** The served route a call went to, if the table has it. */
export function routeOf(method: string, path: string): Route | undefined {
  const pathname = path.split('?')[0] ?? path
  return routes().find((r) => r.method === method && r.pattern.test(pathname))
}

// A web framework's own answer for a route it has no handler for, which names the call it refused: express and
// NestJS ("Cannot POST /v1/x"), Fastify ("Route POST:/v1/x not found"), the convention's own ("Invalid URL (POST
// /v1/x)") and the reference's unsupported-route error (Part 1 §1.6).
const NAMES_NO_ROUTE =
  /\bcannot (get|post|put|patch|delete)\b|\broute\b[^"]*\bnot found\b|\bunknown route\b|\bunsupported[_ ]route\b|\binvalid url\b|\bno (such )?route\b/i
// A bare "Not Found" page or message (Starlette's {"detail":"Not Found"}, Go's "404 page not found").
const BARE_NOT_FOUND = /^\s*(404\s*:?\s*)?(page\s+)?not\s*found\.?\s*$/i

/**
 * Whether an answer says the target serves no such route. 405 and 501 say it of any route. A 404 says it where its
 * body names the refused call as a route the framework does not know; on a route without placeholders, also where
 * the body is empty, a page that is not JSON, or a bare "Not Found". A 404 in the API's own words (an unknown model,
 * file or response) is not a missing route: its check judges it.
 */
export function routeAbsence(
  ex: Pick<ExchangeExcerpt, 'method' | 'path' | 'status' | 'body'>,
): RouteAbsence | undefined {
  const route = ex.status === undefined ? undefined : routeOf(ex.method, ex.path)
  if (route === undefined) return undefined
  const answer = `${ex.method} ${ex.path.split('?')[0]} answered ${ex.status}`
  const found = { route: route.route, requirement: route.requirement, answer }
  if (ex.status === 405 || ex.status === 501) return found
  if (ex.status !== 404) return undefined
  const body = ex.body ?? ''
  if (NAMES_NO_ROUTE.test(body)) return found
  if (route.templated || /\bmodel\b/i.test(body)) return undefined
  return bareNotFound(body) ? found : undefined
}

function bareNotFound(body: string): boolean {
  if (body.trim() === '' || BARE_NOT_FOUND.test(body)) return true
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return true // an HTML or text page: no API answers its own errors so
  }
  const strings = leaves(json)
  return strings.some((s) => BARE_NOT_FOUND.test(s)) && strings.every((s) => s.length <= 40)
}

function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (typeof value !== 'object' || value === null) return []
  return Object.values(value).flatMap(leaves)
}
