/** A suite file for test/faults/kept-threads.test.ts that leaves work behind: a rejection after its test ended. */
import { test } from 'vitest'

test('leaves a rejection for later', () => {
  setTimeout(() => void Promise.reject(new Error('late rejection of an earlier run')), 300)
})
