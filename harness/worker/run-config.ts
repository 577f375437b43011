/**
 * The target a suite file faces: the run's, or in a run whose files face different targets, the file's own. Apart
 * from suite.ts so that the assertions, which suite.ts imports, can ask it too.
 */
import { expect, inject } from 'vitest'
import type { TargetConfig } from '../setup/config.ts'

declare module 'vitest' {
  interface ProvidedContext {
    runConfig: TargetConfig
    /**
     * A run whose files face different targets, by the file's absolute path (the fault proof's shared runs: one
     * gateway per fault, each fault's files against its own). A file not listed faces `runConfig`.
     */
    fileTargets?: Record<string, TargetConfig>
  }
}

export function runConfig(): TargetConfig {
  const file = expect.getState().testPath
  return (file === undefined ? undefined : inject('fileTargets')?.[file]) ?? inject('runConfig')
}

/** The id of the run a test belongs to; outside a conformance run (the assertions' own unit tests) there is one, unnamed. */
export function runIdNow(): string {
  return inject('runConfig') === undefined ? '' : runConfig().runId
}
