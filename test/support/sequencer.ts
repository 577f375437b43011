/**
 * The order in which `npm test` starts its files: those that run the commands in child processes (the fault proof,
 * the CLI runs, the load command) first, longest known first, then vitest's own order. On a fresh clone vitest has
 * no durations cached and keeps the glob order, so the fault proof (about 400 s) started some three minutes in and
 * ran on alone at the end.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Path prefixes under the project root, in the order their files should start. */
export const LONG_FIRST = ['test/faults/', 'test/cli/allowed-variation', 'test/cli/conformance-cli', 'test/cli/', 'test/load/']

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root.replaceAll('\\', '/')
    const rank = (spec: TestSpecification): number => {
      const path = spec.moduleId.replaceAll('\\', '/').slice(root.length + 1)
      const index = LONG_FIRST.findIndex((prefix) => path.startsWith(prefix))
      return index < 0 ? LONG_FIRST.length : index
    }
    // Array sort is stable: within a rank, vitest's order (failed first, then longest cached) stands.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}
