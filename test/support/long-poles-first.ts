/**
 * The self-test order: the files that hold a worker for minutes, mostly waiting on child runs, start first. vitest
 * orders by the durations it cached, and with none (a fresh clone, CI) by size, larger first, which started these
 * small files last and left a two-core machine idle behind them. So the order comes from the last whole run's
 * timings (durations.json, kept by durations-reporter.ts), longest first.
 */
import { existsSync, readFileSync } from 'node:fs'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** The timings file, beside this module; an installed package runs only its suites and ships none. */
export const DURATIONS = new URL('./durations.json', import.meta.url)

/** Seconds per self-test file (its path from the repository root), as the last whole run measured them. */
export type Durations = Record<string, number>

export function readDurations(): Durations {
  return existsSync(DURATIONS) ? (JSON.parse(readFileSync(DURATIONS, 'utf8')) as Durations) : {}
}

/**
 * Last, whatever it took: the load fault proof judges rate limits by when its calls were sent, and a machine loaded
 * past its cores stretches that; by its turn only the fault proof still runs beside it.
 */
export const LAST = ['test/load/load-faults.test.ts']

/** The path from the repository root, as durations.json names it. */
export function pathOf(moduleId: string, root: string): string {
  return moduleId.startsWith(`${root}/`) ? moduleId.slice(root.length + 1) : moduleId
}

export class LongPolesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = readDurations()
    const key = (spec: TestSpecification): number => {
      const path = pathOf(spec.moduleId, spec.project.config.root)
      if (LAST.includes(path)) return Number.NEGATIVE_INFINITY
      // The unit files after them, one after another: a worker that ends one takes the next without starting
      // again (isolate: false).
      if (spec.project.name === 'unit') return -1
      return seconds[path] ?? 0
    }
    // Array sort is stable: vitest's own order (groups, projects, cached durations) holds among equals.
    return [...(await super.sort(files))].sort((a, b) => key(b) - key(a))
  }
}
