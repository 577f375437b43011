/**
 * Served routes, by run and origin: a route that answered 2xx once is served, and a later 404 there is the API's
 * own, not the signature of a missing route. The client notes every answer it reads; the assertions ask. A thread
 * kept between runs (harness/setup/kept-threads.ts) may meet a later run's target at an origin an earlier one had.
 */
import type { ExchangeExcerpt } from '../exchange.ts'
import { routeOf } from '../routes.ts'

const served = new Set<string>()

const servedKey = (runId: string, ex: ExchangeExcerpt, route: string): string =>
  `${runId} ${new URL(ex.url).origin} ${route}`

/** Notes, for every answer the client reads, the served routes that answered 2xx. */
export function noteServed(runId: string, ex: ExchangeExcerpt): void {
  if (ex.status === undefined || ex.status < 200 || ex.status >= 300) return
  const route = routeOf(ex.method, ex.path)
  if (route !== undefined) served.add(servedKey(runId, ex, route.route))
}

/** Whether `route` answered 2xx at the origin of `ex` earlier in this run's worker. */
export function wasServed(runId: string, ex: ExchangeExcerpt, route: string): boolean {
  return served.has(servedKey(runId, ex, route))
}
