/** A suite file for test/faults/kept-threads.test.ts: the thread it ran on, and how many runs that thread had. */
import { threadId } from 'node:worker_threads'
import { test } from 'vitest'
import { countRun } from './kept-thread-runs.ts'

test('probe', ({ task }) => {
  Object.assign(task.meta, { thread: threadId, runs: countRun() })
})
