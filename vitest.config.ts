import { defineConfig } from 'vitest/config'
import { keptThreads } from './harness/setup/kept-threads.ts'
import { LongPolesFirst } from './test/support/long-poles-first.ts'

/** The files of `unit`, by where they live: a test under test/unit/ needs no conformance or load run. */
const UNIT = ['test/unit/**/*.test.ts']

/**
 * A self-test's beforeAll that starts a gateway loads its modules then (gateway/embedded.ts loads the server with
 * the first gateway), in process or on a thread of its own: seconds on a quiet machine, past vitest's 10 s default
 * beside a whole npm test on two cores.
 */
const SETUP_MS = 120_000

/** Suites that read an account's credit for the absence of a charge, run alone after every other family. */
const LEDGER_FILES = 'suites/moderation/cost.test.ts'

export default defineConfig({
  test: {
    // Self-test files: the fault proof, the CLI runs and the --vary runs each hold a worker for minutes while mostly
    // waiting on their child runs; a fourth worker keeps the quick files from queueing behind them on a two-core
    // machine (with three, a fresh clone, which has no durations cached to order files by, took 600 s).
    maxWorkers: 4,
    // Those files start first, durations cached or not (test/support/long-poles-first.ts).
    sequence: { sequencer: LongPolesFirst },
    // npm test runs `unit` and `self`.
    projects: [
      {
        // The edit-test loop (npm run test:unit): the harness, the gateway and the load analyzers in process. Left to
        // `self`: whatever starts conformance or load runs, fuzzes, drives a browser or an npm client.
        test: {
          name: 'unit',
          include: UNIT,
          // These files keep nothing in module variables that another file reads: sharing a worker halves their CPU.
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: SETUP_MS,
        },
      },
      {
        test: {
          name: 'self',
          include: ['test/**/*.test.ts'],
          exclude: UNIT,
          testTimeout: 30_000,
          hookTimeout: SETUP_MS,
        },
      },
      {
        test: {
          name: 'conformance',
          include: ['suites/**/*.test.ts'],
          // Worker threads, each kept from one run to the next of a vitest instance (harness/setup/kept-threads.ts):
          // a thread starts for less than a process, and the fault proof's many runs load the harness once a thread.
          pool: keptThreads,
          // Files share a worker and the modules it loaded, which halves a run's CPU: a suite's helper modules keep
          // what they learn of the target per file (harness/worker/suite.ts perFile), never in a module variable.
          isolate: false,
          exclude: ['suites/tiers/**', LEDGER_FILES],
          setupFiles: ['suites/setup.ts'],
          globalSetup: ['suites/global-setup.ts'],
          // A beforeAll that creates what its tests read waits on the target like a test does (harness/worker/suite.ts
          // SUITE_DEFAULTS.testTimeoutMs); vitest's 10 s default failed a slow target as a harness error.
          hookTimeout: 120_000,
          // Suites wait on the network, not the CPU: run files side by side even on two cores.
          maxConcurrency: 5,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The tiers family counts every call of an account's buckets, so it runs after every other family has
        // finished with the tier keys (a later group never overlaps an earlier one).
        test: {
          name: 'conformance-tiers',
          include: ['suites/tiers/**/*.test.ts'],
          pool: keptThreads,
          isolate: false,
          setupFiles: ['suites/setup.ts'],
          globalSetup: ['suites/global-setup.ts'],
          hookTimeout: 120_000,
          maxConcurrency: 5,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The check that free calls leave the credit unchanged reads an account no other call may charge meanwhile:
        // it runs last, alone.
        test: {
          name: 'conformance-ledger',
          include: [LEDGER_FILES],
          pool: keptThreads,
          isolate: false,
          setupFiles: ['suites/setup.ts'],
          globalSetup: ['suites/global-setup.ts'],
          hookTimeout: 120_000,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
})
