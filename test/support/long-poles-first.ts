/**
 * The self-test order: the files that hold a worker for minutes, mostly waiting on child runs, start first. vitest
 * orders by the durations it cached, and with none (a fresh clone, CI) by size, larger first, which started these
 * small files last and left a two-core machine idle behind them.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Longest first, as a whole npm test measures them; every other file keeps vitest's order after them. */
export const LONG_POLES = [
  'test/faults/fault-proof.test.ts',
  'test/cli/allowed-variation.test.ts',
  'test/cli/real-variation.test.ts',
  'test/cli/conformance-cli.test.ts',
  'test/cli/pack.test.ts',
  'test/cli/hostile.test.ts',
  'test/cli/selection.test.ts',
  'test/load/load-cli.test.ts',
  'test/cli/named-models.test.ts',
  'test/third-party/third-party.test.ts',
  'test/cli/allure-report.test.ts',
]

/**
 * Last: the load fault proof judges rate limits by when its calls were sent, and a machine loaded past its cores
 * stretches that; by its turn only the fault proof still runs beside it.
 */
export const LAST = ['test/load/load-faults.test.ts']

function rank(spec: TestSpecification): number {
  const index = LONG_POLES.findIndex((path) => spec.moduleId.endsWith(`/${path}`))
  if (index !== -1) return index
  if (LAST.some((path) => spec.moduleId.endsWith(`/${path}`))) return LONG_POLES.length + 2
  // The unit files one after another: a worker that ends one takes the next without starting again (isolate: false).
  return spec.project.name === 'unit' ? LONG_POLES.length + 1 : LONG_POLES.length
}

export class LongPolesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array sort is stable: vitest's own order (groups, projects, cached durations) holds among equals.
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b))
  }
}
