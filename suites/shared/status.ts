/**
 * Status classes where the words give a class, not a status. Served: any 2xx, as Part 1 §7 gives "2xx success" and
 * Part 2 §7 no success status of its own for OCR and moderation. A refusal the words leave unstated is
 * judged by expectRefused (harness/worker/assert.ts).
 */
import { expectKeyAccepted, expectThat } from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'

export const is2xx = (status: number): boolean => status >= 200 && status < 300
export const isClientError = (status: number): boolean => status >= 400 && status < 500

/** A call whose rule is that it is served: any 2xx, else a failure (a valid key refused is the auth rule's). */
export function expectServed(ex: Exchange, what: string): void {
  if (is2xx(ex.status)) return
  expectKeyAccepted(ex)
  expectThat(false, `a 2xx success: ${what}`, `${ex.status} ${ex.text.slice(0, 200)}`, ex)
}

/** A call that only sets up what the test judges: anything but a 2xx skips the test, naming the call. */
export function expectServedSetup(ex: Exchange, what: string): void {
  if (is2xx(ex.status)) return
  skipTest(`set-up failed: ${what}: ${ex.excerpt.method} ${ex.excerpt.path} answered ${ex.status}, not a 2xx`)
}
