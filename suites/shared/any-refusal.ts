/**
 * The refusal of a value past a stated range, list or limit, where the words do not state the refusal: any 4xx
 * refuses (400 invalid request, 404, 413, 422 as some frameworks answer), a 2xx is what the SHOULD warns of, and a
 * 5xx is no refusal either, said as a server error.
 */
import { fail } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'

export function expectAnyRefusal(ex: Exchange, why: string): void {
  if (ex.status >= 400 && ex.status < 500) return
  const seen = ex.status >= 500 ? `${ex.status}, a server error rather than a refusal` : `${ex.status}, served`
  fail(`a 4xx refusal (${why})`, seen, ex)
}
