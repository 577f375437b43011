/**
 * The conformance projects' pool (harness/setup/kept-threads.ts): a vitest instance's second run goes to the thread
 * of its first, modules loaded, where vitest's own threads start afresh; a thread that still had work of its run
 * going is not handed to the next.
 */
import { afterEach, expect, test } from 'vitest'
import { createVitest, type Vitest } from 'vitest/node'
import { keptThreads } from '../../harness/setup/kept-threads.ts'
import { ROOT } from '../support/run-conformance.ts'

let vitest: Vitest | undefined
afterEach(async () => {
  await vitest?.close()
  vitest = undefined
})

interface Probed {
  thread: number
  runs: number
}

/** A vitest instance over the probe files, on one thread of `pool`. */
async function instance(pool: 'threads' | typeof keptThreads): Promise<Vitest> {
  vitest = await createVitest('test', {
    root: ROOT,
    config: false,
    include: ['test/support/kept-thread-probe.ts', 'test/support/kept-thread-stray.ts'],
    pool,
    isolate: false,
    maxWorkers: 1,
    watch: false,
    reporters: [],
  })
  return vitest
}

/** One run of the probe: its thread and the count of runs that thread had made, and the run's unhandled errors. */
async function runProbe(on: Vitest): Promise<{ probed: Probed | undefined; unhandled: readonly unknown[] }> {
  const { testModules, unhandledErrors } = await on.runTestSpecifications(
    await on.globTestSpecifications(['kept-thread-probe']),
  )
  const [test] = testModules
    .filter((module) => module.moduleId.endsWith('kept-thread-probe.ts'))
    .flatMap((module) => [...module.children.allTests()])
  expect(test?.result().state).toBe('passed')
  return { probed: test?.meta() as unknown as Probed | undefined, unhandled: unhandledErrors }
}

/** Runs the probe `times` times in one instance. */
async function probe(pool: 'threads' | typeof keptThreads, times: number): Promise<Array<Probed | undefined>> {
  const on = await instance(pool)
  const seen: Array<Probed | undefined> = []
  for (let i = 0; i < times; i += 1) seen.push((await runProbe(on)).probed)
  return seen
}

test('a kept thread serves the next run of its instance, with the modules it loaded', async () => {
  const [first, second, third] = await probe(keptThreads, 3)
  expect([second?.thread, third?.thread]).toEqual([first?.thread, first?.thread])
  expect([first?.runs, second?.runs, third?.runs]).toEqual([1, 2, 3])
}, 60_000)

test("vitest's own threads start afresh each run (what the kept pool saves)", async () => {
  const [first, second] = await probe('threads', 2)
  expect(second?.thread).not.toBe(first?.thread)
  expect([first?.runs, second?.runs]).toEqual([1, 1])
}, 60_000)

test('a thread whose run left work going is ended, and what it left is not judged in the next run', async () => {
  const on = await instance(keptThreads)
  const stray = await on.runTestSpecifications(await on.globTestSpecifications(['kept-thread-stray']))
  expect(stray.unhandledErrors).toEqual([])
  // Past the rejection: the shelved thread has reported it.
  await new Promise((resolve) => setTimeout(resolve, 800))
  const next = await runProbe(on)
  expect(next.unhandled).toEqual([])
  expect(next.probed?.runs).toBe(1)
}, 60_000)
