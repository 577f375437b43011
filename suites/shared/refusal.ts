/**
 * A refusal the words do not state (a SHOULD): where the reference gives a range, a list or a limit but not what
 * happens past it, any client error (4xx: 400, 404, 413, 422) counts as the refusal. A 2xx served the value; a 5xx
 * refused nothing either, and the failure says it was a server error.
 */
import { expectThat } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'

export const isClientError = (status: number): boolean => status >= 400 && status < 500

export function expectRefused(ex: Exchange, what: string): void {
  const seen =
    ex.status >= 500
      ? `${ex.status}: a server error, not a refusal of the request`
      : `${ex.status}: ${ex.status < 300 ? 'served' : 'not a client error'}`
  expectThat(isClientError(ex.status), `a client error (4xx) refusing ${what}`, seen, ex)
}
