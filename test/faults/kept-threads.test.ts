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

/** Runs the probe `times` times in one instance: each run's thread and the count of runs that thread had made. */
async function probe(
  pool: 'threads' | typeof keptThreads,
  times: number,
): Promise<Array<{ thread: number; runs: number }>> {
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
  const seen: Array<{ thread: number; runs: number }> = []
  for (let i = 0; i < times; i += 1) {
    const specs = await vitest.globTestSpecifications(['kept-thread-probe'])
    const { testModules } = await vitest.runTestSpecifications(specs)
    const [probed] = testModules
      .filter((module) => module.moduleId.endsWith('kept-thread-probe.ts'))
      .flatMap((module) => [...module.children.allTests()])
    expect(probed?.result().state).toBe('passed')
    seen.push(probed?.meta() as unknown as { thread: number; runs: number })
  }
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
  vitest = await createVitest('test', {
    root: ROOT,
    config: false,
    include: ['test/support/kept-thread-probe.ts', 'test/support/kept-thread-stray.ts'],
    pool: keptThreads,
    isolate: false,
    maxWorkers: 1,
    watch: false,
    reporters: [],
  })
  const stray = await vitest.runTestSpecifications(await vitest.globTestSpecifications(['kept-thread-stray']))
  expect(stray.unhandledErrors).toEqual([])
  // Past the rejection: the shelved thread has reported it.
  await new Promise((resolve) => setTimeout(resolve, 800))
  const next = await vitest.runTestSpecifications(await vitest.globTestSpecifications(['kept-thread-probe']))
  expect(next.unhandledErrors).toEqual([])
  const [probed] = next.testModules
    .filter((module) => module.moduleId.endsWith('kept-thread-probe.ts'))
    .flatMap((module) => [...module.children.allTests()])
  expect((probed?.meta() as unknown as { runs?: number } | undefined)?.runs).toBe(1)
}, 60_000)
