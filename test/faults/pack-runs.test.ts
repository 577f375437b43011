/**
 * The fault proof's shared runs (proof/fault-runs.ts packRuns): faults whose suite files do not overlap run side by
 * side, each file facing its own fault's gateway. Packing must never put two faults that need one file in a run.
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { packRuns } from '../../proof/fault-runs.ts'

const FILES = ['a', 'b', 'c', 'd', 'e', 'f']

describe('packing faults into shared runs', () => {
  test('every fault is in exactly one run, and no two faults of a run need the same file', () => {
    fc.assert(
      fc.property(fc.array(fc.uniqueArray(fc.constantFrom(...FILES), { minLength: 1 }), { maxLength: 30 }), (needs) => {
        const jobs = needs.map((files, i) => ({ i, files: new Set(files) }))
        const runs = packRuns(jobs, (job) => job.files)
        expect(
          runs
            .flat()
            .map((job) => job.i)
            .sort((x, y) => x - y),
        ).toEqual(jobs.map((job) => job.i))
        for (const run of runs) {
          const seen = run.flatMap((job) => [...job.files])
          expect(new Set(seen).size).toBe(seen.length)
        }
        // A run is opened only for a fault that needs a file of every run before it.
        runs.forEach((run, i) => {
          const opener = run[0]!
          for (const earlier of runs.slice(0, i))
            expect(earlier.some((job) => [...job.files].some((file) => opener.files.has(file)))).toBe(true)
        })
      }),
    )
  })

  test('faults that need the same file run apart, and the others share', () => {
    const jobs = [
      { name: 'x', files: new Set(['a']) },
      { name: 'y', files: new Set(['a', 'b']) },
      { name: 'z', files: new Set(['c']) },
    ]
    expect(packRuns(jobs, (job) => job.files).map((run) => run.map((job) => job.name))).toEqual([['y', 'z'], ['x']])
  })
})
