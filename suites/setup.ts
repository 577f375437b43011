/** Per-test recording for every conformance suite (see harness/worker/recorder.ts). */
import { afterAll, afterEach, beforeEach } from 'vitest'
import { closeRecording, openRecording, takeHeldExchanges } from '../harness/worker/recorder.ts'
import { beginFile } from '../harness/worker/suite.ts'

beginFile()
beforeEach((ctx) => openRecording(ctx))
afterEach((ctx) => closeRecording(ctx))
// Registered first, so it runs after the file's own afterAll hooks (vitest runs after-hooks as a stack).
// biome-ignore lint/correctness/noEmptyPattern: vitest requires the first parameter to be destructured
afterAll(({}, file) => {
  const exchanges = takeHeldExchanges()
  if (exchanges.length > 0) file.meta.exchanges = exchanges
})
