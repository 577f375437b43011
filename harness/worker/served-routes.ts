/**
 * Served routes, by origin: a route that answered 2xx once is served, and a later 404 there is the API's own, not
 * the signature of a missing route. The client notes every answer it reads; the assertions ask.
 */
import type { ExchangeExcerpt } from '../exchange.ts'
import { routeOf } from '../routes.ts'

const served = new Set<string>()

const servedKey = (ex: ExchangeExcerpt, route: string): string => `${new URL(ex.url).origin} ${route}`

/** Notes, for every answer the client reads, the served routes that answered 2xx. */
export function noteServed(ex: ExchangeExcerpt): void {
  if (ex.status === undefined || ex.status < 200 || ex.status >= 300) return
  const route = routeOf(ex.method, ex.path)
  if (route !== undefined) served.add(servedKey(ex, route.route))
}

/** Whether `route` answered 2xx at the origin of `ex` earlier in this worker. */
export function wasServed(ex: ExchangeExcerpt, route: string): boolean {
  return served.has(servedKey(ex, route))
}
